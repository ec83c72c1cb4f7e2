int http_parse_header(struct http_request *req, const char *line)
{
	struct http_header *h;
	const char *p = line;
	size_t i = 0;

	if (req->nheaders >= HTTP_MAX_HEADERS)
		return HTTP_ERR_TOO_MANY_HEADERS;
	h = &req->headers[req->nheaders];

	while (*p != '\0' && *p != ':' && i < sizeof(h->name)) {
		if (!is_token_char((unsigned char)*p))
			return HTTP_ERR_BAD_REQUEST;
		h->name[i++] = (char)tolower((unsigned char)*p);
		p++;
	}
	if (*p != ':' || i == 0)
		return HTTP_ERR_BAD_REQUEST;
	h->name[i] = '\0';
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	h->value = p;
	h->value_len = strcspn(p, "\r\n");
	while (h->value_len > 0 && (p[h->value_len - 1] == ' ' || p[h->value_len - 1] == '\t'))
		h->value_len--;
	req->nheaders++;
	return 0;
}
