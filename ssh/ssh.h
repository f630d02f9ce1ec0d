/*
 * ssh.h - portzero's SSH-2 server library: the public API.
 *
 * Transport-agnostic and event-driven: no sockets, no threads, no clock of
 * its own.  The caller (portzerod's agent loop over lwIP TCP, or the test
 * harness over a Linux socket) feeds received bytes with ssh_conn_input(),
 * takes sent bytes through the write callback, says when the transport can
 * take more with ssh_conn_output_ready(), and calls ssh_conn_tick() at
 * ssh_conn_next_deadline().  Times are milliseconds of a monotonic clock
 * chosen by the caller.  All calls for one server and its connections come
 * from one thread.
 */
#ifndef PZ_SSH_H
#define PZ_SSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two users a switch CLI has. */
enum ssh_user_id { SSH_USER_ADMIN = 0, SSH_USER_MONITOR = 1, SSH_USER_COUNT = 2 };

/* One user's credentials: an authorized_keys path and a crypt(3) hash (NULL or "": that
 * method is off for the user). */
struct ssh_user_config {
    const char *name;
    const char *authorized_keys;
    const char *password_hash;
};

/* Server-wide settings; zero values take the defaults in brackets. */
struct ssh_server_config {
    const char *state_dir; /* host keys live here (created if missing) */
    struct ssh_user_config users[SSH_USER_COUNT];
    uint32_t login_grace_ms;     /* [120000] from connect to authenticated */
    uint32_t max_auth_tries;     /* [6] failed attempts per connection */
    uint32_t auth_fail_delay_ms; /* [1000] before a failure is answered */
    /* Passwords are hashed by pw_workers threads (so many hashes at once); at most
     * pw_queue attempts wait for one, a further attempt is refused (USERAUTH_FAILURE
     * after the failure delay, counted against max_auth_tries). */
    uint32_t pw_workers; /* [1] */
    uint32_t pw_queue;   /* [8] */
    /* Per source address (ssh_conn_set_peer): after backoff_after failed passwords
     * (UINT32_MAX: never), each further attempt waits its turn: consecutive verdicts at
     * least backoff_base_ms apart, doubling with each failure up to backoff_max_ms; an
     * address with no failure for backoff_forget_ms, or a login from it, starts afresh.
     * backoff_table addresses are remembered (least recently used forgotten first). */
    uint32_t backoff_after;     /* [5] */
    uint32_t backoff_base_ms;   /* [1000] */
    uint32_t backoff_max_ms;    /* [60000] */
    uint32_t backoff_forget_ms; /* [600000] */
    uint32_t backoff_table;     /* [256] */
    uint32_t
        idle_timeout_ms;  /* [900000] after login: no input, no output, no exec command running */
    uint64_t rekey_bytes; /* [1 GiB] re-key after this many bytes one way */
    uint32_t rekey_interval_ms; /* [3600000] re-key after this long */
    /* false: only what ssh-audit judges clean is offered (curve25519, ssh-ed25519, the
     * AEADs and AES-CTR with -etm MACs); true adds ecdh-sha2-nistp256, the
     * ecdsa-sha2-nistp256 host key and the encrypt-and-MAC hmac-sha2-256/512 for
     * clients that need them (FIPS-minded or RFC 6668-only clients). */
    bool compat_algorithms;
    const char *const *kex_algs;  /* NULL: all offered, else a NULL-terminated subset */
    const char *const *host_algs; /* likewise for host key algorithms */
    const char *const *ciphers;
    const char *const *macs;
};

/* Log levels passed to the log callback. */
enum ssh_log_level { SSH_LOG_ERROR, SSH_LOG_WARN, SSH_LOG_INFO, SSH_LOG_DEBUG };

/* What a session channel was started as. */
enum ssh_session_kind { SSH_SESSION_SHELL, SSH_SESSION_EXEC };

/* SSH_MSG_DISCONNECT reason codes (RFC 4250 §4.2.2). */
enum ssh_disconnect_reason {
    SSH_DISCONNECT_HOST_NOT_ALLOWED_TO_CONNECT = 1,
    SSH_DISCONNECT_PROTOCOL_ERROR = 2,
    SSH_DISCONNECT_KEY_EXCHANGE_FAILED = 3,
    SSH_DISCONNECT_MAC_ERROR = 5,
    SSH_DISCONNECT_SERVICE_NOT_AVAILABLE = 7,
    SSH_DISCONNECT_PROTOCOL_VERSION_NOT_SUPPORTED = 8,
    SSH_DISCONNECT_CONNECTION_LOST = 10,
    SSH_DISCONNECT_BY_APPLICATION = 11,
    SSH_DISCONNECT_TOO_MANY_CONNECTIONS = 12,
    SSH_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE = 14,
};

struct ssh_server;
struct ssh_conn;
struct ssh_session;

/* The caller's side of one connection.  Every callback gets the app pointer given to
 * ssh_conn_new().  Only write is required. */
struct ssh_conn_ops {
    /* Send bytes; returns how many the transport took (0..len).  The rest stays queued in
     * the library until ssh_conn_output_ready(). */
    size_t (*write)(void *app, const uint8_t *buf, size_t len);
    void (*log)(void *app, enum ssh_log_level level, const char *msg);
    /* A user logged in; return false to refuse (e.g. session limit reached): the library
     * then disconnects with TOO_MANY_CONNECTIONS. */
    bool (*authenticated)(void *app, enum ssh_user_id user);
    /* A session channel asks for a shell or to run command; returns 0 to accept. */
    int (*session_start)(void *app, struct ssh_session *s, enum ssh_session_kind kind,
                         const char *command);
    /* Bytes the client sent to the session; returns how many the app is done with now.
     * It must keep the rest itself and report them later with ssh_session_input_done(). */
    size_t (*session_input)(void *app, struct ssh_session *s, const uint8_t *data, size_t len);
    void (*session_eof)(void *app, struct ssh_session *s);
    /* The channel window or the transport has room again after a short write. */
    void (*session_writable)(void *app, struct ssh_session *s);
    void (*session_resize)(void *app, struct ssh_session *s, unsigned cols, unsigned rows);
    /* The session is gone; the pointer is invalid after this returns. */
    void (*session_closed)(void *app, struct ssh_session *s);
};

/* Creates a server: loads the host keys from config->state_dir, generating and storing
 * (mode 0600) the missing ones.  Returns NULL with a message in err on failure.  The
 * config's strings must outlive the server. */
struct ssh_server *ssh_server_new(const struct ssh_server_config *config, char *err, size_t errlen);
void ssh_server_free(struct ssh_server *srv);
/*
 * Password verdicts: hashes run on the server's worker threads; when this descriptor
 * (-1: no user has a password hash) polls readable, call ssh_server_verdicts(), which
 * answers the connections whose verdict came (they may then take held input and have
 * output: serve them, as after ssh_conn_input).
 */
int ssh_server_verdict_fd(const struct ssh_server *srv);
void ssh_server_verdicts(struct ssh_server *srv, uint64_t now);
/* SHA256 fingerprint ("SHA256:base64") of the host key of algorithm alg; 0 on success. */
int ssh_server_fingerprint(struct ssh_server *srv, const char *alg, char *out, size_t outlen);

/* A new connection: sends the version line and KEXINIT at once.  NULL on no memory. */
struct ssh_conn *ssh_conn_new(struct ssh_server *srv, const struct ssh_conn_ops *ops, void *app,
                              uint64_t now);
/* The client's address as text (IPv4 or IPv6), the key of the password back-off; a
 * connection without one shares the back-off of "" with the others without one. */
void ssh_conn_set_peer(struct ssh_conn *conn, const char *addr);
/* Frees the connection and its sessions (session_closed is called for each). */
void ssh_conn_free(struct ssh_conn *conn);
/* Received bytes; returns how many were taken.  Fewer than len means the library is
 * busy (output backlog, auth delay, a password verdict awaited): offer the rest again
 * later. */
size_t ssh_conn_input(struct ssh_conn *conn, const uint8_t *buf, size_t len, uint64_t now);
/* The peer closed its side of the transport. */
void ssh_conn_input_closed(struct ssh_conn *conn, uint64_t now);
/* The transport can take bytes again: flush the queue, wake blocked sessions. */
void ssh_conn_output_ready(struct ssh_conn *conn, uint64_t now);
/* Bytes queued for the transport that write() did not take yet. */
size_t ssh_conn_pending_output(const struct ssh_conn *conn);
/* Runs timers (grace, idle, auth delay, re-key) due at now. */
void ssh_conn_tick(struct ssh_conn *conn, uint64_t now);
/* When ssh_conn_tick() must run next (UINT64_MAX: no timer). */
uint64_t ssh_conn_next_deadline(const struct ssh_conn *conn);
/* True while a password attempt of the connection waits for its address's back-off
 * turn (an address that failed backoff_after times): the first to drop when a caller
 * must make room for a newcomer. */
bool ssh_conn_waiting_turn(const struct ssh_conn *conn);
/* True once the connection is over: send what is pending, then close and free it. */
bool ssh_conn_finished(const struct ssh_conn *conn);
/* Counters for tests and logs. */
struct ssh_conn_stats {
    unsigned kex_done; /* completed key exchanges */
    unsigned auth_failures;
    int disconnect_reason; /* 0 while open */
    bool authenticated;
    enum ssh_user_id user;
    char kex_alg[40], host_alg[40], cipher_in[40], mac_in[40];
};
void ssh_conn_get_stats(const struct ssh_conn *conn, struct ssh_conn_stats *st);
/* Sends DISCONNECT with reason and text and finishes the connection. */
void ssh_conn_disconnect(struct ssh_conn *conn, int reason, const char *text);

/* Session (channel) side, for the app. */
/* Queues up to len bytes of output (stderr: extended data); returns how many were taken,
 * limited by the channel window and the transport backlog.  A short count means
 * session_writable will follow. */
size_t ssh_session_write(struct ssh_session *s, const uint8_t *buf, size_t len);
size_t ssh_session_write_stderr(struct ssh_session *s, const uint8_t *buf, size_t len);
/* The app is done with n more input bytes it kept: they go back into the window. */
void ssh_session_input_done(struct ssh_session *s, size_t n);
/* Sends exit-status, EOF and CLOSE. */
void ssh_session_exit(struct ssh_session *s, uint32_t status);
enum ssh_user_id ssh_session_user(const struct ssh_session *s);
/* Terminal of the session (from pty-req / window-change); false without a pty. */
bool ssh_session_pty(const struct ssh_session *s, unsigned *cols, unsigned *rows);
void ssh_session_set_data(struct ssh_session *s, void *data);
void *ssh_session_data(const struct ssh_session *s);

#endif
