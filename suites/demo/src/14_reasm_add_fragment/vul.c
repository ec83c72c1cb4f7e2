int reasm_add_fragment(struct reasm_ctx *r, const struct frag_hdr *fh, const uint8_t *data, size_t datalen)
{
	uint32_t off = ntohl(fh->offset);
	uint32_t len = ntohs(fh->length);

	if (len == 0 || len > datalen)
		return REASM_ERR_SHORT;
	if (off + len > sizeof(r->buf))
		return REASM_ERR_RANGE;
	if (r->total != 0 && off + len > r->total)
		return REASM_ERR_RANGE;

	memcpy(r->buf + off, data, len);
	r->bytes += len;
	if (fh->flags & FRAG_LAST)
		r->total = off + len;
	r->last_seen = monotonic_ms();

	if (r->total != 0 && r->bytes >= r->total)
		return REASM_COMPLETE;
	return REASM_MORE;
}
