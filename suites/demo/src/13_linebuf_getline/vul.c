char *linebuf_getline(struct linebuf *lb, int fd)
{
	char *line = lb->data + lb->start;
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(lb->data + lb->start, '\n', lb->len - lb->start);
		if (nl != NULL) {
			*nl = '\0';
			if (nl > lb->data + lb->start && nl[-1] == '\r')
				nl[-1] = '\0';
			lb->start = (size_t)(nl - lb->data) + 1;
			return line;
		}
		if (lb->len == lb->cap) {
			size_t ncap = lb->cap * 2;
			char *nd;

			if (ncap > LINEBUF_MAX)
				return NULL;
			nd = realloc(lb->data, ncap);
			if (nd == NULL)
				return NULL;
			lb->data = nd;
			lb->cap = ncap;
		}
		n = read(fd, lb->data + lb->len, lb->cap - lb->len);
		if (n <= 0)
			return NULL;
		lb->len += (size_t)n;
	}
}
