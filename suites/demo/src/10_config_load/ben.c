struct config *config_load(const char *path)
{
	struct config *cfg;
	char *text = NULL;
	size_t len;

	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL)
		return NULL;
	config_set_defaults(cfg);

	if (read_whole_file(path, &text, &len) != 0) {
		log_error("cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	cfg->source = strdup(path);
	if (cfg->source == NULL)
		goto fail;
	if (config_parse(cfg, text, len) != 0) {
		log_error("%s:%d: %s", path, cfg->err_line, cfg->err_msg);
		goto fail;
	}
	if (config_validate(cfg) != 0)
		goto fail;

	free(text);
	return cfg;

fail:
	free(text);
	config_free(cfg);
	return NULL;
}
