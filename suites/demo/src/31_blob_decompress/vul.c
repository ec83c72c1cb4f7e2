int blob_decompress(const uint8_t *in, size_t inlen, uint8_t **out, size_t *outlen)
{
	uint8_t *buf, *nbuf;
	size_t cap, len = 0;
	int rc;

	if (inlen == 0 || inlen > BLOB_MAX_COMPRESSED)
		return -1;
	cap = inlen * 4 + 64;
	buf = malloc(cap);
	if (buf == NULL)
		return -1;

	for (;;) {
		rc = lz_decode(in, inlen, buf, cap, &len);
		if (rc == LZ_OK)
			break;
		if (rc != LZ_ERR_NOSPACE || cap >= BLOB_MAX_SIZE)
			goto err;
		cap *= 2;
		nbuf = realloc(buf, cap);
		if (nbuf == NULL) {
			free(buf);
			goto err;
		}
		buf = nbuf;
	}
	*out = buf;
	*outlen = len;
	return 0;

err:
	free(buf);
	return -1;
}
