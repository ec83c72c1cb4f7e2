int ptrvec_extend(struct ptrvec *v, void *const *items, size_t n)
{
	size_t need, ncap;
	void **p;

	if (n == 0)
		return 0;
	need = v->len + n;
	if (need > v->cap) {
		ncap = v->cap ? v->cap : 8;
		while (ncap < need)
			ncap *= 2;
		p = realloc(v->items, ncap * sizeof(*v->items));
		if (p == NULL)
			return -1;
		v->items = p;
		v->cap = ncap;
	}
	memcpy(v->items + v->len, items, n * sizeof(*v->items));
	v->len = need;
	return 0;
}
