int ipv4_parse(const uint8_t *buf, size_t len, struct ipv4_info *info)
{
	size_t ihl;
	uint32_t sum = 0;
	size_t i;

	if (len < 20)
		return PKT_ERR_SHORT;
	if ((buf[0] >> 4) != 4)
		return PKT_ERR_VERSION;
	ihl = (size_t)(buf[0] & 0x0f) * 4;
	if (ihl < 20 || ihl > len)
		return PKT_ERR_HDRLEN;

	for (i = 0; i < ihl; i += 2)
		sum += ((uint32_t)buf[i] << 8) | buf[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (sum != 0xffff)
		return PKT_ERR_CHECKSUM;

	info->hdr_len = ihl;
	info->total_len = (uint16_t)(((uint16_t)buf[2] << 8) | buf[3]);
	info->ttl = buf[8];
	info->proto = buf[9];
	memcpy(&info->src, buf + 12, 4);
	memcpy(&info->dst, buf + 16, 4);
	if (info->total_len < ihl || info->total_len > len)
		return PKT_ERR_TRUNCATED;
	info->options = ihl > 20 ? buf + 20 : NULL;
	info->options_len = ihl - 20;
	return 0;
}
