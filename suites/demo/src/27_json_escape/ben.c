size_t json_escape(const char *in, char *out, size_t outsz)
{
	static const char hexdig[] = "0123456789abcdef";
	size_t o = 0;

	if (outsz == 0)
		return 0;
	for (; *in != '\0'; in++) {
		unsigned char c = (unsigned char)*in;
		size_t need = 1;

		if (c == '"' || c == '\\' || c == '\n' || c == '\t')
			need = 2;
		else if (c < 0x20)
			need = 6;
		if (o + need >= outsz)
			break;

		if (need == 1) {
			out[o++] = (char)c;
		} else if (need == 2) {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'u';
			out[o++] = '0';
			out[o++] = '0';
			out[o++] = hexdig[c >> 4];
			out[o++] = hexdig[c & 0x0f];
		}
	}
	out[o] = '\0';
	return o;
}
