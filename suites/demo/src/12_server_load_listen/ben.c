int server_load_listen(struct server_config *sc, const struct cfg *cfg)
{
	const char *host, *port;
	char *end;
	long p;

	host = cfg_get(cfg, "listen", "address");
	if (host == NULL)
		host = "0.0.0.0";
	if (strlen(host) >= sizeof(sc->listen_addr)) {
		log_error("listen.address: value too long");
		return -1;
	}

	port = cfg_get(cfg, "listen", "port");
	if (port == NULL) {
		log_error("listen.port: missing");
		return -1;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno != 0 || end == port || *end != '\0' || p <= 0 || p > 65535) {
		log_error("listen.port: invalid value '%s'", port);
		return -1;
	}

	strcpy(sc->listen_addr, host);
	sc->listen_port = (uint16_t)p;
	sc->backlog = cfg_get_int(cfg, "listen", "backlog", 128);
	return 0;
}
