int upload_store(const struct upload_cfg *cfg, const char *filename, const void *data, size_t len)
{
	char path[PATH_MAX];
	const char *base;
	size_t off = 0;
	ssize_t w;
	int fd;

	if (filename == NULL || *filename == '\0')
		return UPLOAD_ERR_NAME;
	base = strrchr(filename, '/');
	base = base != NULL ? base + 1 : filename;
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return UPLOAD_ERR_NAME;
	if (len > cfg->max_size)
		return UPLOAD_ERR_TOO_BIG;
	if (snprintf(path, sizeof(path), "%s/%s", cfg->dir, base) >= (int)sizeof(path))
		return UPLOAD_ERR_NAME;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0)
		return errno == EEXIST ? UPLOAD_ERR_EXISTS : UPLOAD_ERR_IO;
	while (off < len) {
		w = write(fd, (const char *)data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			unlink(path);
			return UPLOAD_ERR_IO;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0)
		return UPLOAD_ERR_IO;
	return 0;
}
