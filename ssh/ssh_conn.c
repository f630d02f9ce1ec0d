/*
 * ssh_conn.c - one connection: creation, the message dispatcher (which
 * layer may see which message when: RFC 4253 §7.1 and §11, strict KEX),
 * DISCONNECT, timers and the caller's entry points.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/platform_util.h>

#include "ssh_internal.h"

#define PKT_SCRATCH (SSH_PAYLOAD_MAX + 4 + 1 + 255 + 64)
#define IN_BUF (4 + SSH_PACKET_MAX + 64)

/* Formats a log line for the caller's log callback. */
void ssh_log(struct ssh_conn *c, enum ssh_log_level level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (!c->ops->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->ops->log(c->app, level, msg);
}

/* Creates a connection and sends the version line and KEXINIT. */
struct ssh_conn *ssh_conn_new(struct ssh_server *srv, const struct ssh_conn_ops *ops, void *app,
                              uint64_t now)
{
    static const char version[] = SSH_VERSION_LINE "\r\n";
    struct ssh_conn *c = calloc(1, sizeof(*c));
    size_t n;

    if (!c)
        return NULL;
    c->srv = srv;
    c->ops = ops;
    c->app = app;
    c->now = c->started = c->last_active = c->kex_time = now;
    c->in = malloc(IN_BUF);
    c->pkt = malloc(PKT_SCRATCH);
    c->outq = malloc(65536);
    c->chan_buf = malloc(SSH_CHAN_PACKET + 16);
    if (!c->in || !c->pkt || !c->outq || !c->chan_buf) {
        ssh_conn_free(c);
        return NULL;
    }
    c->out_cap = 65536;
    ssh_cipher_free(&c->rx.c);
    ssh_cipher_free(&c->tx.c);
    n = sizeof(version) - 1;
    memcpy(c->outq, version, n);
    c->out_len = n;
    ssh_flush(c);
    if (ssh_kex_send_kexinit(c) != 0) {
        ssh_conn_free(c);
        return NULL;
    }
    return c;
}

/* Notes the client's address (truncated to SSH_ADDR_MAX - 1 characters). */
void ssh_conn_set_peer(struct ssh_conn *c, const char *addr)
{
    snprintf(c->peer, sizeof(c->peer), "%s", addr ? addr : "");
}

/* Frees everything of the connection. */
void ssh_conn_free(struct ssh_conn *c)
{
    if (!c)
        return;
    ssh_auth_password_drop(c);
    ssh_channel_free_all(c);
    ssh_kex_free(c);
    ssh_cipher_free(&c->rx.c);
    ssh_cipher_free(&c->tx.c);
    if (c->in)
        mbedtls_platform_zeroize(c->in, IN_BUF);
    if (c->pkt)
        mbedtls_platform_zeroize(c->pkt, PKT_SCRATCH);
    free(c->in);
    free(c->pkt);
    free(c->outq);
    free(c->chan_buf);
    free(c->deferred);
    mbedtls_platform_zeroize(c, sizeof(*c));
    free(c);
}

/* Sends DISCONNECT (RFC 4253 §11.1) and ends the connection. */
void ssh_conn_disconnect(struct ssh_conn *c, int reason, const char *text)
{
    uint8_t buf[300];
    struct ssh_wr wr;

    if (c->finished)
        return;
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_DISCONNECT);
    ssh_wr_u32(&wr, (uint32_t)reason);
    ssh_wr_cstring(&wr, text);
    ssh_wr_cstring(&wr, "");
    ssh_send_now(c, buf, wr.len); /* our side is binary since our KEXINIT */
    ssh_log(c, SSH_LOG_INFO, "disconnect %d: %s", reason, text);
    c->disconnect_reason = reason;
    c->finished = true;
}

/* Sends UNIMPLEMENTED for the packet with sequence number seq. */
static void send_unimplemented(struct ssh_conn *c, uint32_t seq)
{
    uint8_t buf[5];

    buf[0] = SSH_MSG_UNIMPLEMENTED;
    ssh_put_u32(buf + 1, seq);
    ssh_send(c, buf, sizeof(buf));
}

/* Handles the peer's DISCONNECT. */
static void got_disconnect(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    struct ssh_rd rd;
    uint32_t reason;

    ssh_rd_init(&rd, p + 1, len - 1);
    reason = ssh_rd_u32(&rd);
    ssh_log(c, SSH_LOG_INFO, "peer disconnected (reason %u)", reason);
    c->disconnect_reason = SSH_DISCONNECT_BY_APPLICATION;
    c->finished = true;
}

/* True for the message numbers of the key exchange. */
static bool is_kex_msg(uint8_t type)
{
    return type >= SSH_MSG_KEXINIT && type <= 49;
}

/* Messages during the first key exchange: strict KEX allows only the exchange itself. */
static void dispatch_initial(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len)
{
    if (is_kex_msg(type))
        ssh_kex_message(c, type, p, len);
    else if (c->strict)
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR,
                            "strict KEX: unexpected message during key exchange");
    else if (type != SSH_MSG_IGNORE && type != SSH_MSG_DEBUG && type != SSH_MSG_UNIMPLEMENTED)
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR,
                            "unexpected message during key exchange");
}

/* Messages after the first key exchange. */
static void dispatch_session(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len)
{
    if (is_kex_msg(type)) {
        ssh_kex_message(c, type, p, len);
        return;
    }
    if (c->kex.got_kexinit && type >= SSH_MSG_SERVICE_REQUEST) {
        /* RFC 4253 §7.1: only transport messages between KEXINIT and NEWKEYS */
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "message during key exchange");
        return;
    }
    switch (type) {
    case SSH_MSG_IGNORE:
    case SSH_MSG_DEBUG:
    case SSH_MSG_UNIMPLEMENTED:
        return;
    case SSH_MSG_SERVICE_REQUEST:
        /* after the login the userauth phase is over: like OpenSSH, UNIMPLEMENTED */
        if (c->authenticated)
            send_unimplemented(c, c->rx.seq - 1);
        else
            ssh_auth_service_request(c, p, len);
        return;
    case SSH_MSG_USERAUTH_REQUEST:
        if (!c->userauth_service)
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "ssh-userauth not requested");
        else if (!c->authenticated) /* RFC 4252 §5.1: ignored after success */
            ssh_auth_request(c, p, len);
        return;
    default:
        break;
    }
    if (type >= SSH_MSG_GLOBAL_REQUEST && type <= 127 && !c->authenticated) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "not authenticated");
        return;
    }
    if (type == SSH_MSG_GLOBAL_REQUEST)
        ssh_channel_global_request(c, p, len);
    else if (type >= SSH_MSG_CHANNEL_OPEN && type <= SSH_MSG_CHANNEL_FAILURE)
        ssh_channel_message(c, type, p, len);
    else
        send_unimplemented(c, c->rx.seq - 1);
}

/* Routes one received payload (len >= 1) to its layer. */
void ssh_dispatch(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    uint8_t type = p[0];

    if (type == SSH_MSG_DISCONNECT) {
        got_disconnect(c, p, len);
        return;
    }
    if (!c->first_kex_done)
        dispatch_initial(c, type, p, len);
    else
        dispatch_session(c, type, p, len);
    ssh_kex_maybe_rekey(c);
}

/* Received bytes from the transport. */
size_t ssh_conn_input(struct ssh_conn *c, const uint8_t *buf, size_t len, uint64_t now)
{
    size_t taken;

    c->now = now;
    if (c->finished)
        return len;
    taken = ssh_packet_input(c, buf, len);
    if (taken)
        c->last_active = now;
    return taken;
}

/* The peer closed the transport. */
void ssh_conn_input_closed(struct ssh_conn *c, uint64_t now)
{
    c->now = now;
    c->in_closed = true;
    if (!c->finished) {
        c->disconnect_reason = SSH_DISCONNECT_CONNECTION_LOST;
        c->finished = true;
    }
}

/* The transport has room: flush, then let blocked sessions write. */
void ssh_conn_output_ready(struct ssh_conn *c, uint64_t now)
{
    c->now = now;
    ssh_flush(c);
    if (!c->finished && c->out_len - c->out_head < SSH_OUTQ_DATA_LIMIT)
        ssh_channel_wake_writers(c);
}

/* Bytes waiting for the transport. */
size_t ssh_conn_pending_output(const struct ssh_conn *c)
{
    return c->out_len - c->out_head;
}

/*
 * Sends the empty SSH_MSG_IGNORE (RFC 4253 §11.2) that ends dbclient's wait, when it is
 * due and still no channel is open.  dbclient (dropbear 2022.83 and its current source)
 * removes its last channel only after writing out the output it still held, then sends
 * its CLOSE; its loop checked "no channel left: exit" before that step and checks next
 * when select() returns: with nothing more from the server it sleeps there for hours.
 * Sent at once, the packet would meet OpenSSH's client already gone (it closes the
 * connection right after its CLOSE) and draw a reset: hence the delay.
 */
static void ssh_conn_wakeup_tick(struct ssh_conn *c)
{
    static const uint8_t ignore[5] = {SSH_MSG_IGNORE, 0, 0, 0, 0};

    if (!c->wakeup_pending || c->now < c->wakeup_at)
        return;
    c->wakeup_pending = false;
    if (!ssh_channel_any_open(c))
        ssh_send(c, ignore, sizeof(ignore));
}

/* Runs the timers due at now. */
/*
 * Whether an exec command of c is still running: the connection is then not
 * idle, however long the command stays silent (an iperf test, a slow ping).
 */
static bool ssh_conn_command_running(const struct ssh_conn *c)
{
    for (unsigned i = 0; i < SSH_MAX_CHANNELS; i++) {
        const struct ssh_session *s = &c->chans[i];

        if (s->used && s->exec && s->started && !s->sent_close)
            return true;
    }
    return false;
}

void ssh_conn_tick(struct ssh_conn *c, uint64_t now)
{
    const struct ssh_server_config *cfg = &c->srv->cfg;

    c->now = now;
    if (c->finished)
        return;
    if (!c->authenticated && now - c->started >= cfg->login_grace_ms) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_BY_APPLICATION, "login grace time exceeded");
        return;
    }
    if (c->active_since_tick) {
        c->last_active = now; /* the app gives no time with its output: the tick does */
        c->active_since_tick = false;
    }
    if (c->authenticated && !ssh_conn_command_running(c) &&
        now - c->last_active >= cfg->idle_timeout_ms) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_BY_APPLICATION, "idle timeout");
        return;
    }
    ssh_auth_tick(c);
    ssh_kex_maybe_rekey(c);
    ssh_conn_wakeup_tick(c);
}

/* Earliest of the running timers. */
uint64_t ssh_conn_next_deadline(const struct ssh_conn *c)
{
    const struct ssh_server_config *cfg = &c->srv->cfg;
    uint64_t d = UINT64_MAX;

    if (c->finished)
        return d;
    if (!c->authenticated)
        d = c->started + cfg->login_grace_ms;
    else if (!ssh_conn_command_running(c))
        d = c->last_active + cfg->idle_timeout_ms;
    if (c->auth_failure_pending && c->auth_stall_until < d)
        d = c->auth_stall_until;
    if (c->wakeup_pending && c->wakeup_at < d)
        d = c->wakeup_at;
    if (c->pw_held && c->pw_turn < d)
        d = c->pw_turn;
    if (c->first_kex_done && !c->kex.in_progress && c->kex_time + cfg->rekey_interval_ms < d)
        d = c->kex_time + cfg->rekey_interval_ms;
    return d;
}

/* True once the connection is over. */
bool ssh_conn_finished(const struct ssh_conn *c)
{
    return c->finished;
}

/* Copies a name into a fixed field. */
static void copy_name(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* Counters and the negotiated algorithms. */
void ssh_conn_get_stats(const struct ssh_conn *c, struct ssh_conn_stats *st)
{
    const struct ssh_algs *a = &c->kex.algs;

    memset(st, 0, sizeof(*st));
    st->kex_done = c->kex_done;
    st->auth_failures = c->auth_failures;
    st->disconnect_reason = c->disconnect_reason;
    st->authenticated = c->authenticated;
    st->user = c->user;
    copy_name(st->kex_alg, sizeof(st->kex_alg), a->kex);
    copy_name(st->host_alg, sizeof(st->host_alg), a->hostkey);
    copy_name(st->cipher_in, sizeof(st->cipher_in), a->cipher_in ? a->cipher_in->name : NULL);
    copy_name(st->mac_in, sizeof(st->mac_in), a->mac_in ? a->mac_in->name : NULL);
}
