int utf8_next(const unsigned char *s, size_t len, size_t *pos, uint32_t *cp)
{
	size_t i = *pos;
	size_t n, k;
	uint32_t v;
	unsigned char c;

	if (i >= len)
		return 0;
	c = s[i];
	if (c < 0x80) {
		*cp = c;
		*pos = i + 1;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2;
		v = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		v = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		v = c & 0x07;
	} else {
		return -1;
	}
	if (n > len - i)
		return -1;

	for (k = 1; k < n; k++) {
		if ((s[i + k] & 0xc0) != 0x80)
			return -1;
		v = (v << 6) | (s[i + k] & 0x3f);
	}
	if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return -1;
	*cp = v;
	*pos = i + n;
	return 1;
}
