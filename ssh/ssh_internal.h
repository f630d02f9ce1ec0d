/*
 * ssh_internal.h - what the library's modules share: the server and
 * connection structures, message numbers and the calls between the
 * transport (ssh_packet.c, ssh_kex.c), authentication (ssh_auth.c) and
 * connection (ssh_channel.c) layers.  Not for callers of the library.
 */
#ifndef PZ_SSH_INTERNAL_H
#define PZ_SSH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>

#include "ssh.h"
#include "ssh_backoff.h"
#include "ssh_cipher.h"
#include "ssh_hostkey.h"
#include "ssh_wire.h"

/* Message numbers (RFC 4250 §4.1, RFC 8308, RFC 5656). */
enum {
    SSH_MSG_DISCONNECT = 1,
    SSH_MSG_IGNORE = 2,
    SSH_MSG_UNIMPLEMENTED = 3,
    SSH_MSG_DEBUG = 4,
    SSH_MSG_SERVICE_REQUEST = 5,
    SSH_MSG_SERVICE_ACCEPT = 6,
    SSH_MSG_EXT_INFO = 7,
    SSH_MSG_KEXINIT = 20,
    SSH_MSG_NEWKEYS = 21,
    SSH_MSG_KEX_ECDH_INIT = 30,
    SSH_MSG_KEX_ECDH_REPLY = 31,
    SSH_MSG_USERAUTH_REQUEST = 50,
    SSH_MSG_USERAUTH_FAILURE = 51,
    SSH_MSG_USERAUTH_SUCCESS = 52,
    SSH_MSG_USERAUTH_BANNER = 53,
    SSH_MSG_USERAUTH_PK_OK = 60,
    SSH_MSG_GLOBAL_REQUEST = 80,
    SSH_MSG_REQUEST_SUCCESS = 81,
    SSH_MSG_REQUEST_FAILURE = 82,
    SSH_MSG_CHANNEL_OPEN = 90,
    SSH_MSG_CHANNEL_OPEN_CONFIRMATION = 91,
    SSH_MSG_CHANNEL_OPEN_FAILURE = 92,
    SSH_MSG_CHANNEL_WINDOW_ADJUST = 93,
    SSH_MSG_CHANNEL_DATA = 94,
    SSH_MSG_CHANNEL_EXTENDED_DATA = 95,
    SSH_MSG_CHANNEL_EOF = 96,
    SSH_MSG_CHANNEL_CLOSE = 97,
    SSH_MSG_CHANNEL_REQUEST = 98,
    SSH_MSG_CHANNEL_SUCCESS = 99,
    SSH_MSG_CHANNEL_FAILURE = 100,
};

/* Limits. */
#define SSH_VERSION_LINE "SSH-2.0-portzero_0.1"
#define SSH_PACKET_MAX 65536u       /* largest packet_length accepted (RFC: >= 35000) */
#define SSH_PAYLOAD_MAX 40000u      /* largest payload sent */
#define SSH_CHAN_PACKET 32768u      /* our channels' maximum packet */
#define SSH_CHAN_WINDOW (1u << 20)  /* our channels' window */
#define SSH_MAX_CHANNELS 4          /* session channels per connection */
#define SSH_OUTQ_DATA_LIMIT 131072u /* no more channel data above this backlog */
#define SSH_OUTQ_STALL 1048576u     /* no more input processed above this backlog */
#define SSH_KEXINIT_MAX 8192u
/*
 * After the client's CLOSE answered ours on the last channel, an SSH_MSG_IGNORE follows
 * this late unless the client closed the connection (OpenSSH does at once) or opened a
 * channel: dbclient waits in select() for the server's next packet then (ssh_channel.c).
 */
#define SSH_CLOSE_WAKEUP_MS 200u

struct ssh_server {
    struct ssh_server_config cfg;
    mbedtls_entropy_context entropy;
    mbedtls_ctr_drbg_context drbg;
    struct ssh_hostkey hostkeys[2];
    unsigned n_hostkeys;
    const char *kex_algs[8], *host_algs[4], *ciphers[8], *macs[8];
    struct ssh_pwcheck *pwcheck; /* the password verifier (when a user has a hash) */
    struct ssh_backoff *backoff; /* failed passwords per source address */
};

/* One direction of the transport. */
struct ssh_dir {
    struct ssh_cipher c;
    uint32_t seq;
    uint64_t bytes; /* since the last NEWKEYS */
};

/* Algorithms chosen by one KEXINIT exchange. */
struct ssh_algs {
    const char *kex, *hostkey;
    const struct ssh_cipher_alg *cipher_in, *cipher_out;
    const struct ssh_mac_alg *mac_in, *mac_out;
};

struct ssh_kex {
    bool sent_kexinit, got_kexinit, sent_newkeys;
    bool in_progress; /* from a KEXINIT either way until both NEWKEYS */
    bool ignore_guess;
    uint8_t *my_kexinit, *peer_kexinit;
    size_t my_len, peer_len;
    struct ssh_algs algs;
    /* input keys derived, waiting for the peer's NEWKEYS */
    struct {
        uint8_t key[64], iv[32];
    } next_in;
    uint8_t next_mac[64];
};

struct ssh_session {
    struct ssh_conn *conn;
    bool used;
    uint32_t local_id, remote_id;
    uint32_t remote_window, remote_max;
    uint32_t local_window;  /* what the peer may still send */
    uint32_t local_unacked; /* bytes received, not yet given back as window */
    uint32_t app_held;      /* bytes the app keeps */
    bool started, sent_eof, sent_close, got_eof, got_close, want_writable;
    bool pty;
    bool exec; /* an exec command: its connection is not idle until it exits */
    unsigned cols, rows;
    void *data;
};

struct ssh_conn {
    struct ssh_server *srv;
    const struct ssh_conn_ops *ops;
    void *app;
    /* version exchange */
    bool got_version;
    char peer_version[256];
    /* input assembly */
    uint8_t *in;
    size_t in_len;
    uint32_t in_plen; /* packet_length of the packet being assembled, 0 if unknown */
    struct ssh_dir rx, tx;
    uint32_t rx_packets; /* packets received (not reset by strict KEX): KEXINIT must be first */
    /* output */
    uint8_t *outq;
    size_t out_head, out_len, out_cap;
    uint8_t *deferred; /* payloads held back during a key exchange: u32 len || payload */
    size_t def_len, def_cap;
    uint8_t *pkt;      /* scratch: one packet being built */
    uint8_t *chan_buf; /* scratch: one channel data payload */
    /* kex */
    struct ssh_kex kex;
    bool strict, ext_info_c, first_kex_done;
    unsigned kex_done;
    uint8_t session_id[32];
    uint64_t kex_time;
    /* auth */
    bool userauth_service, authenticated;
    enum ssh_user_id user;
    unsigned auth_failures;
    uint64_t auth_stall_until; /* a failure answer waits until then */
    bool auth_failure_pending;
    char peer[SSH_ADDR_MAX]; /* the client's address (the back-off's key) */
    /* A password attempt in progress (input held until its verdict): waiting for its
     * back-off turn at pw_turn (the password kept in pw_held) or for the verifier. */
    bool pw_pending;
    char *pw_held;
    size_t pw_held_len;
    uint64_t pw_turn;
    int pw_user; /* the configured user asked for, or -1 */
    const char *pw_setting, *pw_hash;
    /* timers */
    uint64_t now, started;
    uint64_t last_active;   /* input, session output, or the end of a command */
    bool active_since_tick; /* output or a command's end since the last tick: active now */
    uint64_t wakeup_at;     /* the IGNORE that ends dbclient's wait goes out then ... */
    bool wakeup_pending;    /* ... unless the client closed or opened a channel first */
    bool in_closed;
    /* state */
    bool finished;
    int disconnect_reason;
    struct ssh_session chans[SSH_MAX_CHANNELS];
};

/* ssh_conn.c */
void ssh_log(struct ssh_conn *c, enum ssh_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Random bytes from the server's DRBG (mbedtls f_rng signature). */
int ssh_random(void *srv, unsigned char *out, size_t len);

/* ssh_packet.c */
/* Sends one payload (held back while a key exchange is in progress, unless it is a
 * transport message); 0 on success. */
int ssh_send(struct ssh_conn *c, const uint8_t *payload, size_t len);
/* Sends one payload now, whatever the key exchange state. */
int ssh_send_now(struct ssh_conn *c, const uint8_t *payload, size_t len);
/* Sends the deferred payloads after our NEWKEYS. */
void ssh_send_deferred(struct ssh_conn *c);
/* Writes as much of the queue as the transport takes. */
void ssh_flush(struct ssh_conn *c);
/* Takes input bytes into packets and dispatches them; returns bytes taken. */
size_t ssh_packet_input(struct ssh_conn *c, const uint8_t *buf, size_t len);

/* ssh_kex.c */
int ssh_kex_send_kexinit(struct ssh_conn *c);
void ssh_kex_message(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len);
void ssh_kex_maybe_rekey(struct ssh_conn *c);
void ssh_kex_free(struct ssh_conn *c);

/* ssh_auth.c */
void ssh_auth_service_request(struct ssh_conn *c, const uint8_t *p, size_t len);
void ssh_auth_request(struct ssh_conn *c, const uint8_t *p, size_t len);
void ssh_auth_tick(struct ssh_conn *c);
/* A failed attempt (slow: answered after auth_fail_delay_ms); a successful login. */
void ssh_auth_failed(struct ssh_conn *c, bool slow);
void ssh_auth_success(struct ssh_conn *c, enum ssh_user_id user);
/* True if some user has a password hash. */
bool ssh_auth_any_password(const struct ssh_conn *c);

/* ssh_auth_password.c */
/* "password": bool FALSE, string password; verified off the caller's thread. */
void ssh_auth_password(struct ssh_conn *c, int user, struct ssh_rd *rd);
/* Hands an attempt whose back-off turn came to the verifier. */
void ssh_auth_password_tick(struct ssh_conn *c);
/* The connection goes away: its attempt is dropped, the password wiped. */
void ssh_auth_password_drop(struct ssh_conn *c);
/* Starts the verifier and the back-off table; 0 or -1 with err. */
int ssh_auth_password_start(struct ssh_server *s, char *err, size_t errlen);
void ssh_auth_password_stop(struct ssh_server *s);

/* ssh_channel.c */
void ssh_channel_message(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len);
void ssh_channel_global_request(struct ssh_conn *c, const uint8_t *p, size_t len);
void ssh_channel_wake_writers(struct ssh_conn *c);
/* True if some channel of c is open. */
bool ssh_channel_any_open(const struct ssh_conn *c);
void ssh_channel_free_all(struct ssh_conn *c);

/* ssh_conn.c */
void ssh_dispatch(struct ssh_conn *c, const uint8_t *p, size_t len);

#endif
