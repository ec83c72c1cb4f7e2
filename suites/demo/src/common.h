/*
 * Declarations shared by the demo suite's functions, so that every vul.c and
 * ben.c compiles on its own:
 *
 *   gcc -fsyntax-only -include common.h -x c NN_name/vul.c
 *
 * The functions reference the helpers below; none is defined here.
 */
#ifndef VULNBENCH_DEMO_COMMON_H
#define VULNBENCH_DEMO_COMMON_H

#define _GNU_SOURCE 1

#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* logging */
void log_error(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_info(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_debug(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* tinyhttpd */
#define HTTP_MAX_HEADERS 64
enum { HTTP_ERR_BAD_REQUEST = -1, HTTP_ERR_TOO_MANY_HEADERS = -2 };
struct http_header {
	char name[64];
	const char *value;
	size_t value_len;
};
struct http_request {
	char method[16];
	char *target;
	struct http_header headers[HTTP_MAX_HEADERS];
	int nheaders;
};
struct http_conn {
	int fd;
	int status;
	int keep_alive;
};
int is_token_char(int c);
int url_decode(const char *in, char *out, size_t outsz);
int http_send_error(struct http_conn *hc, int status);
int http_send_fd(struct http_conn *hc, int fd, off_t size, const char *mime);
int http_write_all(struct http_conn *hc, const void *buf, size_t len);
const char *http_reason(int status);
const char *mime_type_for(const char *path);
const char *http_header_get(const struct http_request *req, const char *name);
int cookie_get_value(const char *cookie, const char *name, char *out, size_t outsz);

/* pktlib / minidns */
enum { PKT_ERR_SHORT = 1, PKT_ERR_VERSION, PKT_ERR_HDRLEN, PKT_ERR_CHECKSUM, PKT_ERR_TRUNCATED };
struct ipv4_info {
	size_t hdr_len;
	uint16_t total_len;
	uint8_t ttl;
	uint8_t proto;
	uint32_t src, dst;
	const uint8_t *options;
	size_t options_len;
};
#define TLV_OPT_PAD 0
#define TLV_OPT_END 255
struct tlv_option {
	uint8_t type;
	uint8_t len;
	uint8_t value[40];
};
#define DNS_MAX_JUMPS 16
#define FRAG_LAST 0x01
struct frag_hdr {
	uint32_t offset;
	uint16_t length;
	uint8_t flags;
	uint8_t reserved;
};
struct reasm_ctx {
	uint8_t buf[65536];
	uint32_t bytes;
	uint32_t total;
	uint64_t last_seen;
};
enum { REASM_MORE = 0, REASM_COMPLETE = 1, REASM_ERR_SHORT = -1, REASM_ERR_RANGE = -2 };
uint64_t monotonic_ms(void);

/* cfgparse */
struct cfg;
int cfg_set_section(struct cfg *cfg, const char *name);
int cfg_set(struct cfg *cfg, const char *key, const char *val, int lineno);
void cfg_error(struct cfg *cfg, int lineno, const char *msg);
const char *cfg_get(const struct cfg *cfg, const char *section, const char *key);
int cfg_get_int(const struct cfg *cfg, const char *section, const char *key, int def);
char *str_trim(char *s);
struct config {
	char *source;
	int err_line;
	char err_msg[128];
};
void config_set_defaults(struct config *cfg);
int config_parse(struct config *cfg, const char *text, size_t len);
int config_validate(struct config *cfg);
void config_free(struct config *cfg);
int read_whole_file(const char *path, char **text, size_t *len);

/* evserve / webadmin */
#define SESSION_TOKEN_LEN 32
struct session {
	struct session *next;
	char *user;
	char token[SESSION_TOKEN_LEN + 1];
	time_t expires;
	int revoked;
};
struct session_table {
	pthread_mutex_t lock;
	struct session *head;
	size_t count;
};
struct conn {
	struct conn *prev, *next;
	int fd;
	int timer_id;
	char *rbuf, *wbuf;
	size_t bytes_in, bytes_out;
};
struct timer_wheel;
struct server {
	int epfd;
	int debug;
	struct conn *conns;
	int nconns;
	struct timer_wheel *timers;
	struct session_table sessions;
	struct {
		unsigned long calls;
	} stats;
};
struct client {
	struct server *server;
	char peer_addr[INET6_ADDRSTRLEN];
	unsigned int peer_port;
	int auth_failures;
	int is_admin;
};
struct server_config {
	char listen_addr[64];
	uint16_t listen_port;
	int backlog;
};
struct session *session_table_find(struct session_table *t, const char *token);
void session_table_remove(struct session_table *t, struct session *s);
void session_destroy(struct session *s);
int http_reply_status(struct client *cl, int status, const char *msg);
void timer_cancel(struct timer_wheel *w, int id);
#define LINEBUF_MAX (1u << 20)
struct linebuf {
	char *data;
	size_t start, len, cap;
};

/* rpcd */
#define RPC_ADMIN_ONLY 0x1
enum { RPC_ERR_PARSE = -32700, RPC_ERR_NO_METHOD = -32601 };
struct rpc_server {
	struct {
		unsigned long calls;
	} stats;
};
struct rpc_call {
	uint32_t id;
	const char *method;
	size_t method_len;
	const uint8_t *params;
	size_t params_len;
};
struct rpc_method {
	const char *name;
	unsigned int flags;
	int (*handler)(struct rpc_server *srv, struct client *cl, const struct rpc_call *call);
};
struct rpc_call *rpc_call_decode(const uint8_t *buf, size_t len);
void rpc_call_free(struct rpc_call *call);
const struct rpc_method *rpc_lookup(struct rpc_server *srv, const char *name);
int rpc_send_error(struct client *cl, uint32_t id, int code, const char *msg);

/* imgload */
#define RIMG_MAX_DIM 16384u
struct rimg_header {
	char magic[4];
	uint16_t version;
	uint16_t flags;
	uint32_t width;
	uint32_t height;
};
struct image {
	uint32_t width, height, stride;
	uint8_t *pixels;
};
void image_free(struct image *img);

/* libcoll / strutil */
struct ptrvec {
	void **items;
	size_t len, cap;
};
#define PTRVEC_MAX_ITEMS (SIZE_MAX / sizeof(void *) / 2)

/* routerd / snapkeep */
#define HOSTNAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:"
#define IFNAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
#define BACKUP_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
struct backup_cfg {
	const char *backup_dir;
	const char *data_dir;
};

/* liteftpd */
struct ftp_session {
	int ctrl_fd;
	int logged_in;
	char cwd[PATH_MAX];
};
int ftp_reply(struct ftp_session *s, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
int ftp_resolve_path(struct ftp_session *s, const char *arg, char *out, size_t outsz);
const char *ftp_display_path(struct ftp_session *s, const char *path);

/* webadmin uploads */
enum { UPLOAD_ERR_NAME = -1, UPLOAD_ERR_TOO_BIG = -2, UPLOAD_ERR_EXISTS = -3, UPLOAD_ERR_IO = -4 };
struct upload_cfg {
	const char *dir;
	size_t max_size;
};

/* tinylog */
#define LOG_LVL_ERROR 3
struct logger {
	FILE *fp;
	int max_level;
	pthread_mutex_t lock;
};
const char *log_level_name(int level);

/* blobstore */
#define BLOB_MAX_COMPRESSED (16u << 20)
#define BLOB_MAX_SIZE (256u << 20)
enum { LZ_OK = 0, LZ_ERR_NOSPACE = 1, LZ_ERR_CORRUPT = 2 };
int lz_decode(const uint8_t *in, size_t inlen, uint8_t *out, size_t outcap, size_t *outlen);

/* kvcache */
struct hash_table;
struct cache_entry {
	char *key;
	size_t keylen;
	void *data;
	size_t size;
	int refcnt;
	int in_table;
};
struct cache {
	pthread_mutex_t lock;
	struct hash_table *table;
	size_t nentries;
	size_t bytes;
};
void hash_remove(struct hash_table **t, const char *key, size_t keylen);

#endif
