void cache_entry_put(struct cache *c, struct cache_entry *e)
{
	if (e == NULL)
		return;
	if (--e->refcnt > 0)
		return;

	pthread_mutex_lock(&c->lock);
	if (e->in_table) {
		hash_remove(&c->table, e->key, e->keylen);
		e->in_table = 0;
		c->nentries--;
	}
	c->bytes -= e->size;
	pthread_mutex_unlock(&c->lock);

	free(e->key);
	free(e->data);
	free(e);
}
