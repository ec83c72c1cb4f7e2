int backup_restore(const struct backup_cfg *cfg, const char *name)
{
	char archive[PATH_MAX];
	char cmd[2 * PATH_MAX + 64];
	int rc;

	if (name == NULL || *name == '\0' || *name == '.')
		return -1;
	if (strspn(name, BACKUP_NAME_CHARS) != strlen(name))
		return -1;
	if (snprintf(archive, sizeof(archive), "%s/%s.tar.gz", cfg->backup_dir, name) >= (int)sizeof(archive))
		return -1;
	if (access(archive, R_OK) != 0) {
		log_error("restore %s: %s", archive, strerror(errno));
		return -1;
	}

	snprintf(cmd, sizeof(cmd), "tar -xzf '%s' -C '%s'", archive, cfg->data_dir);
	log_info("restoring %s into %s", archive, cfg->data_dir);
	rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
		log_error("restore %s: tar failed (status %d)", archive, rc);
		return -1;
	}
	return 0;
}
