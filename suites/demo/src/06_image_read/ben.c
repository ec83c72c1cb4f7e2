struct image *image_read(FILE *fp)
{
	struct rimg_header hdr;
	struct image *img;
	uint32_t w, h, stride, y;

	if (fread(&hdr, sizeof(hdr), 1, fp) != 1)
		return NULL;
	if (memcmp(hdr.magic, "RIMG", 4) != 0 || le16toh(hdr.version) != 1)
		return NULL;
	w = le32toh(hdr.width);
	h = le32toh(hdr.height);
	if (w == 0 || h == 0 || w > RIMG_MAX_DIM || h > RIMG_MAX_DIM)
		return NULL;

	img = calloc(1, sizeof(*img));
	if (img == NULL)
		return NULL;
	stride = w * 4;
	img->pixels = malloc(stride * h);
	if (img->pixels == NULL) {
		free(img);
		return NULL;
	}
	img->width = w;
	img->height = h;
	img->stride = stride;

	for (y = 0; y < h; y++) {
		if (fread(img->pixels + (size_t)y * stride, 1, stride, fp) != stride) {
			image_free(img);
			return NULL;
		}
	}
	return img;
}
