/*
 * test_ssh_proto.c - protocol state rules of the SSH server library with
 * crafted clear-text packets (a finished key exchange is stood in for through
 * ssh_internal.h, as test_ssh_packet.c and fuzz_ssh_conn do): malformed
 * channel messages and window overflow are protocol errors, a pty-req after
 * the session started changes nothing, SERVICE_ACCEPT waits for our NEWKEYS
 * during a re-key, a wrong first_kex_packet_follows guess of any key
 * exchange method is ignored, ssh-userauth may be asked for again before each
 * attempt and after the login a SERVICE_REQUEST gets UNIMPLEMENTED, a session
 * ends with its data, exit-status, EOF and CLOSE, and the client's answering
 * CLOSE on the last channel gets an IGNORE (the wake-up dbclient needs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ssh_internal.h"
#include "ssh_test_kexinit.h"
#include "pzt_main.h"

/* What a connection wrote, what the app saw. */
struct capture {
    uint8_t buf[1 << 16];
    size_t len;
    unsigned started, closed, resized;
};

/* Write callback: takes everything. */
static size_t cap_write(void *app, const uint8_t *buf, size_t len)
{
    struct capture *c = app;
    size_t n = len < sizeof(c->buf) - c->len ? len : sizeof(c->buf) - c->len;

    memcpy(c->buf + c->len, buf, n);
    c->len += n;
    return len;
}

/* App: every session starts. */
static int cap_start(void *app, struct ssh_session *s, enum ssh_session_kind kind,
                     const char *command)
{
    struct capture *c = app;

    (void)s;
    (void)kind;
    (void)command;
    c->started++;
    return 0;
}

/* App: counts closed sessions. */
static void cap_closed(void *app, struct ssh_session *s)
{
    struct capture *c = app;

    (void)s;
    c->closed++;
}

/* App: counts resizes. */
static void cap_resize(void *app, struct ssh_session *s, unsigned cols, unsigned rows)
{
    struct capture *c = app;

    (void)s;
    (void)cols;
    (void)rows;
    c->resized++;
}

static const struct ssh_conn_ops cap_ops = {.write = cap_write,
                                            .session_start = cap_start,
                                            .session_closed = cap_closed,
                                            .session_resize = cap_resize};

/* A test's server, connection and capture. */
struct fixture {
    char dir[32];
    struct ssh_server *srv;
    struct ssh_conn *c;
    struct capture *cap;
};

/* A server (compat algorithms) and a connection that has read the client version. */
static void setup(struct fixture *f)
{
    struct ssh_server_config cfg = {0};
    const char *v = "SSH-2.0-unit\r\n";
    char err[128];

    snprintf(f->dir, sizeof(f->dir), "/tmp/pz_ssh_proto.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    cfg.state_dir = f->dir;
    cfg.compat_algorithms = true;
    cfg.users[0].name = "admin";
    f->srv = ssh_server_new(&cfg, err, sizeof(err));
    assert_non_null(f->srv);
    f->cap = calloc(1, sizeof(*f->cap));
    assert_non_null(f->cap);
    f->c = ssh_conn_new(f->srv, &cap_ops, f->cap, 0);
    assert_non_null(f->c);
    assert_int_equal(ssh_conn_input(f->c, (const uint8_t *)v, strlen(v), 1), strlen(v));
}

/* The first key exchange stood in for (clear cipher kept); logged in if login. */
static void after_kex(struct fixture *f, bool login)
{
    f->c->first_kex_done = true;
    f->c->kex.sent_kexinit = f->c->kex.in_progress = false;
    f->c->kex_done = 1;
    if (login)
        f->c->userauth_service = f->c->authenticated = true;
}

/* Frees the fixture and removes the state directory. */
static void teardown(struct fixture *f)
{
    char p[256];

    ssh_conn_free(f->c);
    ssh_server_free(f->srv);
    free(f->cap);
    snprintf(p, sizeof(p), "%s/ssh_host_ed25519_key", f->dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/ssh_host_ecdsa_key", f->dir);
    unlink(p);
    rmdir(f->dir);
}

/* Sends payload as one clear packet (block 8, padding >= 4). */
static void send_clear(struct fixture *f, const uint8_t *payload, size_t len)
{
    uint8_t pkt[4096];
    size_t pad = 8 - (5 + len) % 8, total;

    if (pad < 4)
        pad += 8;
    assert_true(5 + len + pad <= sizeof(pkt));
    ssh_put_u32(pkt, (uint32_t)(1 + len + pad));
    pkt[4] = (uint8_t)pad;
    memcpy(pkt + 5, payload, len);
    memset(pkt + 5 + len, 0, pad);
    total = 5 + len + pad;
    assert_int_equal(ssh_conn_input(f->c, pkt, total, 2), total);
}

/* Sends the payload the writer holds. */
static void send_wr(struct fixture *f, const struct ssh_wr *wr)
{
    assert_false(wr->err);
    send_clear(f, wr->p, wr->len);
}

/* Message types of the clear packets written from off on, into types (max n); count. */
static size_t out_types(const struct capture *cap, size_t off, uint8_t *types, size_t n)
{
    size_t k = 0;

    while (off + 6 <= cap->len && k < n) {
        types[k++] = cap->buf[off + 5];
        off += 4 + ssh_get_u32(cap->buf + off);
    }
    return k;
}

/* True if a clear packet of type was written from off on. */
static bool wrote_type(const struct capture *cap, size_t off, uint8_t type)
{
    uint8_t types[256];
    size_t n = out_types(cap, off, types, 256), i;

    for (i = 0; i < n; i++)
        if (types[i] == type)
            return true;
    return false;
}

/* Opens session channel 0 with the given window, asks for a pty (80x24), starts a shell. */
/* The client opens a session channel: its id, window, 32 KiB packets. */
static void send_channel_open(struct fixture *f, uint32_t id, uint32_t window)
{
    uint8_t buf[64];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_OPEN);
    ssh_wr_cstring(&wr, "session");
    ssh_wr_u32(&wr, id);
    ssh_wr_u32(&wr, window);
    ssh_wr_u32(&wr, 32768);
    send_wr(f, &wr);
}

/* Runs the connection's timers at now and sends what they queued. */
static void run_timers(struct fixture *f, uint64_t now)
{
    ssh_conn_tick(f->c, now);
    ssh_conn_output_ready(f->c, now);
}

static void open_shell(struct fixture *f, uint32_t window)
{
    uint8_t buf[256];
    struct ssh_wr wr;

    send_channel_open(f, 7, window);
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_REQUEST);
    ssh_wr_u32(&wr, 0);
    ssh_wr_cstring(&wr, "pty-req");
    ssh_wr_u8(&wr, 1);
    ssh_wr_cstring(&wr, "xterm");
    ssh_wr_u32(&wr, 80);
    ssh_wr_u32(&wr, 24);
    ssh_wr_u32(&wr, 0);
    ssh_wr_u32(&wr, 0);
    ssh_wr_string(&wr, "", 0);
    send_wr(f, &wr);
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_REQUEST);
    ssh_wr_u32(&wr, 0);
    ssh_wr_cstring(&wr, "shell");
    ssh_wr_u8(&wr, 1);
    send_wr(f, &wr);
    assert_int_equal(f->cap->started, 1);
    assert_false(ssh_conn_finished(f->c));
}

/* Expects the connection over with reason. */
static void expect_disconnect(struct fixture *f, int reason)
{
    struct ssh_conn_stats st;

    assert_true(ssh_conn_finished(f->c));
    ssh_conn_get_stats(f->c, &st);
    assert_int_equal(st.disconnect_reason, reason);
}

/* A CHANNEL_CLOSE without its recipient channel is malformed, not a CLOSE of channel 0. */
static void test_truncated_channel_id(void **state)
{
    struct fixture f;
    uint8_t msg = SSH_MSG_CHANNEL_CLOSE;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1 << 20);
    send_clear(&f, &msg, 1);
    expect_disconnect(&f, SSH_DISCONNECT_PROTOCOL_ERROR);
    assert_int_equal(f.cap->closed, 0); /* not taken for a CLOSE of channel 0 */
    teardown(&f);
}

/* A WINDOW_ADJUST cut short is malformed too. */
static void test_truncated_window_adjust(void **state)
{
    struct fixture f;
    uint8_t msg[7] = {SSH_MSG_CHANNEL_WINDOW_ADJUST, 0, 0, 0, 0, 0, 1};

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1000);
    send_clear(&f, msg, sizeof(msg));
    expect_disconnect(&f, SSH_DISCONNECT_PROTOCOL_ERROR);
    teardown(&f);
}

/* RFC 4254 §5.2: the window must not grow past 2^32 - 1; a peer that does it is in error
 * (OpenSSH ends the connection too), not silently clamped. */
static void test_window_overflow(void **state)
{
    struct fixture f;
    uint8_t msg[9] = {SSH_MSG_CHANNEL_WINDOW_ADJUST};

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 0xfffff000u);
    ssh_put_u32(msg + 1, 0);
    ssh_put_u32(msg + 5, 0xfff); /* up to 2^32 - 1 exactly: fine */
    send_clear(&f, msg, sizeof(msg));
    assert_false(ssh_conn_finished(f.c));
    assert_int_equal(f.c->chans[0].remote_window, UINT32_MAX);
    ssh_put_u32(msg + 5, 1); /* one more: overflow */
    send_clear(&f, msg, sizeof(msg));
    expect_disconnect(&f, SSH_DISCONNECT_PROTOCOL_ERROR);
    teardown(&f);
}

/* A pty-req after the shell started is refused and leaves the session's terminal as it
 * was; a malformed window-change changes nothing either. */
static void test_pty_after_start(void **state)
{
    struct fixture f;
    uint8_t buf[256];
    struct ssh_wr wr;
    unsigned cols = 0, rows = 0;
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1 << 20);
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_REQUEST);
    ssh_wr_u32(&wr, 0);
    ssh_wr_cstring(&wr, "pty-req");
    ssh_wr_u8(&wr, 1);
    ssh_wr_cstring(&wr, "vt100");
    ssh_wr_u32(&wr, 132);
    ssh_wr_u32(&wr, 50);
    ssh_wr_u32(&wr, 0);
    ssh_wr_u32(&wr, 0);
    ssh_wr_string(&wr, "", 0);
    mark = f.cap->len;
    send_wr(&f, &wr);
    assert_true(wrote_type(f.cap, mark, SSH_MSG_CHANNEL_FAILURE));
    assert_true(ssh_session_pty(&f.c->chans[0], &cols, &rows));
    assert_int_equal(cols, 80);
    assert_int_equal(rows, 24);
    /* window-change without its pixel sizes */
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_CHANNEL_REQUEST);
    ssh_wr_u32(&wr, 0);
    ssh_wr_cstring(&wr, "window-change");
    ssh_wr_u8(&wr, 0);
    ssh_wr_u32(&wr, 200);
    ssh_wr_u32(&wr, 60);
    send_wr(&f, &wr);
    assert_true(ssh_session_pty(&f.c->chans[0], &cols, &rows));
    assert_int_equal(cols, 80);
    assert_int_equal(rows, 24);
    assert_int_equal(f.cap->resized, 0);
    assert_false(ssh_conn_finished(f.c));
    teardown(&f);
}

/* RFC 4253 §7.1: between our KEXINIT and our NEWKEYS no SERVICE_ACCEPT goes out; it waits
 * with the other held-back answers. */
static void test_service_accept_held_during_rekey(void **state)
{
    struct fixture f;
    uint8_t buf[64];
    struct ssh_wr wr;
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, false);
    assert_int_equal(ssh_kex_send_kexinit(f.c), 0); /* a re-key of ours starts */
    mark = f.cap->len;
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_SERVICE_REQUEST);
    ssh_wr_cstring(&wr, "ssh-userauth");
    send_wr(&f, &wr); /* sent by the client before it saw our KEXINIT */
    assert_false(ssh_conn_finished(f.c));
    assert_false(wrote_type(f.cap, mark, SSH_MSG_SERVICE_ACCEPT));
    assert_true(f.c->def_len > 0);
    teardown(&f);
}

/* Sends SERVICE_REQUEST for service. */
static void send_service_request(struct fixture *f, const char *service)
{
    uint8_t buf[64];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_SERVICE_REQUEST);
    ssh_wr_cstring(&wr, service);
    send_wr(f, &wr);
}

/* Counts the clear packets of type written from off on. */
static size_t count_type(const struct capture *cap, size_t off, uint8_t type)
{
    uint8_t types[256];
    size_t n = out_types(cap, off, types, 256), i, k = 0;

    for (i = 0; i < n; i++)
        k += types[i] == type;
    return k;
}

/* ssh-userauth asked for again before a later attempt (paramiko does it before each one)
 * is accepted each time, as OpenSSH's sshd does; an unknown service still ends it. */
static void test_service_request_repeated(void **state)
{
    struct fixture f;
    uint8_t buf[128];
    struct ssh_wr wr;
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, false);
    mark = f.cap->len;
    send_service_request(&f, "ssh-userauth");
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_USERAUTH_REQUEST);
    ssh_wr_cstring(&wr, "admin");
    ssh_wr_cstring(&wr, "ssh-connection");
    ssh_wr_cstring(&wr, "none");
    send_wr(&f, &wr);
    send_service_request(&f, "ssh-userauth");
    send_service_request(&f, "ssh-userauth");
    assert_false(ssh_conn_finished(f.c));
    assert_int_equal(count_type(f.cap, mark, SSH_MSG_SERVICE_ACCEPT), 3);
    assert_int_equal(count_type(f.cap, mark, SSH_MSG_USERAUTH_FAILURE), 1);
    send_service_request(&f, "ssh-connection");
    expect_disconnect(&f, SSH_DISCONNECT_SERVICE_NOT_AVAILABLE);
    teardown(&f);
}

/* After the login the userauth phase is over: a SERVICE_REQUEST gets UNIMPLEMENTED (as
 * from OpenSSH's sshd), no SERVICE_ACCEPT, and the connection goes on. */
static void test_service_request_after_login(void **state)
{
    struct fixture f;
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1 << 20);
    mark = f.cap->len;
    send_service_request(&f, "ssh-userauth");
    assert_false(ssh_conn_finished(f.c));
    assert_int_equal(count_type(f.cap, mark, SSH_MSG_UNIMPLEMENTED), 1);
    assert_int_equal(count_type(f.cap, mark, SSH_MSG_SERVICE_ACCEPT), 0);
    assert_true(f.c->chans[0].used);
    teardown(&f);
}

/* Sends the client's CHANNEL_CLOSE for our channel id. */
static void send_channel_close(struct fixture *f, uint32_t id)
{
    uint8_t msg[5] = {SSH_MSG_CHANNEL_CLOSE};

    ssh_put_u32(msg + 1, id);
    send_clear(f, msg, sizeof(msg));
}

/*
 * The end of a session: its output, then exit-status, EOF and CLOSE, nothing after; the
 * client's CLOSE that answers ours, on the last channel, gets an SSH_MSG_IGNORE 200 ms later
 * (unless the client closed) that wakes dbclient (it sleeps in select() after sending that CLOSE
 * otherwise); no second CLOSE.
 */
static void test_close_sequence(void **state)
{
    static const uint8_t want[] = {SSH_MSG_CHANNEL_DATA, SSH_MSG_CHANNEL_REQUEST,
                                   SSH_MSG_CHANNEL_EOF, SSH_MSG_CHANNEL_CLOSE};
    struct fixture f;
    uint8_t data[3000] = {0}, types[16];
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1000);
    mark = f.cap->len;
    assert_int_equal(ssh_session_write(&f.c->chans[0], data, sizeof(data)), 1000); /* window */
    ssh_session_exit(&f.c->chans[0], 3);
    assert_int_equal(ssh_session_write(&f.c->chans[0], data, 10), 0);
    assert_int_equal(out_types(f.cap, mark, types, 16), 4);
    assert_memory_equal(types, want, sizeof(want));
    mark = f.cap->len;
    send_channel_close(&f, 0);
    assert_int_equal(out_types(f.cap, mark, types, 16), 0); /* OpenSSH closes at once */
    assert_int_equal(ssh_conn_next_deadline(f.c), f.c->now + SSH_CLOSE_WAKEUP_MS);
    run_timers(&f, f.c->now + SSH_CLOSE_WAKEUP_MS - 1);
    assert_int_equal(out_types(f.cap, mark, types, 16), 0);
    run_timers(&f, f.c->now + 1);
    assert_int_equal(out_types(f.cap, mark, types, 16), 1);
    assert_int_equal(types[0], SSH_MSG_IGNORE);
    run_timers(&f, f.c->now + 10 * SSH_CLOSE_WAKEUP_MS); /* only once */
    assert_int_equal(out_types(f.cap, mark, types, 16), 1);
    assert_int_equal(f.cap->closed, 1);
    assert_false(f.c->chans[0].used);
    assert_false(ssh_conn_finished(f.c));
    teardown(&f);
}

/* A client that closes the connection before the wake-up is due (OpenSSH) gets none:
 * a packet after its close would only draw a reset. */
static void test_close_then_disconnect(void **state)
{
    struct fixture f;
    uint8_t types[16];
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1000);
    ssh_session_exit(&f.c->chans[0], 0);
    mark = f.cap->len;
    send_channel_close(&f, 0);
    ssh_conn_input_closed(f.c, f.c->now + 1);
    run_timers(&f, f.c->now + SSH_CLOSE_WAKEUP_MS);
    assert_int_equal(out_types(f.cap, mark, types, 16), 0);
    assert_true(ssh_conn_finished(f.c));
    teardown(&f);
}

/* No wake-up while another channel is open, nor when the client closes first (it waits
 * for our CLOSE, which answers it). */
static void test_close_no_wakeup(void **state)
{
    struct fixture f;
    size_t mark;

    (void)state;
    setup(&f);
    after_kex(&f, true);
    open_shell(&f, 1000);
    send_channel_open(&f, 8, 1000);
    assert_true(f.c->chans[1].used);
    ssh_session_exit(&f.c->chans[0], 0);
    mark = f.cap->len;
    send_channel_close(&f, 0);
    run_timers(&f, f.c->now + SSH_CLOSE_WAKEUP_MS);
    assert_false(wrote_type(f.cap, mark, SSH_MSG_IGNORE));
    mark = f.cap->len;
    send_channel_close(&f, 1); /* the client's CLOSE first: our CLOSE answers it */
    assert_true(wrote_type(f.cap, mark, SSH_MSG_CHANNEL_CLOSE));
    run_timers(&f, f.c->now + SSH_CLOSE_WAKEUP_MS);
    assert_false(wrote_type(f.cap, mark, SSH_MSG_IGNORE));
    assert_false(f.c->chans[1].used);
    assert_false(ssh_conn_finished(f.c));
    teardown(&f);
}

/* RFC 4253 §7: after a wrong guess the next packet is ignored, whatever key exchange method
 * it belongs to (here a diffie-hellman-group-exchange request, type 34). */
static void test_wrong_guess_ignored(void **state)
{
    struct fixture f;
    uint8_t buf[512];
    uint8_t gex[13] = {34, 0, 0, 8, 0, 0, 0, 12, 0, 0, 0, 32, 0};
    struct ssh_wr wr;
    size_t mark;

    (void)state;
    setup(&f);
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_test_client_kexinit(&wr, "diffie-hellman-group-exchange-sha256,curve25519-sha256", true);
    send_wr(&f, &wr);
    assert_false(ssh_conn_finished(f.c));
    send_clear(&f, gex, sizeof(gex)); /* the guessed packet of the method not chosen */
    assert_false(ssh_conn_finished(f.c));
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_KEX_ECDH_INIT);
    memset(buf + 200, 9, 32);
    ssh_wr_string(&wr, buf + 200, 32);
    mark = f.cap->len;
    send_wr(&f, &wr);
    assert_false(ssh_conn_finished(f.c));
    assert_true(wrote_type(f.cap, mark, SSH_MSG_KEX_ECDH_REPLY));
    teardown(&f);
}

PZT_MAIN(test_truncated_channel_id, test_truncated_window_adjust, test_window_overflow,
         test_pty_after_start, test_service_accept_held_during_rekey, test_wrong_guess_ignored,
         test_service_request_repeated, test_service_request_after_login, test_close_sequence,
         test_close_no_wakeup, test_close_then_disconnect)
