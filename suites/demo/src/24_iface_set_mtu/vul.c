int iface_set_mtu(const char *ifname, unsigned int mtu)
{
	char cmd[128];
	int rc;

	if (ifname == NULL || *ifname == '\0' || strlen(ifname) >= IFNAMSIZ)
		return -1;
	if (mtu < 576 || mtu > 9216) {
		log_error("%s: mtu %u out of range", ifname, mtu);
		return -1;
	}

	snprintf(cmd, sizeof(cmd), "ip link set dev %s mtu %u", ifname, mtu);
	rc = system(cmd);
	if (rc != 0) {
		log_error("%s: setting mtu %u failed (status %d)", ifname, mtu, rc);
		return -1;
	}
	log_info("%s: mtu set to %u", ifname, mtu);
	return 0;
}
