void cache_entry_put(struct cache *c, struct cache_entry *e)
{
	if (e == NULL)
		return;

	pthread_mutex_lock(&c->lock);
	if (--e->refcnt > 0) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
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
