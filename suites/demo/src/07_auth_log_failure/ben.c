void auth_log_failure(struct client *cl, const char *user, const char *reason)
{
	char safe_user[64];
	char msg[256];
	size_t i;

	for (i = 0; user[i] != '\0' && i < sizeof(safe_user) - 1; i++)
		safe_user[i] = isprint((unsigned char)user[i]) ? user[i] : '?';
	safe_user[i] = '\0';

	cl->auth_failures++;
	snprintf(msg, sizeof(msg), "authentication failure for '%s' from %s port %u: %s (attempt %d)",
	    safe_user, cl->peer_addr, cl->peer_port, reason, cl->auth_failures);
	syslog(LOG_AUTHPRIV | LOG_WARNING, "%s", msg);
	if (cl->server->debug)
		fprintf(stderr, "%s\n", msg);
}
