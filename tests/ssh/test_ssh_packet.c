/*
 * test_ssh_packet.c - the binary packet layer: every cipher/MAC pair seals
 * and opens over many sequence numbers, a flipped bit anywhere is refused;
 * a connection's first output (version line, KEXINIT framing and padding),
 * packet length limits (35000 accepted, 65537 refused with PROTOCOL_ERROR),
 * a sequence number wrap under strict KEX, and input taken in pieces.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include <cmocka.h>

#include "ssh_internal.h"
#include "ssh_test_kexinit.h"
#include "pzt_main.h"

/* What a connection wrote, and its last log line. */
struct capture {
    uint8_t buf[1 << 16];
    size_t len;
    char log[512];
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

/* Log callback: keeps the last line. */
static void cap_log(void *app, enum ssh_log_level level, const char *msg)
{
    struct capture *c = app;

    (void)level;
    snprintf(c->log, sizeof(c->log), "%s", msg);
}

static const struct ssh_conn_ops cap_ops = {.write = cap_write, .log = cap_log};

static void test_roundtrip_all(void **state)
{
    const char *const *cn, *const *mn;
    struct ssh_cipher tx, rx;
    uint8_t key[64], iv[16], mkey[64], pkt[4096 + 64], orig[4096];
    uint32_t seq, plen;
    size_t len, i;

    (void)state;
    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    for (i = 0; i < 64; i++)
        key[i] = (uint8_t)(i * 7), mkey[i] = (uint8_t)(i * 13);
    for (i = 0; i < 16; i++)
        iv[i] = (uint8_t)(i * 3);
    for (cn = ssh_cipher_names(); *cn; cn++) {
        for (mn = ssh_mac_names(); *mn; mn++) {
            const struct ssh_cipher_alg *ca = ssh_cipher_alg_find(*cn);
            const struct ssh_mac_alg *ma = ssh_mac_alg_find(*mn);

            ssh_cipher_free(&tx);
            ssh_cipher_free(&rx);
            assert_int_equal(ssh_cipher_init(&tx, ca, ma, key, iv, mkey), 0);
            assert_int_equal(ssh_cipher_init(&rx, ca, ma, key, iv, mkey), 0);
            for (seq = 0; seq < 40; seq++) {
                len = 16 * (seq + 1) + (ssh_cipher_len_outside(&tx) ? 4 : 0);
                for (i = 0; i < len; i++)
                    orig[i] = (uint8_t)(i ^ seq);
                ssh_put_u32(orig, (uint32_t)len - 4);
                memcpy(pkt, orig, len);
                assert_int_equal(ssh_cipher_seal(&tx, seq, pkt, len), 0);
                assert_memory_not_equal(pkt + 4, orig + 4, len - 4);
                assert_int_equal(ssh_cipher_open_length(&rx, seq, pkt, &plen), 0);
                assert_int_equal(plen, len - 4);
                assert_int_equal(ssh_cipher_open(&rx, seq, pkt, len), 0);
                assert_memory_equal(pkt, orig, len);
            }
        }
    }
    ssh_cipher_free(&tx);
    ssh_cipher_free(&rx);
}

static void test_tamper_refused(void **state)
{
    const char *const *cn;
    struct ssh_cipher tx, rx;
    uint8_t key[64] = {1}, iv[16] = {2}, mkey[64] = {3}, pkt[128];
    size_t len, pos;
    uint32_t plen;

    (void)state;
    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    for (cn = ssh_cipher_names(); *cn; cn++) {
        const struct ssh_cipher_alg *ca = ssh_cipher_alg_find(*cn);
        const struct ssh_mac_alg *ma = ssh_mac_alg_find("hmac-sha2-256");

        for (pos = 0; pos < 48; pos += 5) {
            ssh_cipher_free(&tx);
            ssh_cipher_free(&rx);
            assert_int_equal(ssh_cipher_init(&tx, ca, ma, key, iv, mkey), 0);
            assert_int_equal(ssh_cipher_init(&rx, ca, ma, key, iv, mkey), 0);
            len = ssh_cipher_len_outside(&tx) ? 36 : 32;
            memset(pkt, 0x41, sizeof(pkt));
            ssh_put_u32(pkt, (uint32_t)len - 4);
            assert_int_equal(ssh_cipher_seal(&tx, 9, pkt, len), 0);
            if (pos >= len + ssh_cipher_tag_len(&tx))
                continue;
            pkt[pos] ^= 0x01;
            ssh_cipher_open_length(&rx, 9, pkt, &plen);
            assert_int_equal(ssh_cipher_open(&rx, 9, pkt, len), -1);
        }
    }
    ssh_cipher_free(&tx);
    ssh_cipher_free(&rx);
}

/* A server with fresh keys in a temporary state directory. */
static struct ssh_server *make_server(char *dir)
{
    struct ssh_server_config cfg = {0};
    char err[128];
    struct ssh_server *s;

    assert_non_null(mkdtemp(dir));
    cfg.state_dir = dir;
    cfg.compat_algorithms = true; /* the client KEXINIT below uses hmac-sha2-256 */
    cfg.users[0].name = "admin";
    s = ssh_server_new(&cfg, err, sizeof(err));
    assert_non_null(s);
    return s;
}

/* Removes the state directory. */
static void remove_state(const char *dir)
{
    char p[256];

    snprintf(p, sizeof(p), "%s/ssh_host_ed25519_key", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/ssh_host_ecdsa_key", dir);
    unlink(p);
    rmdir(dir);
}

/* A clear packet around payload (block 8, padding >= 4) into out; its length. */
static size_t clear_packet(const uint8_t *payload, size_t len, uint8_t *out)
{
    size_t pad = 8 - (5 + len) % 8;

    if (pad < 4)
        pad += 8;
    ssh_put_u32(out, (uint32_t)(1 + len + pad));
    out[4] = (uint8_t)pad;
    memcpy(out + 5, payload, len);
    memset(out + 5 + len, 0, pad);
    return 5 + len + pad;
}

/* A client KEXINIT payload (strict or not) into out; its length. */
static size_t client_kexinit(bool strict, uint8_t *out, size_t cap)
{
    struct ssh_wr wr;

    ssh_wr_init(&wr, out, cap);
    ssh_test_client_kexinit(
        &wr, strict ? "curve25519-sha256,kex-strict-c-v00@openssh.com" : "curve25519-sha256",
        false);
    return wr.len;
}

static void test_first_output(void **state)
{
    char dir[] = "/tmp/pz_ssh_pkt.XXXXXX";
    struct ssh_server *s = make_server(dir);
    struct capture *cap = calloc(1, sizeof(*cap));
    struct ssh_conn *c = ssh_conn_new(s, &cap_ops, cap, 0);
    const char *v = "SSH-2.0-portzero_0.1\r\n";
    uint8_t *p;
    uint32_t plen;

    (void)state;
    assert_non_null(c);
    assert_true(cap->len > strlen(v));
    assert_memory_equal(cap->buf, v, strlen(v));
    p = cap->buf + strlen(v);
    plen = ssh_get_u32(p);
    assert_int_equal((plen + 4) % 8, 0);
    assert_true(p[4] >= 4);
    assert_int_equal(p[5], SSH_MSG_KEXINIT);
    assert_int_equal(cap->len, strlen(v) + 4 + plen);
    assert_non_null(memmem(p, plen, "kex-strict-s-v00@openssh.com", 28));
    assert_null(memmem(p, plen, "cbc", 3));
    assert_null(memmem(p, plen, "sha1", 4));
    ssh_conn_free(c);
    ssh_server_free(s);
    free(cap);
    remove_state(dir);
}

/* A fresh connection that has read the client version. */
static struct ssh_conn *started_conn(struct ssh_server *s, struct capture *cap)
{
    struct ssh_conn *c = ssh_conn_new(s, &cap_ops, cap, 0);
    const char *v = "SSH-2.0-unit\r\n";

    assert_non_null(c);
    assert_int_equal(ssh_conn_input(c, (const uint8_t *)v, strlen(v), 1), strlen(v));
    return c;
}

static void test_length_limits(void **state)
{
    char dir[] = "/tmp/pz_ssh_pkt.XXXXXX";
    struct ssh_server *s = make_server(dir);
    struct capture *cap = calloc(1, sizeof(*cap));
    struct ssh_conn *c = started_conn(s, cap);
    struct ssh_conn_stats st;
    uint8_t *payload = calloc(1, 70000), *pkt = calloc(1, 70100);
    size_t len, i;

    (void)state;
    /* 35000 bytes (RFC 4253 §6.1's minimum), fed in 1000-byte pieces */
    payload[0] = SSH_MSG_IGNORE;
    ssh_put_u32(payload + 1, 35000 - 24);
    len = clear_packet(payload, 35000 - 20, pkt);
    for (i = 0; i < len; i += 1000)
        assert_int_equal(ssh_conn_input(c, pkt + i, len - i < 1000 ? len - i : 1000, 2),
                         len - i < 1000 ? len - i : 1000);
    assert_false(ssh_conn_finished(c));
    /* packet_length 65537: refused */
    ssh_put_u32(pkt, 65537);
    ssh_conn_input(c, pkt, 8, 3);
    assert_true(ssh_conn_finished(c));
    ssh_conn_get_stats(c, &st);
    assert_int_equal(st.disconnect_reason, SSH_DISCONNECT_PROTOCOL_ERROR);
    ssh_conn_free(c);
    ssh_server_free(s);
    free(cap);
    free(payload);
    free(pkt);
    remove_state(dir);
}

static void test_strict_seq_wrap(void **state)
{
    char dir[] = "/tmp/pz_ssh_pkt.XXXXXX";
    struct ssh_server *s = make_server(dir);
    struct capture *cap = calloc(1, sizeof(*cap));
    struct ssh_conn *c = started_conn(s, cap);
    struct ssh_conn_stats st;
    uint8_t payload[512], pkt[600], q[37];
    size_t len;

    (void)state;
    len = client_kexinit(true, payload, sizeof(payload));
    len = clear_packet(payload, len, pkt);
    ssh_conn_input(c, pkt, len, 2);
    assert_false(ssh_conn_finished(c));
    assert_true(c->strict);
    c->rx.seq = UINT32_MAX; /* the next packet wraps the counter */
    q[0] = SSH_MSG_KEX_ECDH_INIT;
    ssh_put_u32(q + 1, 32);
    memset(q + 5, 9, 32);
    len = clear_packet(q, sizeof(q), pkt);
    ssh_conn_input(c, pkt, len, 3);
    assert_true(ssh_conn_finished(c));
    ssh_conn_get_stats(c, &st);
    assert_int_equal(st.disconnect_reason, SSH_DISCONNECT_PROTOCOL_ERROR);
    assert_non_null(strstr(cap->log, "sequence number wrapped"));
    ssh_conn_free(c);
    ssh_server_free(s);
    free(cap);
    remove_state(dir);
}

static void test_nonstrict_allows_ignore_first(void **state)
{
    char dir[] = "/tmp/pz_ssh_pkt.XXXXXX";
    struct ssh_server *s = make_server(dir);
    struct capture *cap = calloc(1, sizeof(*cap));
    struct ssh_conn *c = started_conn(s, cap);
    uint8_t payload[512], pkt[600], ign[6] = {SSH_MSG_IGNORE, 0, 0, 0, 1, 'x'};
    size_t len;

    (void)state;
    len = clear_packet(ign, sizeof(ign), pkt);
    ssh_conn_input(c, pkt, len, 2);
    len = client_kexinit(false, payload, sizeof(payload));
    len = clear_packet(payload, len, pkt);
    ssh_conn_input(c, pkt, len, 3);
    assert_false(ssh_conn_finished(c));
    assert_false(c->strict);
    ssh_conn_free(c);
    ssh_server_free(s);
    free(cap);
    remove_state(dir);
}

/* Index of the last clear packet's message type in cap->buf from off; -1 if none. */
static int last_msg_type(const struct capture *cap, size_t off)
{
    int type = -1;

    while (off + 6 <= cap->len) {
        type = cap->buf[off + 5];
        off += 4 + ssh_get_u32(cap->buf + off);
    }
    return type;
}

/* Waits (poll) for the server's verdict descriptor and delivers the verdicts at now. */
static void wait_verdict(struct ssh_server *s, uint64_t now)
{
    struct pollfd pfd = {.fd = ssh_server_verdict_fd(s), .events = POLLIN};

    assert_true(pfd.fd >= 0);
    assert_int_equal(poll(&pfd, 1, 30000), 1);
    ssh_server_verdicts(s, now);
}

/* A wrong password is verified off the caller's thread (nothing is sent and input is held
 * until the verdict), then answered after the delay; input waits meanwhile. */
static void test_auth_delay_holds_input(void **state)
{
    char dir[] = "/tmp/pz_ssh_pkt.XXXXXX";
    struct ssh_server_config cfg = {0};
    struct capture *cap = calloc(1, sizeof(*cap));
    struct ssh_server *s;
    struct ssh_conn *c;
    uint8_t payload[256], pkt[300], pkt2[300];
    struct ssh_wr wr;
    size_t len, len2, mark;
    char err[128];

    (void)state;
    assert_non_null(mkdtemp(dir));
    cfg.state_dir = dir;
    cfg.users[0].name = "admin";
    cfg.users[0].password_hash = "$6$saltsalt$JcVDtuB6d1BHhCd5RPBh8g8xX/1CbY8EU2PN0MTaj2/"
                                 "Mypw4P./C6dN4j0HALhzBDTocyW1Jm.gYaTPjFGCV40"; /* "test" */
    cfg.auth_fail_delay_ms = 500;
    s = ssh_server_new(&cfg, err, sizeof(err));
    assert_non_null(s);
    c = started_conn(s, cap);
    c->first_kex_done = true; /* clear-text stand-in for a finished key exchange */
    c->kex.sent_kexinit = c->kex.in_progress = false;
    ssh_wr_init(&wr, payload, sizeof(payload));
    ssh_wr_u8(&wr, SSH_MSG_SERVICE_REQUEST);
    ssh_wr_cstring(&wr, "ssh-userauth");
    len = clear_packet(payload, wr.len, pkt);
    assert_int_equal(ssh_conn_input(c, pkt, len, 10), len);
    ssh_wr_init(&wr, payload, sizeof(payload));
    ssh_wr_u8(&wr, SSH_MSG_USERAUTH_REQUEST);
    ssh_wr_cstring(&wr, "admin");
    ssh_wr_cstring(&wr, "ssh-connection");
    ssh_wr_cstring(&wr, "password");
    ssh_wr_u8(&wr, 0);
    ssh_wr_cstring(&wr, "wrong");
    len = clear_packet(payload, wr.len, pkt);
    len2 = clear_packet(payload, wr.len, pkt2);
    mark = cap->len;
    assert_int_equal(ssh_conn_input(c, pkt, len, 20), len);
    assert_int_equal(cap->len, mark); /* no answer yet: the hash runs on a worker */
    assert_int_equal(ssh_conn_input(c, pkt2, len2, 30), 0); /* held while pending */
    assert_int_equal(ssh_conn_next_deadline(c), 120000);    /* only the login grace */
    wait_verdict(s, 20);
    assert_int_equal(cap->len, mark); /* the failure is answered after the delay */
    assert_int_equal(ssh_conn_next_deadline(c), 520);
    assert_int_equal(ssh_conn_input(c, pkt2, len2, 100), 0); /* held back */
    ssh_conn_tick(c, 519);
    assert_int_equal(cap->len, mark);
    ssh_conn_tick(c, 520);
    assert_int_equal(last_msg_type(cap, mark), SSH_MSG_USERAUTH_FAILURE);
    assert_int_equal(ssh_conn_input(c, pkt2, len2, 521), len2); /* taken now */
    assert_false(ssh_conn_finished(c));
    ssh_conn_free(c);
    ssh_server_free(s);
    free(cap);
    remove_state(dir);
}

PZT_MAIN(test_roundtrip_all, test_tamper_refused, test_first_output, test_length_limits,
         test_strict_seq_wrap, test_nonstrict_allows_ignore_first, test_auth_delay_holds_input)
