int path_join(char *dst, size_t dstsz, const char *dir, const char *name)
{
	size_t dlen;

	if (dst == NULL || dir == NULL || name == NULL || dstsz == 0)
		return -1;
	while (*name == '/')
		name++;
	dlen = strlen(dir);
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;

	memcpy(dst, dir, dlen);
	dst[dlen] = '\0';
	if (dlen > 0 && dst[dlen - 1] != '/')
		strcat(dst, "/");
	strcat(dst, name);
	return 0;
}
