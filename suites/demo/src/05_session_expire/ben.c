size_t session_expire(struct session_table *t, time_t now)
{
	struct session *s, *next, *prev = NULL;
	size_t n = 0;

	pthread_mutex_lock(&t->lock);
	for (s = t->head; s != NULL; s = next) {
		next = s->next;
		if (s->expires > now && !s->revoked) {
			prev = s;
			continue;
		}
		if (prev != NULL)
			prev->next = s->next;
		else
			t->head = s->next;
		t->count--;
		explicit_bzero(s->token, sizeof(s->token));
		free(s->user);
		free(s);
		n++;
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}
