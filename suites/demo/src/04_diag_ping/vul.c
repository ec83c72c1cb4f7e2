int diag_ping(const char *host, int count, char *out, size_t outsz)
{
	char cmd[512];
	FILE *fp;
	size_t n = 0;
	int status;

	if (host == NULL || *host == '\0' || outsz == 0)
		return -1;
	if (count < 1 || count > 10)
		count = 3;
	if (snprintf(cmd, sizeof(cmd), "ping -n -c %d -W 2 %s 2>&1", count, host) >= (int)sizeof(cmd))
		return -1;

	fp = popen(cmd, "r");
	if (fp == NULL)
		return -1;
	while (n + 1 < outsz && fgets(out + n, (int)(outsz - n), fp) != NULL)
		n += strlen(out + n);
	out[n] = '\0';

	status = pclose(fp);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
