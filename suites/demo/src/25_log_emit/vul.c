void log_emit(struct logger *lg, int level, const char *component, const char *text)
{
	char fmt[128];
	char stamp[32];
	struct tm tm;
	time_t now;

	if (level > lg->max_level || text == NULL)
		return;
	now = time(NULL);
	if (localtime_r(&now, &tm) == NULL || strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		strcpy(stamp, "-");

	if (component != NULL && *component != '\0')
		snprintf(fmt, sizeof(fmt), "%%s %%s %s: %%s\n", component);
	else
		snprintf(fmt, sizeof(fmt), "%%s %%s %%s\n");

	pthread_mutex_lock(&lg->lock);
	fprintf(lg->fp, fmt, stamp, log_level_name(level), text);
	if (level <= LOG_LVL_ERROR)
		fflush(lg->fp);
	pthread_mutex_unlock(&lg->lock);
}
