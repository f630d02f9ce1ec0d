/*
 * fuzz_ssh_conn.c - libFuzzer target: hostile bytes to an SSH server
 * connection (ssh/) after the version exchange.
 *
 * The first input byte picks the state the bytes arrive in (mode % 4):
 *   0 - a fresh connection: clear-text KEXINIT / ECDH_INIT / NEWKEYS stage,
 *       strict-KEX rules, the packet framing itself;
 *   1 - after the first key exchange, before login: the clear cipher kept
 *       so that the fuzzer reaches SERVICE_REQUEST and USERAUTH_REQUEST
 *       (publickey and password parsing, attempt limits; a password's verdict
 *       is awaited on the verifier's descriptor, as portzerod's loop does);
 *   2 - logged in: the channel layer (opens, requests, data, windows, EOF,
 *       CLOSE, global requests) with an app that starts sessions, echoes
 *       input, keeps some of it back and writes output.
 *   3 - encrypted: the input cipher is set to a known key (third byte: cipher,
 *       MAC, strict KEX, logged in or not) and the rest is a list of records
 *       (u16 length, bit 15: flip a bit of the sealed packet; then the payload)
 *       that the harness frames and seals as a client would, so that the
 *       packet opening of every cipher, sequence numbers and everything after
 *       KEX run under encryption.  A NEWKEYS record switches the harness to the
 *       keys the server derived (read from its key exchange state), so a
 *       re-key (KEXINIT, ECDH_INIT, NEWKEYS) and the traffic after it are
 *       reachable as well.
 * States 1-3 are set up through ssh_internal.h: in the product only a
 * completed key exchange leads there.  The second byte's bits cut the rest
 * into chunks and step the clock (timers: grace, auth delay, idle, re-key).
 */
#include <poll.h>
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

/* Remove the state directory once the server holds its host keys: libFuzzer ends a
 * timed run without running exit handlers, which left one directory per run in /tmp. */
static void remove_state_dir(const char *dir)
{
    static const char *const keys[] = {"ssh_host_ed25519_key", "ssh_host_ecdsa_key"};
    char path[64];

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, keys[i]);
        unlink(path);
    }
    rmdir(dir);
}

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
    /* The back-off table outlives each input: off, so that inputs replay alike
     * (test_ssh_backoff and test_ssh_password cover it). */
    cfg.backoff_after = UINT32_MAX;
    srv = ssh_server_new(&cfg, err, sizeof(err));
    if (!srv)
        abort();
    remove_state_dir(dir);
    return srv;
}

/* A password verdict is awaited: wait for the verifier's descriptor and deliver it, as the
 * product's loop does. */
static void await_verdict(struct ssh_conn *c, uint64_t now)
{
    struct pollfd pfd = {.fd = ssh_server_verdict_fd(c->srv), .events = POLLIN};

    while (c->pw_pending && !c->pw_held && pfd.fd >= 0 && poll(&pfd, 1, 30000) == 1)
        ssh_server_verdicts(c->srv, now);
}

/* Feeds len bytes in chunks cut by *cut, running the clock and the timers like the
 * product's loop; returns false once the connection is finished. */
static bool feed(struct ssh_conn *c, const uint8_t *p, size_t len, uint8_t *cut, uint64_t *now)
{
    size_t off = 0, chunk, n;

    while (off < len && !ssh_conn_finished(c)) {
        chunk = (*cut & 1) ? 1 + (len - off) / 3 : len - off;
        n = ssh_conn_input(c, p + off, chunk, *now);
        off += n;
        await_verdict(c, *now);
        *now += (*cut & 2) ? 700 : 3;
        *cut = (uint8_t)(*cut >> 1 | *cut << 7);
        ssh_conn_tick(c, *now);
        ssh_conn_output_ready(c, *now);
        if (n == 0 && ssh_conn_next_deadline(c) > *now)
            *now = ssh_conn_next_deadline(c); /* input blocked: let time pass */
    }
    return !ssh_conn_finished(c);
}

/* Mode 3: seals the records of data as the client and feeds them (see the top). */
static void run_encrypted(struct ssh_conn *c, const uint8_t *data, size_t size, uint8_t cut,
                          uint64_t now)
{
    static const uint8_t key[64] = {1, 2, 3}, iv[16] = {4, 5, 6}, mkey[64] = {7, 8, 9};
    static uint8_t pkt[4 + 1 + 0x7fff + 255 + 64];
    const char *const *cn = ssh_cipher_names(), *const *mn = ssh_mac_names();
    const struct ssh_cipher_alg *ca;
    const struct ssh_mac_alg *ma;
    struct ssh_cipher tx;
    uint32_t seq;
    size_t off = 1, len, total;
    unsigned block, pad, ncn = 0, nmn = 0;
    uint8_t cfg;
    bool flip, pkt_is_newkeys;

    if (size < 1)
        return;
    cfg = data[0];
    while (cn[ncn])
        ncn++;
    while (mn[nmn])
        nmn++;
    ca = ssh_cipher_alg_find(cn[(cfg & 7) % ncn]);
    ma = ssh_mac_alg_find(mn[(cfg >> 3 & 3) % nmn]);
    c->strict = cfg & 0x20;
    if (cfg & 0x40)
        c->userauth_service = c->authenticated = true;
    memset(&tx, 0, sizeof(tx));
    ssh_cipher_free(&tx);
    if (ssh_cipher_init(&c->rx.c, ca, ma, key, iv, mkey) != 0 ||
        ssh_cipher_init(&tx, ca, ma, key, iv, mkey) != 0)
        abort();
    c->kex.algs.cipher_in = ca;
    c->kex.algs.mac_in = ca->mode == SSH_MODE_CTR ? ma : NULL;
    seq = c->rx.seq;
    while (off + 2 <= size && !ssh_conn_finished(c)) {
        flip = data[off] & 0x80;
        len = (size_t)(data[off] & 0x7f) << 8 | data[off + 1];
        off += 2;
        if (len > size - off)
            len = size - off;
        block = ssh_cipher_block(&tx);
        pad = block - (unsigned)((1 + len + (ssh_cipher_len_outside(&tx) ? 0 : 4)) % block);
        if (pad < 4)
            pad += block;
        total = 4 + 1 + len + pad;
        ssh_put_u32(pkt, (uint32_t)(total - 4));
        pkt[4] = (uint8_t)pad;
        memcpy(pkt + 5, data + off, len);
        memset(pkt + 5 + len, 0, pad);
        pkt_is_newkeys = len == 1 && data[off] == SSH_MSG_NEWKEYS;
        if (ssh_cipher_seal(&tx, seq++, pkt, total) != 0)
            abort();
        total += ssh_cipher_tag_len(&tx);
        if (flip)
            pkt[(len * 7 + 3) % total] ^= 0x10;
        off += len;
        if (pkt_is_newkeys && c->kex.sent_newkeys) {
            /* the server's next input keys, copied before it takes (and wipes) them */
            const struct ssh_algs *a = &c->kex.algs;
            const struct ssh_cipher_alg *nca = a->cipher_in;
            const struct ssh_mac_alg *nma = a->mac_in;
            uint8_t nkey[64], niv[32], nmac[64];

            memcpy(nkey, c->kex.next_in.key, sizeof(nkey));
            memcpy(niv, c->kex.next_in.iv, sizeof(niv));
            memcpy(nmac, c->kex.next_mac, sizeof(nmac));
            if (!feed(c, pkt, total, &cut, &now))
                break;
            if (ssh_cipher_init(&tx, nca, nma, nkey, niv, nmac) != 0)
                abort();
            if (c->strict)
                seq = 0;
        } else if (!feed(c, pkt, total, &cut, &now)) {
            break;
        }
    }
    ssh_cipher_free(&tx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char version[] = "SSH-2.0-fuzz\r\n";
    struct ssh_conn *c;
    uint64_t now = 1;
    uint8_t mode, cut;

    if (size < 2)
        return 0;
    mode = data[0] % 4;
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
    if (mode == 3)
        run_encrypted(c, data + 2, size - 2, cut, now);
    else
        feed(c, data + 2, size - 2, &cut, &now);
    ssh_conn_tick(c, now + 10000000);
    ssh_conn_free(c);
    return 0;
}
