/*
 * ssh_kex.c - key exchange (RFC 4253 §7-8): KEXINIT and algorithm
 * negotiation, ECDH with curve25519-sha256 (RFC 8731; also under its
 * libssh.org name) and ecdh-sha2-nistp256 (RFC 5656 §4) on mbedtls, the
 * exchange hash and its host key signature, key derivation (RFC 4253 §7.2),
 * NEWKEYS, strict KEX (openssh PROTOCOL "kex-strict-s-v00@openssh.com"),
 * EXT_INFO with server-sig-algs (RFC 8308) and re-keying.
 */
#include <stdlib.h>
#include <string.h>

#include <mbedtls/ecdh.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/sha256.h>

#include "ssh_internal.h"
#include "ssh_userkey.h"

#define KEX_STRICT_S "kex-strict-s-v00@openssh.com"
#define KEX_STRICT_C "kex-strict-c-v00@openssh.com"
#define EXT_INFO_C "ext-info-c"

/* Appends the NULL-terminated list as a comma-separated name-list. */
static void wr_namelist(struct ssh_wr *wr, const char *const *names, const char *extra)
{
    char buf[1024];
    size_t len = 0, n, i;

    buf[0] = 0;
    for (i = 0; names[i]; i++) {
        n = strlen(names[i]);
        if (len + n + 2 >= sizeof(buf))
            break;
        if (len)
            buf[len++] = ',';
        memcpy(buf + len, names[i], n + 1);
        len += n;
    }
    if (extra && len + strlen(extra) + 2 < sizeof(buf)) {
        if (len)
            buf[len++] = ',';
        strcpy(buf + len, extra);
        len += strlen(extra);
    }
    ssh_wr_string(wr, buf, len);
}

/* Sends our KEXINIT and keeps a copy for the exchange hash; 0 on success. */
int ssh_kex_send_kexinit(struct ssh_conn *c)
{
    static const char *const none[] = {"none", NULL};
    static const char *const empty[] = {NULL};
    struct ssh_server *s = c->srv;
    uint8_t buf[2048];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_KEXINIT);
    if (ssh_random(s, buf + 1, 16) != 0)
        return -1;
    wr.len += 16;
    wr_namelist(&wr, s->kex_algs, c->first_kex_done ? NULL : KEX_STRICT_S);
    wr_namelist(&wr, s->host_algs, NULL);
    wr_namelist(&wr, s->ciphers, NULL);
    wr_namelist(&wr, s->ciphers, NULL);
    wr_namelist(&wr, s->macs, NULL);
    wr_namelist(&wr, s->macs, NULL);
    wr_namelist(&wr, none, NULL);
    wr_namelist(&wr, none, NULL);
    wr_namelist(&wr, empty, NULL);
    wr_namelist(&wr, empty, NULL);
    ssh_wr_u8(&wr, 0);
    ssh_wr_u32(&wr, 0);
    if (wr.err)
        return -1;
    free(c->kex.my_kexinit);
    c->kex.my_kexinit = malloc(wr.len);
    if (!c->kex.my_kexinit)
        return -1;
    memcpy(c->kex.my_kexinit, buf, wr.len);
    c->kex.my_len = wr.len;
    c->kex.sent_kexinit = true;
    c->kex.in_progress = true;
    return ssh_send_now(c, buf, wr.len);
}

/* The ten name-lists of a KEXINIT. */
struct kexinit_lists {
    const uint8_t *l[10];
    size_t n[10];
    bool follows;
};

/* Parses a KEXINIT payload (after the type byte); 0 on success. */
static int parse_kexinit(const uint8_t *p, size_t len, struct kexinit_lists *kl)
{
    struct ssh_rd rd;
    int i;

    ssh_rd_init(&rd, p, len);
    for (i = 0; i < 16; i++)
        ssh_rd_u8(&rd);
    for (i = 0; i < 10; i++)
        kl->l[i] = ssh_rd_string(&rd, &kl->n[i]);
    kl->follows = ssh_rd_bool(&rd);
    ssh_rd_u32(&rd);
    return rd.err ? -1 : 0;
}

/* Length of the first name of a list. */
static size_t first_len(const uint8_t *l, size_t n)
{
    const uint8_t *comma = memchr(l, ',', n);

    return comma ? (size_t)(comma - l) : n;
}

/* True if the first name of list l is name. */
static bool first_is(const uint8_t *l, size_t n, const char *name)
{
    return first_len(l, n) == strlen(name) && memcmp(l, name, strlen(name)) == 0;
}

/* Chooses the algorithms (RFC 4253 §7.1); NULL, or the name of what has no match. */
static const char *negotiate(struct ssh_conn *c, const struct kexinit_lists *kl)
{
    static const char *const none[] = {"none", NULL};
    struct ssh_server *s = c->srv;
    struct ssh_algs *a = &c->kex.algs;
    const char *name;

    a->kex = ssh_namelist_pick(kl->l[0], kl->n[0], s->kex_algs);
    if (!a->kex)
        return "key exchange";
    a->hostkey = ssh_namelist_pick(kl->l[1], kl->n[1], s->host_algs);
    if (!a->hostkey)
        return "host key";
    if (!(name = ssh_namelist_pick(kl->l[2], kl->n[2], s->ciphers)))
        return "cipher";
    a->cipher_in = ssh_cipher_alg_find(name);
    if (!(name = ssh_namelist_pick(kl->l[3], kl->n[3], s->ciphers)))
        return "cipher";
    a->cipher_out = ssh_cipher_alg_find(name);
    a->mac_in = a->mac_out = NULL;
    if (a->cipher_in->mode == SSH_MODE_CTR) {
        if (!(name = ssh_namelist_pick(kl->l[4], kl->n[4], s->macs)))
            return "MAC";
        a->mac_in = ssh_mac_alg_find(name);
    }
    if (a->cipher_out->mode == SSH_MODE_CTR) {
        if (!(name = ssh_namelist_pick(kl->l[5], kl->n[5], s->macs)))
            return "MAC";
        a->mac_out = ssh_mac_alg_find(name);
    }
    if (!ssh_namelist_pick(kl->l[6], kl->n[6], none) ||
        !ssh_namelist_pick(kl->l[7], kl->n[7], none))
        return "compression";
    c->kex.ignore_guess = kl->follows && !(first_is(kl->l[0], kl->n[0], a->kex) &&
                                           first_is(kl->l[1], kl->n[1], a->hostkey));
    return NULL;
}

/* Handles the peer's KEXINIT. */
static void got_kexinit(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    struct kexinit_lists kl;
    const char *missing;

    if (c->kex.got_kexinit || len > SSH_KEXINIT_MAX || parse_kexinit(p + 1, len - 1, &kl) != 0) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad KEXINIT");
        return;
    }
    if (!c->first_kex_done) {
        c->strict = ssh_namelist_has(kl.l[0], kl.n[0], KEX_STRICT_C);
        c->ext_info_c = ssh_namelist_has(kl.l[0], kl.n[0], EXT_INFO_C);
        if (c->strict && c->rx_packets != 1) {
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR,
                                "strict KEX: KEXINIT was not the first packet");
            return;
        }
    }
    free(c->kex.peer_kexinit);
    c->kex.peer_kexinit = malloc(len);
    if (!c->kex.peer_kexinit) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_BY_APPLICATION, "out of memory");
        return;
    }
    memcpy(c->kex.peer_kexinit, p, len);
    c->kex.peer_len = len;
    c->kex.got_kexinit = true;
    c->kex.in_progress = true;
    if (!c->kex.sent_kexinit && ssh_kex_send_kexinit(c) != 0) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_BY_APPLICATION, "cannot send KEXINIT");
        return;
    }
    missing = negotiate(c, &kl);
    if (missing) {
        ssh_log(c, SSH_LOG_INFO, "no common %s algorithm", missing);
        ssh_conn_disconnect(c, SSH_DISCONNECT_KEY_EXCHANGE_FAILED, "no matching algorithm");
    }
}

/* Our ephemeral ECDH: Q_S and the shared secret K (big-endian magnitude) from Q_C;
 * 0 on success. */
static int ecdh_compute(struct ssh_conn *c, const uint8_t *qc, size_t qc_len, uint8_t *qs,
                        size_t *qs_len, uint8_t *k, size_t *k_len)
{
    bool x25519 = strncmp(c->kex.algs.kex, "curve25519", 10) == 0;
    mbedtls_ecp_group grp;
    mbedtls_ecp_point q, qp;
    mbedtls_mpi d, z;
    size_t i;
    uint8_t nz = 0;
    int rc = -1;

    if (qc_len != (x25519 ? 32u : 65u))
        return -1;
    mbedtls_ecp_group_init(&grp);
    mbedtls_ecp_point_init(&q);
    mbedtls_ecp_point_init(&qp);
    mbedtls_mpi_init(&d);
    mbedtls_mpi_init(&z);
    if (mbedtls_ecp_group_load(&grp, x25519 ? MBEDTLS_ECP_DP_CURVE25519
                                            : MBEDTLS_ECP_DP_SECP256R1) != 0 ||
        mbedtls_ecdh_gen_public(&grp, &d, &q, ssh_random, c->srv) != 0 ||
        mbedtls_ecp_point_write_binary(&grp, &q, MBEDTLS_ECP_PF_UNCOMPRESSED, qs_len, qs, 65) !=
            0 ||
        mbedtls_ecp_point_read_binary(&grp, &qp, qc, qc_len) != 0 ||
        mbedtls_ecp_check_pubkey(&grp, &qp) != 0 ||
        mbedtls_ecdh_compute_shared(&grp, &z, &qp, &d, ssh_random, c->srv) != 0)
        goto out;
    /* X25519's output is little-endian bytes; SSH hashes those bytes as a big-endian
     * mpint (RFC 8731 §3.1).  P-256: the x coordinate, big-endian. */
    if ((x25519 ? mbedtls_mpi_write_binary_le(&z, k, 32) : mbedtls_mpi_write_binary(&z, k, 32)) !=
        0)
        goto out;
    for (i = 0; i < 32; i++)
        nz |= k[i];
    *k_len = 32;
    rc = nz ? 0 : -1;
out:
    mbedtls_ecp_group_free(&grp);
    mbedtls_ecp_point_free(&q);
    mbedtls_ecp_point_free(&qp);
    mbedtls_mpi_free(&d);
    mbedtls_mpi_free(&z);
    return rc;
}

/* One derived key (RFC 4253 §7.2): HASH(K || H || letter || session_id), extended. */
static void derive(const uint8_t *kmp, size_t kmp_len, const uint8_t h[32], char letter,
                   const uint8_t sid[32], uint8_t *out, size_t need)
{
    mbedtls_sha256_context sha;
    uint8_t block[64 + 32];
    size_t have = 0;

    while (have < need) {
        mbedtls_sha256_init(&sha);
        mbedtls_sha256_starts_ret(&sha, 0);
        mbedtls_sha256_update_ret(&sha, kmp, kmp_len);
        mbedtls_sha256_update_ret(&sha, h, 32);
        if (have == 0) {
            mbedtls_sha256_update_ret(&sha, (const uint8_t *)&letter, 1);
            mbedtls_sha256_update_ret(&sha, sid, 32);
        } else {
            mbedtls_sha256_update_ret(&sha, block, have);
        }
        mbedtls_sha256_finish_ret(&sha, block + have);
        mbedtls_sha256_free(&sha);
        have += 32;
    }
    memcpy(out, block, need);
    mbedtls_platform_zeroize(block, sizeof(block));
}

/* Keys of one direction. */
struct dir_keys {
    uint8_t iv[32], key[64], mac[64];
};

/* Derives both directions' keys from K (mpint) and H. */
static void derive_all(struct ssh_conn *c, const uint8_t *kmp, size_t kmp_len, const uint8_t h[32],
                       struct dir_keys *in, struct dir_keys *out)
{
    const struct ssh_algs *a = &c->kex.algs;

    derive(kmp, kmp_len, h, 'A', c->session_id, in->iv, a->cipher_in->iv_len);
    derive(kmp, kmp_len, h, 'B', c->session_id, out->iv, a->cipher_out->iv_len);
    derive(kmp, kmp_len, h, 'C', c->session_id, in->key, a->cipher_in->key_len);
    derive(kmp, kmp_len, h, 'D', c->session_id, out->key, a->cipher_out->key_len);
    if (a->mac_in)
        derive(kmp, kmp_len, h, 'E', c->session_id, in->mac, a->mac_in->key_len);
    if (a->mac_out)
        derive(kmp, kmp_len, h, 'F', c->session_id, out->mac, a->mac_out->key_len);
}

/* The host key of the negotiated algorithm. */
static struct ssh_hostkey *chosen_hostkey(struct ssh_conn *c)
{
    unsigned i;

    for (i = 0; i < c->srv->n_hostkeys; i++)
        if (strcmp(c->srv->hostkeys[i].alg, c->kex.algs.hostkey) == 0)
            return &c->srv->hostkeys[i];
    return NULL;
}

/* Sends EXT_INFO with server-sig-algs (RFC 8308 §3.1). */
static void send_ext_info(struct ssh_conn *c)
{
    uint8_t buf[256];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_EXT_INFO);
    ssh_wr_u32(&wr, 1);
    ssh_wr_cstring(&wr, "server-sig-algs");
    wr_namelist(&wr, ssh_userkey_algs(), NULL);
    if (!wr.err)
        ssh_send_now(c, buf, wr.len);
}

/* The exchange hash H (RFC 5656 §4, RFC 8731 §3) into h; 0 on success. */
static int exchange_hash(struct ssh_conn *c, const struct ssh_hostkey *hk, const uint8_t *qc,
                         size_t qc_len, const uint8_t *qs, size_t qs_len, const uint8_t *kmp,
                         size_t kmp_len, uint8_t h[32])
{
    size_t cap = 4096 + c->kex.my_len + c->kex.peer_len;
    uint8_t *buf = malloc(cap);
    struct ssh_wr wr;
    int rc = -1;

    if (!buf)
        return -1;
    ssh_wr_init(&wr, buf, cap);
    ssh_wr_cstring(&wr, c->peer_version);
    ssh_wr_cstring(&wr, SSH_VERSION_LINE);
    ssh_wr_string(&wr, c->kex.peer_kexinit, c->kex.peer_len);
    ssh_wr_string(&wr, c->kex.my_kexinit, c->kex.my_len);
    ssh_wr_string(&wr, hk->blob, hk->blob_len);
    ssh_wr_string(&wr, qc, qc_len);
    ssh_wr_string(&wr, qs, qs_len);
    ssh_wr_bytes(&wr, kmp, kmp_len);
    if (!wr.err && mbedtls_sha256_ret(buf, wr.len, h, 0) == 0)
        rc = 0;
    mbedtls_platform_zeroize(buf, cap);
    free(buf);
    return rc;
}

/* Switches our output to the new keys after sending NEWKEYS; 0 on success. */
static int switch_output(struct ssh_conn *c, struct dir_keys *out)
{
    const struct ssh_algs *a = &c->kex.algs;

    if (ssh_cipher_init(&c->tx.c, a->cipher_out, a->mac_out, out->key, out->iv, out->mac) != 0)
        return -1;
    if (c->strict)
        c->tx.seq = 0;
    c->tx.bytes = 0;
    c->kex.sent_newkeys = true;
    return 0;
}

/* Handles KEX_ECDH_INIT: reply, NEWKEYS, new output keys. */
static void got_ecdh_init(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    struct ssh_hostkey *hk = chosen_hostkey(c);
    struct ssh_rd rd;
    const uint8_t *qc;
    size_t qc_len, qs_len = 0, k_len = 0;
    uint8_t qs[65], k[32], kmp_buf[40], h[32], reply[1024];
    struct ssh_wr kmp, wr;
    struct dir_keys in, out;
    uint8_t newkeys = SSH_MSG_NEWKEYS;

    ssh_rd_init(&rd, p + 1, len - 1);
    qc = ssh_rd_string(&rd, &qc_len);
    if (!qc || !ssh_rd_end(&rd) || !hk ||
        ecdh_compute(c, qc, qc_len, qs, &qs_len, k, &k_len) != 0) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_KEY_EXCHANGE_FAILED, "bad ECDH public key");
        return;
    }
    ssh_wr_init(&kmp, kmp_buf, sizeof(kmp_buf));
    ssh_wr_mpint(&kmp, k, k_len);
    if (exchange_hash(c, hk, qc, qc_len, qs, qs_len, kmp_buf, kmp.len, h) != 0)
        goto fail;
    if (!c->first_kex_done)
        memcpy(c->session_id, h, 32);
    ssh_wr_init(&wr, reply, sizeof(reply));
    ssh_wr_u8(&wr, SSH_MSG_KEX_ECDH_REPLY);
    ssh_wr_string(&wr, hk->blob, hk->blob_len);
    ssh_wr_string(&wr, qs, qs_len);
    if (ssh_hostkey_sign(hk, h, 32, &wr, ssh_random, c->srv) != 0 || wr.err)
        goto fail;
    derive_all(c, kmp_buf, kmp.len, h, &in, &out);
    if (ssh_send_now(c, reply, wr.len) != 0 || ssh_send_now(c, &newkeys, 1) != 0 ||
        switch_output(c, &out) != 0)
        goto fail;
    memcpy(&c->kex.next_in.key, in.key, sizeof(in.key));
    memcpy(&c->kex.next_in.iv, in.iv, sizeof(c->kex.next_in.iv));
    memcpy(c->kex.next_mac, in.mac, sizeof(in.mac));
    if (!c->first_kex_done && c->ext_info_c)
        send_ext_info(c);
    ssh_send_deferred(c);
    mbedtls_platform_zeroize(&in, sizeof(in));
    mbedtls_platform_zeroize(&out, sizeof(out));
    mbedtls_platform_zeroize(k, sizeof(k));
    mbedtls_platform_zeroize(kmp_buf, sizeof(kmp_buf));
    return;
fail:
    mbedtls_platform_zeroize(&in, sizeof(in));
    mbedtls_platform_zeroize(&out, sizeof(out));
    mbedtls_platform_zeroize(k, sizeof(k));
    mbedtls_platform_zeroize(kmp_buf, sizeof(kmp_buf));
    ssh_conn_disconnect(c, SSH_DISCONNECT_KEY_EXCHANGE_FAILED, "key exchange failed");
}

/* Handles the peer's NEWKEYS: new input keys; the exchange is over. */
static void got_newkeys(struct ssh_conn *c)
{
    const struct ssh_algs *a = &c->kex.algs;
    int rc;

    if (!c->kex.sent_newkeys) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "unexpected NEWKEYS");
        return;
    }
    rc = ssh_cipher_init(&c->rx.c, a->cipher_in, a->mac_in, c->kex.next_in.key, c->kex.next_in.iv,
                         c->kex.next_mac);
    mbedtls_platform_zeroize(&c->kex.next_in, sizeof(c->kex.next_in));
    mbedtls_platform_zeroize(c->kex.next_mac, sizeof(c->kex.next_mac));
    if (rc != 0) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_KEY_EXCHANGE_FAILED, "cipher setup failed");
        return;
    }
    if (c->strict)
        c->rx.seq = 0;
    c->rx.bytes = 0;
    free(c->kex.my_kexinit);
    free(c->kex.peer_kexinit);
    c->kex.my_kexinit = c->kex.peer_kexinit = NULL;
    c->kex.sent_kexinit = c->kex.got_kexinit = c->kex.sent_newkeys = false;
    c->kex.in_progress = false;
    c->first_kex_done = true;
    c->kex_done++;
    c->kex_time = c->now;
    ssh_log(c, SSH_LOG_INFO, "key exchange %u done: %s %s %s %s", c->kex_done, a->kex, a->hostkey,
            a->cipher_in->name, a->mac_in ? a->mac_in->name : "(aead)");
    ssh_channel_wake_writers(c);
}

/* Dispatches a key exchange message (KEXINIT, NEWKEYS, ECDH_INIT). */
void ssh_kex_message(struct ssh_conn *c, uint8_t type, const uint8_t *p, size_t len)
{
    if (type == SSH_MSG_KEXINIT) {
        got_kexinit(c, p, len);
        return;
    }
    if (!c->kex.got_kexinit) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "key exchange message out of order");
        return;
    }
    /* RFC 4253 §7: a wrongly guessed first packet is ignored, whichever method it is of */
    if (type >= SSH_MSG_KEX_ECDH_INIT && c->kex.ignore_guess) {
        c->kex.ignore_guess = false;
        return;
    }
    if (type == SSH_MSG_KEX_ECDH_INIT && !c->kex.sent_newkeys)
        got_ecdh_init(c, p, len);
    else if (type == SSH_MSG_NEWKEYS && len == 1)
        got_newkeys(c);
    else
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "key exchange message out of order");
}

/* Starts a re-key when the byte or time limit is reached. */
void ssh_kex_maybe_rekey(struct ssh_conn *c)
{
    const struct ssh_server_config *cfg = &c->srv->cfg;

    if (!c->first_kex_done || c->kex.in_progress || c->finished)
        return;
    if (c->rx.bytes < cfg->rekey_bytes && c->tx.bytes < cfg->rekey_bytes &&
        c->now - c->kex_time < cfg->rekey_interval_ms)
        return;
    ssh_log(c, SSH_LOG_INFO, "re-keying (limit reached)");
    if (ssh_kex_send_kexinit(c) != 0)
        ssh_conn_disconnect(c, SSH_DISCONNECT_BY_APPLICATION, "cannot send KEXINIT");
}

/* Frees what a key exchange holds. */
void ssh_kex_free(struct ssh_conn *c)
{
    free(c->kex.my_kexinit);
    free(c->kex.peer_kexinit);
    c->kex.my_kexinit = c->kex.peer_kexinit = NULL;
    mbedtls_platform_zeroize(&c->kex.next_in, sizeof(c->kex.next_in));
    mbedtls_platform_zeroize(c->kex.next_mac, sizeof(c->kex.next_mac));
}
