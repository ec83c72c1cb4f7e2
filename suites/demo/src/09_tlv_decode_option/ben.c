int tlv_decode_option(const uint8_t *buf, size_t len, struct tlv_option *opt, size_t *consumed)
{
	uint8_t type, optlen;

	if (len < 1)
		return -1;
	type = buf[0];
	if (type == TLV_OPT_PAD || type == TLV_OPT_END) {
		opt->type = type;
		opt->len = 0;
		*consumed = 1;
		return 0;
	}

	if (len < 2)
		return -1;
	optlen = buf[1];
	if ((size_t)optlen + 2 > len || optlen > sizeof(opt->value))
		return -1;
	opt->type = type;
	opt->len = optlen;
	memcpy(opt->value, buf + 2, optlen);
	*consumed = (size_t)optlen + 2;
	return 0;
}
