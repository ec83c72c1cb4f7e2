int ftp_cmd_cwd(struct ftp_session *s, const char *arg)
{
	char path[PATH_MAX];
	char msg[PATH_MAX + 64];

	if (arg == NULL || *arg == '\0')
		return ftp_reply(s, 501, "Syntax error in parameters or arguments.");
	if (!s->logged_in)
		return ftp_reply(s, 530, "Please login with USER and PASS.");
	if (ftp_resolve_path(s, arg, path, sizeof(path)) != 0)
		return ftp_reply(s, 550, "Permission denied.");

	if (chdir(path) != 0) {
		snprintf(msg, sizeof(msg), "%s: %s.", arg, strerror(errno));
		return ftp_reply(s, 550, "%s", msg);
	}
	if (getcwd(s->cwd, sizeof(s->cwd)) == NULL)
		strcpy(s->cwd, "/");

	snprintf(msg, sizeof(msg), "Directory changed to %s.", ftp_display_path(s, s->cwd));
	return ftp_reply(s, 250, "%s", msg);
}
