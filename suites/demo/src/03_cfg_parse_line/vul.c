int cfg_parse_line(struct cfg *cfg, char *line, int lineno)
{
	char *key, *val, *eq;
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (*line == '\0' || *line == '#' || *line == ';')
		return 0;

	if (*line == '[') {
		char *end = strchr(line, ']');

		if (end == NULL) {
			cfg_error(cfg, lineno, "unterminated section header");
			return -1;
		}
		*end = '\0';
		return cfg_set_section(cfg, str_trim(line + 1));
	}

	eq = strchr(line, '=');
	*eq = '\0';
	key = str_trim(line);
	val = str_trim(eq + 1);
	if (*key == '\0') {
		cfg_error(cfg, lineno, "empty key");
		return -1;
	}
	n = strlen(val);
	if (n >= 2 && val[0] == '"' && val[n - 1] == '"') {
		val[n - 1] = '\0';
		val++;
	}
	return cfg_set(cfg, key, val, lineno);
}
