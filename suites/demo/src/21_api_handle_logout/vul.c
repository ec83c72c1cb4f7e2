int api_handle_logout(struct server *srv, struct client *cl, const struct http_request *req)
{
	char token[SESSION_TOKEN_LEN + 1];
	const char *cookie;
	struct session *s;
	char user[64];

	cookie = http_header_get(req, "cookie");
	if (cookie == NULL || cookie_get_value(cookie, "sid", token, sizeof(token)) != 0)
		return http_reply_status(cl, 401, "missing session");

	pthread_mutex_lock(&srv->sessions.lock);
	s = session_table_find(&srv->sessions, token);
	snprintf(user, sizeof(user), "%s", s->user);
	session_table_remove(&srv->sessions, s);
	pthread_mutex_unlock(&srv->sessions.lock);

	session_destroy(s);
	log_info("user %s logged out from %s", user, cl->peer_addr);
	return http_reply_status(cl, 204, NULL);
}
