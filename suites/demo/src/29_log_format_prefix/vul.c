int log_format_prefix(char *buf, size_t sz, int level, const char *tag, time_t now)
{
	static const char *const names[] = {
		"EMERG", "ALERT", "CRIT", "ERROR", "WARN", "NOTICE", "INFO", "DEBUG",
	};
	const char *lvl = "?";
	struct tm tm;
	char ts[32];

	if (level >= 0 && level <= (int)(sizeof(names) / sizeof(names[0])))
		lvl = names[level];
	if (gmtime_r(&now, &tm) == NULL || strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		ts[0] = '\0';
	return snprintf(buf, sz, "%s [%s] %s: ", ts, lvl, tag != NULL ? tag : "-");
}
