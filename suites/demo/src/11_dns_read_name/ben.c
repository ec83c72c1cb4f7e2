int dns_read_name(const uint8_t *pkt, size_t pktlen, size_t off, char *out, size_t outsz)
{
	size_t o = 0;
	int jumps = 0;
	uint8_t lab;

	if (outsz == 0)
		return -1;
	for (;;) {
		if (off >= pktlen)
			return -1;
		lab = pkt[off];
		if (lab == 0)
			break;
		if ((lab & 0xc0) == 0xc0) {
			if (off + 1 >= pktlen || ++jumps > DNS_MAX_JUMPS)
				return -1;
			off = ((size_t)(lab & 0x3f) << 8) | pkt[off + 1];
			continue;
		}
		if (lab > 63 || off + 1 + lab > pktlen)
			return -1;
		if (o + lab + 2 > outsz)
			return -1;
		if (o > 0)
			out[o++] = '.';
		memcpy(out + o, pkt + off + 1, lab);
		o += lab;
		off += 1 + (size_t)lab;
	}
	out[o] = '\0';
	return (int)o;
}
