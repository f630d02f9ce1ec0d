/*
 * fuzz_ssh_conn.c - libFuzzer target: hostile bytes to an SSH server
 * connection (ssh/) after the version exchange.
 *
 * The first input byte picks the state the bytes arrive in (mode % 3):
 *   0 - a fresh connection: clear-text KEXINIT / ECDH_INIT / NEWKEYS stage,
 *       strict-KEX rules, the packet framing itself;
 *   1 - after the first key exchange, before login: the clear cipher kept
 *       so that the fuzzer reaches SERVICE_REQUEST and USERAUTH_REQUEST
 *       (publickey and password parsing, attempt limits);
 *   2 - logged in: the channel layer (opens, requests, data, windows, EOF,
 *       CLOSE, global requests) with an app that starts sessions, echoes
 *       input, keeps some of it back and writes output.
 * States 1 and 2 are set up through ssh_internal.h: in the product only a
 * completed key exchange leads there, and encrypted input is out of the
 * fuzzer's reach.  The second byte's bits cut the rest into chunks and step
 * the clock (timers: grace, auth delay, idle, re-key).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ssh_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Output sink: takes everything. */
static size_t sink_write(void *app, const uint8_t *buf, size_t len)
{
    (void)app;
    (void)buf;
    return len;
}

/* App: sessions start unless the command says "fail". */
static int app_start(void *app, struct ssh_session *s, enum ssh_session_kind kind,
                     const char *command)
{
    (void)app;
    if (kind == SSH_SESSION_EXEC && strcmp(command, "fail") == 0)
        return -1;
    ssh_session_write(s, (const uint8_t *)"hello\n", 6);
    return 0;
}

/* App: echoes input and keeps half of it back, released at once on the next call. */
static size_t app_input(void *app, struct ssh_session *s, const uint8_t *data, size_t len)
{
    (void)app;
    ssh_session_write(s, data, len);
    ssh_session_write_stderr(s, data, len / 4);
    ssh_session_input_done(s, 1 << 20);
    if (len > 8 && data[0] == 'x')
        ssh_session_exit(s, 3);
    return len / 2;
}

/* App: EOF ends the session. */
static void app_eof(void *app, struct ssh_session *s)
{
    (void)app;
    ssh_session_exit(s, 0);
}

static const struct ssh_conn_ops fuzz_ops = {.write = sink_write,
                                             .session_start = app_start,
                                             .session_input = app_input,
                                             .session_eof = app_eof};

/* One server for the whole run (host keys made once). */
static struct ssh_server *server(void)
{
    static struct ssh_server *srv;
    static char dir[] = "/tmp/pz_fuzz_ssh.XXXXXX";
    struct ssh_server_config cfg = {0};
    char err[128];

    if (srv)
        return srv;
    if (!mkdtemp(dir))
        abort();
    cfg.state_dir = dir;
    cfg.compat_algorithms = true; /* every algorithm reachable */
    cfg.users[0].name = "admin";
    /* password "test" */
    cfg.users[0].password_hash = "$6$saltsalt$JcVDtuB6d1BHhCd5RPBh8g8xX/1CbY8EU2PN0MTaj2/"
                                 "Mypw4P./C6dN4j0HALhzBDTocyW1Jm.gYaTPjFGCV40";
    cfg.users[1].name = "monitor";
    cfg.max_auth_tries = 1000;
    cfg.auth_fail_delay_ms = 5;
    srv = ssh_server_new(&cfg, err, sizeof(err));
    if (!srv)
        abort();
    return srv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char version[] = "SSH-2.0-fuzz\r\n";
    struct ssh_conn *c;
    uint64_t now = 1;
    size_t off = 2, chunk, n;
    uint8_t mode, cut;

    if (size < 2)
        return 0;
    mode = data[0] % 3;
    cut = data[1];
    c = ssh_conn_new(server(), &fuzz_ops, NULL, now);
    if (!c)
        return 0;
    ssh_conn_input(c, (const uint8_t *)version, sizeof(version) - 1, now);
    if (mode >= 1) {
        c->first_kex_done = true;
        c->kex.sent_kexinit = c->kex.in_progress = false;
        c->kex_done = 1;
        memset(c->session_id, 0x11, sizeof(c->session_id));
    }
    if (mode == 2) {
        c->userauth_service = true;
        c->authenticated = true;
    }
    while (off < size && !ssh_conn_finished(c)) {
        chunk = (cut & 1) ? 1 + (size - off) / 3 : size - off;
        n = ssh_conn_input(c, data + off, chunk, now);
        off += n;
        now += (cut & 2) ? 700 : 3;
        cut = (uint8_t)(cut >> 1 | cut << 7);
        ssh_conn_tick(c, now);
        ssh_conn_output_ready(c, now);
        if (n == 0 && ssh_conn_next_deadline(c) > now)
            now = ssh_conn_next_deadline(c); /* input blocked: let time pass */
    }
    ssh_conn_tick(c, now + 10000000);
    ssh_conn_free(c);
    return 0;
}
