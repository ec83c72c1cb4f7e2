int rpc_handle_call(struct rpc_server *srv, struct client *cl, const uint8_t *buf, size_t len)
{
	const struct rpc_method *m;
	struct rpc_call *call;
	char *name;
	int rc;

	call = rpc_call_decode(buf, len);
	if (call == NULL)
		return rpc_send_error(cl, 0, RPC_ERR_PARSE, "malformed request");

	name = strndup(call->method, call->method_len);
	if (name == NULL) {
		rpc_call_free(call);
		return -1;
	}
	m = rpc_lookup(srv, name);
	if (m == NULL || ((m->flags & RPC_ADMIN_ONLY) && !cl->is_admin)) {
		log_debug("client %s: no such method '%s'", cl->peer_addr, name);
		rc = rpc_send_error(cl, call->id, RPC_ERR_NO_METHOD, "method not found");
		free(name);
		rpc_call_free(call);
		return rc;
	}

	srv->stats.calls++;
	rc = m->handler(srv, cl, call);
	free(name);
	rpc_call_free(call);
	return rc;
}
