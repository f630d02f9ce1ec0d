/*
 * ssh_channel.c - the ssh-connection service (RFC 4254): session channels
 * with pty-req, window-change, shell and exec; data both ways under the
 * channel windows; EOF and CLOSE; global requests answered with failure.
 * Other channel types (forwarding, X11) are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "ssh_internal.h"

/* CHANNEL_OPEN_FAILURE reason codes (RFC 4254 §5.1). */
enum {
    OPEN_ADMINISTRATIVELY_PROHIBITED = 1,
    OPEN_UNKNOWN_CHANNEL_TYPE = 3,
    OPEN_RESOURCE_SHORTAGE = 4,
};

/* Sends a message of only a type and the peer's channel number. */
static void send_simple(struct ssh_session *s, uint8_t type)
{
    uint8_t buf[5];

    buf[0] = type;
    ssh_put_u32(buf + 1, s->remote_id);
    ssh_send(s->conn, buf, sizeof(buf));
}

/* Sends CHANNEL_OPEN_FAILURE to the peer's channel id. */
static void send_open_failure(struct ssh_conn *c, uint32_t id, uint32_t reason, const char *text)
{
    uint8_t buf[128];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_OPEN_FAILURE);
    ssh_wr_u32(&wr, id);
    ssh_wr_u32(&wr, reason);
    ssh_wr_cstring(&wr, text);
    ssh_wr_cstring(&wr, "");
    ssh_send(c, buf, wr.len);
}

/* Handles CHANNEL_OPEN: a session gets a free slot; everything else is refused. */
static void channel_open(struct ssh_conn *c, struct ssh_rd *rd)
{
    char type[64];
    uint32_t id, window, maxpkt, i;
    struct ssh_session *s = NULL;
    uint8_t buf[17];

    ssh_rd_cstring(rd, type, sizeof(type));
    id = ssh_rd_u32(rd);
    window = ssh_rd_u32(rd);
    maxpkt = ssh_rd_u32(rd);
    if (rd->err) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad CHANNEL_OPEN");
        return;
    }
    if (strcmp(type, "session") != 0) {
        send_open_failure(c, id,
                          strstr(type, "tcpip") || strstr(type, "x11") || strstr(type, "@openssh")
                              ? OPEN_ADMINISTRATIVELY_PROHIBITED
                              : OPEN_UNKNOWN_CHANNEL_TYPE,
                          "only session channels");
        return;
    }
    for (i = 0; i < SSH_MAX_CHANNELS && !s; i++)
        if (!c->chans[i].used)
            s = &c->chans[i];
    if (!s || maxpkt == 0) {
        send_open_failure(c, id, OPEN_RESOURCE_SHORTAGE, "no channel available");
        return;
    }
    memset(s, 0, sizeof(*s));
    s->conn = c;
    s->used = true;
    s->local_id = (uint32_t)(s - c->chans);
    s->remote_id = id;
    s->remote_window = window;
    s->remote_max = maxpkt < SSH_CHAN_PACKET ? maxpkt : SSH_CHAN_PACKET;
    s->local_window = SSH_CHAN_WINDOW;
    buf[0] = SSH_MSG_CHANNEL_OPEN_CONFIRMATION;
    ssh_put_u32(buf + 1, id);
    ssh_put_u32(buf + 5, s->local_id);
    ssh_put_u32(buf + 9, SSH_CHAN_WINDOW);
    ssh_put_u32(buf + 13, SSH_CHAN_PACKET);
    ssh_send(c, buf, sizeof(buf));
}

/* The open channel with our id, or NULL. */
static struct ssh_session *find_channel(struct ssh_conn *c, uint32_t id)
{
    if (id >= SSH_MAX_CHANNELS || !c->chans[id].used)
        return NULL;
    return &c->chans[id];
}

/* Gives consumed bytes back to the peer once half the window is used up. */
static void maybe_adjust(struct ssh_session *s)
{
    uint8_t buf[9];

    if (s->sent_close || s->got_eof || s->local_unacked < SSH_CHAN_WINDOW / 2)
        return;
    buf[0] = SSH_MSG_CHANNEL_WINDOW_ADJUST;
    ssh_put_u32(buf + 1, s->remote_id);
    ssh_put_u32(buf + 5, s->local_unacked);
    s->local_window += s->local_unacked;
    s->local_unacked = 0;
    ssh_send(s->conn, buf, sizeof(buf));
}

/* Takes DATA or EXTENDED_DATA: window accounting, then to the app (stdin only). */
static void channel_data(struct ssh_session *s, struct ssh_rd *rd, bool extended)
{
    struct ssh_conn *c = s->conn;
    const uint8_t *data;
    size_t len, done = 0;

    if (extended)
        ssh_rd_u32(rd);
    data = ssh_rd_string(rd, &len);
    if (!data || !ssh_rd_end(rd) || len > s->local_window || len > SSH_CHAN_PACKET || s->got_eof) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad channel data");
        return;
    }
    s->local_window -= (uint32_t)len;
    if (!extended && s->started && !s->sent_close && c->ops->session_input && len)
        done = c->ops->session_input(c->app, s, data, len);
    else
        done = len;
    if (done > len)
        done = len;
    s->app_held += (uint32_t)(len - done);
    s->local_unacked += (uint32_t)done;
    maybe_adjust(s);
}

/* Sends CHANNEL_SUCCESS or CHANNEL_FAILURE when the peer wants a reply. */
static void reply(struct ssh_session *s, bool want_reply, bool ok)
{
    if (want_reply && !s->sent_close)
        send_simple(s, ok ? SSH_MSG_CHANNEL_SUCCESS : SSH_MSG_CHANNEL_FAILURE);
}

/* Starts the shell or the command: the reply first, then the app. */
static void start_session(struct ssh_session *s, bool want_reply, enum ssh_session_kind kind,
                          const char *command)
{
    struct ssh_conn *c = s->conn;

    if (s->started || !c->ops->session_start) {
        reply(s, want_reply, false);
        return;
    }
    s->started = true;
    s->exec = kind == SSH_SESSION_EXEC;
    reply(s, want_reply, true);
    if (c->ops->session_start(c->app, s, kind, command) != 0)
        ssh_session_exit(s, 127);
}

/*
 * Handles an "exec" request: its command, of any length the packet holds, goes to
 * the app as a C string (the app judges a command too long, as a shell would); a
 * command with a NUL byte, which a C string cannot carry whole, is refused.
 */
static void exec_request(struct ssh_session *s, struct ssh_rd *rd, bool want_reply)
{
    size_t len;
    const uint8_t *cmd = ssh_rd_string(rd, &len);
    char *command;

    if (!cmd || !ssh_rd_end(rd) || memchr(cmd, 0, len) || !(command = malloc(len + 1))) {
        reply(s, want_reply, false);
        return;
    }
    memcpy(command, cmd, len);
    command[len] = 0;
    start_session(s, want_reply, SSH_SESSION_EXEC, command);
    free(command);
}

/* Handles CHANNEL_REQUEST. */
static void channel_request(struct ssh_session *s, struct ssh_rd *rd)
{
    struct ssh_conn *c = s->conn;
    char type[64], term[64];
    bool want_reply, ok;
    size_t modes_len;
    unsigned cols, rows;

    ssh_rd_cstring(rd, type, sizeof(type));
    want_reply = ssh_rd_bool(rd);
    if (rd->err) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad CHANNEL_REQUEST");
        return;
    }
    if (strcmp(type, "pty-req") == 0) {
        ssh_rd_cstring(rd, term, sizeof(term));
        cols = ssh_rd_u32(rd);
        rows = ssh_rd_u32(rd);
        ssh_rd_u32(rd);
        ssh_rd_u32(rd);
        ssh_rd_string(rd, &modes_len);
        /* only before the shell or command starts: a running session keeps its terminal */
        ok = ssh_rd_end(rd) && !s->started;
        if (ok) {
            s->pty = true;
            s->cols = cols;
            s->rows = rows;
        }
        reply(s, want_reply, ok);
    } else if (strcmp(type, "window-change") == 0) {
        cols = ssh_rd_u32(rd);
        rows = ssh_rd_u32(rd);
        ssh_rd_u32(rd);
        ssh_rd_u32(rd);
        ok = ssh_rd_end(rd);
        if (ok) {
            s->cols = cols;
            s->rows = rows;
        }
        if (ok && s->started && c->ops->session_resize)
            c->ops->session_resize(c->app, s, s->cols, s->rows);
        reply(s, want_reply, ok);
    } else if (strcmp(type, "shell") == 0 && ssh_rd_end(rd)) {
        start_session(s, want_reply, SSH_SESSION_SHELL, NULL);
    } else if (strcmp(type, "exec") == 0) {
        exec_request(s, rd, want_reply);
    } else {
        reply(s, want_reply, false);
    }
}

/* True if some channel of c is open. */
bool ssh_channel_any_open(const struct ssh_conn *c)
{
    unsigned i;

    for (i = 0; i < SSH_MAX_CHANNELS; i++)
        if (c->chans[i].used)
            return true;
    return false;
}

/* Handles the peer's CLOSE: answer it, tell the app, free the slot. */
static void channel_close(struct ssh_session *s)
{
    struct ssh_conn *c = s->conn;
    bool answer = s->sent_close;

    s->got_close = true;
    if (!s->sent_close) {
        send_simple(s, SSH_MSG_CHANNEL_CLOSE);
        s->sent_close = true;
    }
    if (s->started && c->ops->session_closed)
        c->ops->session_closed(c->app, s);
    memset(s, 0, sizeof(*s));
    if (answer && !ssh_channel_any_open(c)) {
        c->wakeup_pending = true;
        c->wakeup_at = c->now + SSH_CLOSE_WAKEUP_MS;
    }
}

/* Dispatches a channel message (90-100). */
void ssh_channel_message(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len)
{
    struct ssh_session *s;
    struct ssh_rd rd;
    uint32_t id, add;

    ssh_rd_init(&rd, p + 1, len - 1);
    if (type == SSH_MSG_CHANNEL_OPEN) {
        channel_open(c, &rd);
        return;
    }
    id = ssh_rd_u32(&rd);
    s = rd.err ? NULL : find_channel(c, id);
    if (!s || s->got_close || type == SSH_MSG_CHANNEL_OPEN_CONFIRMATION ||
        type == SSH_MSG_CHANNEL_OPEN_FAILURE) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad channel message");
        return;
    }
    switch (type) {
    case SSH_MSG_CHANNEL_WINDOW_ADJUST:
        add = ssh_rd_u32(&rd);
        /* RFC 4254 §5.2: the window must not grow past 2^32 - 1 */
        if (!ssh_rd_end(&rd) || add > UINT32_MAX - s->remote_window) {
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad WINDOW_ADJUST");
            return;
        }
        s->remote_window += add;
        if (s->want_writable && c->ops->session_writable) {
            s->want_writable = false;
            c->ops->session_writable(c->app, s);
        }
        break;
    case SSH_MSG_CHANNEL_DATA:
    case SSH_MSG_CHANNEL_EXTENDED_DATA:
        channel_data(s, &rd, type == SSH_MSG_CHANNEL_EXTENDED_DATA);
        break;
    case SSH_MSG_CHANNEL_EOF:
    case SSH_MSG_CHANNEL_CLOSE:
        if (!ssh_rd_end(&rd)) {
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad channel message");
            return;
        }
        if (type == SSH_MSG_CHANNEL_CLOSE) {
            channel_close(s);
            break;
        }
        s->got_eof = true;
        if (s->started && !s->sent_close && c->ops->session_eof)
            c->ops->session_eof(c->app, s);
        break;
    case SSH_MSG_CHANNEL_REQUEST:
        channel_request(s, &rd);
        break;
    default: /* CHANNEL_SUCCESS / FAILURE: we never ask */
        break;
    }
}

/* Handles GLOBAL_REQUEST (keepalive@openssh.com and the rest): failure if wanted. */
void ssh_channel_global_request(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    struct ssh_rd rd;
    size_t nlen;
    uint8_t msg = SSH_MSG_REQUEST_FAILURE;

    ssh_rd_init(&rd, p + 1, len - 1);
    ssh_rd_string(&rd, &nlen);
    if (rd.err) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad GLOBAL_REQUEST");
        return;
    }
    if (ssh_rd_bool(&rd))
        ssh_send(c, &msg, 1);
}

/* Lets sessions that were refused output try again. */
void ssh_channel_wake_writers(struct ssh_conn *c)
{
    unsigned i;
    struct ssh_session *s;

    for (i = 0; i < SSH_MAX_CHANNELS && !c->finished; i++) {
        s = &c->chans[i];
        if (s->used && s->want_writable && !s->sent_close && c->ops->session_writable) {
            s->want_writable = false;
            c->ops->session_writable(c->app, s);
        }
    }
}

/* Ends every session (connection teardown). */
void ssh_channel_free_all(struct ssh_conn *c)
{
    unsigned i;

    for (i = 0; i < SSH_MAX_CHANNELS; i++) {
        if (c->chans[i].used && c->chans[i].started && c->ops->session_closed)
            c->ops->session_closed(c->app, &c->chans[i]);
        memset(&c->chans[i], 0, sizeof(c->chans[i]));
    }
}

/* Queues output as DATA (or stderr EXTENDED_DATA) within window and backlog limits. */
static size_t session_send(struct ssh_session *s, bool err, const uint8_t *buf, size_t len)
{
    struct ssh_conn *c = s->conn;
    uint8_t *msg = c->chan_buf;
    size_t total = 0, n, hdr;

    if (!s->used || s->sent_eof || s->sent_close || c->finished)
        return 0;
    while (total < len) {
        n = len - total;
        if (n > s->remote_window)
            n = s->remote_window;
        if (n > s->remote_max)
            n = s->remote_max;
        if (n == 0 || (c->kex.sent_kexinit && !c->kex.sent_newkeys) ||
            c->out_len - c->out_head >= SSH_OUTQ_DATA_LIMIT) {
            s->want_writable = true;
            break;
        }
        msg[0] = err ? SSH_MSG_CHANNEL_EXTENDED_DATA : SSH_MSG_CHANNEL_DATA;
        ssh_put_u32(msg + 1, s->remote_id);
        hdr = 5;
        if (err) {
            ssh_put_u32(msg + 5, 1); /* SSH_EXTENDED_DATA_STDERR */
            hdr = 9;
        }
        ssh_put_u32(msg + hdr, (uint32_t)n);
        memcpy(msg + hdr + 4, buf + total, n);
        if (ssh_send(c, msg, hdr + 4 + n) != 0)
            break;
        s->remote_window -= (uint32_t)n;
        total += n;
        ssh_kex_maybe_rekey(c);
    }
    if (total)
        c->active_since_tick = true; /* output is activity too */
    return total;
}

/* Session output (stdout). */
size_t ssh_session_write(struct ssh_session *s, const uint8_t *buf, size_t len)
{
    return session_send(s, false, buf, len);
}

/* Session output (stderr). */
size_t ssh_session_write_stderr(struct ssh_session *s, const uint8_t *buf, size_t len)
{
    return session_send(s, true, buf, len);
}

/* The app finished with n bytes it had kept. */
void ssh_session_input_done(struct ssh_session *s, size_t n)
{
    if (!s->used)
        return;
    if (n > s->app_held)
        n = s->app_held;
    s->app_held -= (uint32_t)n;
    s->local_unacked += (uint32_t)n;
    maybe_adjust(s);
}

/* Sends exit-status, EOF and CLOSE (RFC 4254 §6.10, §5.3). */
void ssh_session_exit(struct ssh_session *s, uint32_t status)
{
    uint8_t buf[64];
    struct ssh_wr wr;

    if (!s->used || s->sent_close)
        return;
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_REQUEST);
    ssh_wr_u32(&wr, s->remote_id);
    ssh_wr_cstring(&wr, "exit-status");
    ssh_wr_u8(&wr, 0);
    ssh_wr_u32(&wr, status);
    ssh_send(s->conn, buf, wr.len);
    if (!s->sent_eof)
        send_simple(s, SSH_MSG_CHANNEL_EOF);
    s->sent_eof = true;
    send_simple(s, SSH_MSG_CHANNEL_CLOSE);
    s->sent_close = true;
    s->conn->active_since_tick = true; /* idle from the command's end */
}

/* Which user the session belongs to. */
enum ssh_user_id ssh_session_user(const struct ssh_session *s)
{
    return s->conn->user;
}

/* The terminal size, if the client asked for a pty. */
bool ssh_session_pty(const struct ssh_session *s, unsigned *cols, unsigned *rows)
{
    if (cols)
        *cols = s->cols;
    if (rows)
        *rows = s->rows;
    return s->pty;
}

/* Attaches the app's data to the session. */
void ssh_session_set_data(struct ssh_session *s, void *data)
{
    s->data = data;
}

/* The app's data of the session. */
void *ssh_session_data(const struct ssh_session *s)
{
    return s->data;
}
