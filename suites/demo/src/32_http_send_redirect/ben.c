int http_send_redirect(struct http_conn *hc, int code, const char *host, const char *path)
{
	char hdr[512];
	int n;

	if (code != 301 && code != 302 && code != 307 && code != 308)
		code = 302;
	n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %d %s\r\n"
	    "Location: https://%s%s\r\n"
	    "Content-Length: 0\r\n"
	    "Connection: %s\r\n\r\n",
	    code, http_reason(code), host, path, hc->keep_alive ? "keep-alive" : "close");
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return http_send_error(hc, 414);
	hc->status = code;
	return http_write_all(hc, hdr, (size_t)n);
}
