int http_serve_file(struct http_conn *hc, const char *docroot, const char *uri_path)
{
	char decoded[PATH_MAX];
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (uri_path[0] != '/')
		return http_send_error(hc, 400);
	if (strstr(uri_path, "..") != NULL)
		return http_send_error(hc, 403);
	if (url_decode(uri_path, decoded, sizeof(decoded)) < 0)
		return http_send_error(hc, 400);
	if (snprintf(path, sizeof(path), "%s%s", docroot, decoded) >= (int)sizeof(path))
		return http_send_error(hc, 414);
	if (path[strlen(path) - 1] == '/' && strlen(path) + sizeof("index.html") <= sizeof(path))
		strcat(path, "index.html");

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return http_send_error(hc, errno == ENOENT ? 404 : 403);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return http_send_error(hc, 404);
	}
	return http_send_fd(hc, fd, st.st_size, mime_type_for(path));
}
