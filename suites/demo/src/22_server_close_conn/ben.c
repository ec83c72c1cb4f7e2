void server_close_conn(struct server *srv, struct conn *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		srv->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	srv->nconns--;
	log_debug("conn %d closed (%zu bytes in, %zu out), %d open",
	    c->fd, c->bytes_in, c->bytes_out, srv->nconns);

	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	if (c->timer_id >= 0)
		timer_cancel(srv->timers, c->timer_id);
	free(c->rbuf);
	free(c->wbuf);
	free(c);
}
