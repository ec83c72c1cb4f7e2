int archive_entry_dest(const char *destdir, const char *name, char *out, size_t outsz)
{
	const char *p = name;
	const char *q;
	size_t seglen;
	int n;

	while (*p == '/')
		p++;
	if (*p == '\0')
		return -1;

	for (q = p; *q != '\0'; q += seglen) {
		while (*q == '/')
			q++;
		seglen = strcspn(q, "/");
		if (seglen == 0)
			break;
		if (seglen > NAME_MAX)
			return -1;
		if (seglen == 2 && q[0] == '.' && q[1] == '.')
			return -1;
	}

	n = snprintf(out, outsz, "%s/%s", destdir, p);
	if (n < 0 || (size_t)n >= outsz)
		return -1;
	return 0;
}
