char *str_repeat(const char *s, size_t count, const char *sep)
{
	size_t slen = strlen(s);
	size_t seplen = sep != NULL ? strlen(sep) : 0;
	size_t total, i;
	char *out, *p;

	if (count == 0)
		return strdup("");
	if (slen + seplen > 0 && count > (SIZE_MAX - 1) / (slen + seplen))
		return NULL;
	total = count * slen + (count - 1) * seplen + 1;
	out = malloc(total);
	if (out == NULL)
		return NULL;

	p = out;
	for (i = 0; i < count; i++) {
		if (i > 0 && seplen > 0) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		memcpy(p, s, slen);
		p += slen;
	}
	*p = '\0';
	return out;
}
