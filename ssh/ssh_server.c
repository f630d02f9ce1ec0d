/*
 * ssh_server.c - the server object: configuration with its defaults, the
 * random generator (mbedtls CTR_DRBG over the platform entropy), the
 * algorithm lists offered, and the host keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/base64.h>
#include <mbedtls/sha256.h>
#include <sodium.h>

#include "ssh_internal.h"

static const char *const kex_names[] = {"curve25519-sha256", "curve25519-sha256@libssh.org",
                                        "ecdh-sha2-nistp256", NULL};

/* Implemented but offered only with compat_algorithms: ssh-audit fails the NIST curve
 * (its policy distrusts the NIST curves' provenance) and warns on encrypt-and-MAC. */
static const char *const compat_names[] = {"ecdh-sha2-nistp256", "ecdsa-sha2-nistp256",
                                           "hmac-sha2-256", "hmac-sha2-512", NULL};

/* Whether name is in the NULL-terminated list. */
static bool in_list(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name))
            return true;
    return false;
}

/* Random bytes for every use in the library (mbedtls f_rng signature). */
int ssh_random(void *srv, unsigned char *out, size_t len)
{
    struct ssh_server *s = srv;
    size_t n;

    while (len) {
        n = len < MBEDTLS_CTR_DRBG_MAX_REQUEST ? len : MBEDTLS_CTR_DRBG_MAX_REQUEST;
        if (mbedtls_ctr_drbg_random(&s->drbg, out, n) != 0)
            return -1;
        out += n;
        len -= n;
    }
    return 0;
}

/* Fills out (cap entries, NULL-terminated) with the names of supported that the
 * configuration's subset wants (all when want is NULL), without the compat-only ones
 * unless compat; the count. */
static unsigned pick_list(const char **out, unsigned cap, const char *const *supported,
                          const char *const *want, bool compat)
{
    unsigned n = 0, i;

    for (i = 0; supported[i] && n + 1 < cap; i++) {
        if ((want && !in_list(want, supported[i])) ||
            (!compat && in_list(compat_names, supported[i])))
            continue;
        out[n++] = supported[i];
    }
    out[n] = NULL;
    return n;
}

/* Applies the defaults to zero fields. */
static void apply_defaults(struct ssh_server_config *cfg)
{
    if (!cfg->login_grace_ms)
        cfg->login_grace_ms = 120000;
    if (!cfg->max_auth_tries)
        cfg->max_auth_tries = 6;
    if (!cfg->auth_fail_delay_ms)
        cfg->auth_fail_delay_ms = 1000;
    if (!cfg->idle_timeout_ms)
        cfg->idle_timeout_ms = 900000;
    if (!cfg->rekey_bytes)
        cfg->rekey_bytes = 1ull << 30;
    if (!cfg->rekey_interval_ms)
        cfg->rekey_interval_ms = 3600000;
    if (!cfg->pw_workers)
        cfg->pw_workers = 1;
    if (!cfg->pw_queue)
        cfg->pw_queue = 8;
    if (!cfg->backoff_after)
        cfg->backoff_after = 5;
    if (!cfg->backoff_base_ms)
        cfg->backoff_base_ms = 1000;
    if (!cfg->backoff_max_ms)
        cfg->backoff_max_ms = 60000;
    if (!cfg->backoff_forget_ms)
        cfg->backoff_forget_ms = 600000;
    if (!cfg->backoff_table)
        cfg->backoff_table = 256;
}

/* Creates the server: RNG, algorithm lists, host keys. */
struct ssh_server *ssh_server_new(const struct ssh_server_config *config, char *err, size_t errlen)
{
    static const char pers[] = "portzero-ssh";
    struct ssh_server *s;
    unsigned i;

    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium initialisation failed");
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *config;
    apply_defaults(&s->cfg);
    mbedtls_entropy_init(&s->entropy);
    mbedtls_ctr_drbg_init(&s->drbg);
    if (mbedtls_ctr_drbg_seed(&s->drbg, mbedtls_entropy_func, &s->entropy,
                              (const unsigned char *)pers, sizeof(pers) - 1) != 0) {
        snprintf(err, errlen, "random generator seeding failed");
        ssh_server_free(s);
        return NULL;
    }
    bool compat = s->cfg.compat_algorithms;

    if (!pick_list(s->kex_algs, 8, kex_names, s->cfg.kex_algs, compat) ||
        !pick_list(s->ciphers, 8, ssh_cipher_names(), s->cfg.ciphers, compat) ||
        !pick_list(s->macs, 8, ssh_mac_names(), s->cfg.macs, compat) ||
        !pick_list(s->host_algs, 4, ssh_hostkey_names(), s->cfg.host_algs, compat)) {
        snprintf(err, errlen, "no supported algorithm left in a configured list");
        ssh_server_free(s);
        return NULL;
    }
    if (ssh_auth_password_start(s, err, errlen) != 0) {
        ssh_server_free(s);
        return NULL;
    }
    if (!s->cfg.state_dir) {
        snprintf(err, errlen, "no state directory");
        ssh_server_free(s);
        return NULL;
    }
    for (i = 0; s->host_algs[i]; i++) {
        if (ssh_hostkey_load(&s->hostkeys[i], s->host_algs[i], s->cfg.state_dir, ssh_random, s, err,
                             errlen) != 0) {
            ssh_server_free(s);
            return NULL;
        }
        s->n_hostkeys = i + 1;
    }
    return s;
}

/* Frees the server (its connections must be gone). */
void ssh_server_free(struct ssh_server *srv)
{
    unsigned i;

    if (!srv)
        return;
    ssh_auth_password_stop(srv);
    for (i = 0; i < srv->n_hostkeys; i++)
        ssh_hostkey_free(&srv->hostkeys[i]);
    mbedtls_ctr_drbg_free(&srv->drbg);
    mbedtls_entropy_free(&srv->entropy);
    free(srv);
}

/* "SHA256:<base64 without padding>" of a host key's blob, as ssh-keygen -l prints. */
int ssh_server_fingerprint(struct ssh_server *srv, const char *alg, char *out, size_t outlen)
{
    uint8_t hash[32];
    unsigned char b64[64];
    size_t n = 0;
    unsigned i;

    for (i = 0; i < srv->n_hostkeys; i++) {
        if (strcmp(srv->hostkeys[i].alg, alg) != 0)
            continue;
        mbedtls_sha256_ret(srv->hostkeys[i].blob, srv->hostkeys[i].blob_len, hash, 0);
        if (mbedtls_base64_encode(b64, sizeof(b64), &n, hash, sizeof(hash)) != 0)
            return -1;
        while (n && b64[n - 1] == '=')
            n--;
        b64[n] = 0;
        return snprintf(out, outlen, "SHA256:%s", b64) < (int)outlen ? 0 : -1;
    }
    return -1;
}
