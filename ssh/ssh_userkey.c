/*
 * ssh_userkey.c - verifying users' signatures.
 */
#include <string.h>

#include <mbedtls/ecdsa.h>
#include <mbedtls/rsa.h>
#include <mbedtls/sha256.h>
#include <mbedtls/sha512.h>
#include <sodium.h>

#include "ssh_userkey.h"
#include "ssh_wire.h"

static const char *const userkey_algs[] = {"ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512",
                                           "rsa-sha2-256", NULL};

/* The accepted user key algorithms, NULL-terminated. */
const char *const *ssh_userkey_algs(void)
{
    return userkey_algs;
}

/* RSA moduli outside this range are refused (OpenSSH's minimum is 1024; 2048 is the
 * NIST floor; 8192 bounds the verification cost). */
#define RSA_MIN_BYTES 256
#define RSA_MAX_BYTES 1024

/* The key type a signature algorithm uses. */
static const char *key_type_of(const char *alg)
{
    if (strcmp(alg, "rsa-sha2-256") == 0 || strcmp(alg, "rsa-sha2-512") == 0)
        return "ssh-rsa";
    return alg;
}

/* True if alg is accepted and fits the blob's key type. */
bool ssh_userkey_alg_fits(const char *alg, const uint8_t *blob, size_t blob_len)
{
    struct ssh_rd rd;
    size_t i;

    for (i = 0; userkey_algs[i]; i++)
        if (strcmp(userkey_algs[i], alg) == 0)
            break;
    if (!userkey_algs[i])
        return false;
    ssh_rd_init(&rd, blob, blob_len);
    return ssh_rd_string_is(&rd, key_type_of(alg));
}

/* The signature bytes inside an SSH signature blob named alg. */
static const uint8_t *sig_body(const char *alg, const uint8_t *sig, size_t sig_len, size_t *len)
{
    struct ssh_rd rd;
    const uint8_t *p;

    ssh_rd_init(&rd, sig, sig_len);
    if (!ssh_rd_string_is(&rd, alg))
        return NULL;
    p = ssh_rd_string(&rd, len);
    return ssh_rd_end(&rd) ? p : NULL;
}

/* Ed25519 (RFC 8709): blob = string type, string A (32); sig = 64 bytes. */
static int verify_ed25519(struct ssh_rd *key, const uint8_t *sig, size_t slen, const uint8_t *data,
                          size_t dlen)
{
    size_t alen;
    const uint8_t *a = ssh_rd_string(key, &alen);

    if (!a || !ssh_rd_end(key) || alen != 32 || slen != 64)
        return -1;
    return crypto_sign_verify_detached(sig, data, dlen, a) == 0 ? 0 : -1;
}

/* ECDSA P-256 (RFC 5656 §3.1): blob = type, "nistp256", Q; sig = mpint r, mpint s over
 * SHA-256(data). */
static int verify_ecdsa(struct ssh_rd *key, const uint8_t *sig, size_t slen, const uint8_t *data,
                        size_t dlen)
{
    mbedtls_ecp_group grp;
    mbedtls_ecp_point q;
    mbedtls_mpi r, s;
    struct ssh_rd srd;
    const uint8_t *qb, *rb, *sb;
    size_t qlen, rlen, sblen;
    uint8_t hash[32];
    int rc = -1;

    if (!ssh_rd_string_is(key, "nistp256"))
        return -1;
    qb = ssh_rd_string(key, &qlen);
    ssh_rd_init(&srd, sig, slen);
    rb = ssh_rd_mpint(&srd, &rlen);
    sb = ssh_rd_mpint(&srd, &sblen);
    if (!qb || !ssh_rd_end(key) || !rb || !sb || !ssh_rd_end(&srd) || rlen > 32 || sblen > 32)
        return -1;
    mbedtls_ecp_group_init(&grp);
    mbedtls_ecp_point_init(&q);
    mbedtls_mpi_init(&r);
    mbedtls_mpi_init(&s);
    if (mbedtls_ecp_group_load(&grp, MBEDTLS_ECP_DP_SECP256R1) == 0 &&
        mbedtls_ecp_point_read_binary(&grp, &q, qb, qlen) == 0 &&
        mbedtls_ecp_check_pubkey(&grp, &q) == 0 && mbedtls_mpi_read_binary(&r, rb, rlen) == 0 &&
        mbedtls_mpi_read_binary(&s, sb, sblen) == 0 &&
        mbedtls_sha256_ret(data, dlen, hash, 0) == 0 &&
        mbedtls_ecdsa_verify(&grp, hash, sizeof(hash), &q, &r, &s) == 0)
        rc = 0;
    mbedtls_ecp_group_free(&grp);
    mbedtls_ecp_point_free(&q);
    mbedtls_mpi_free(&r);
    mbedtls_mpi_free(&s);
    return rc;
}

/* RSA PKCS#1 v1.5 (RFC 8332): blob = "ssh-rsa", mpint e, mpint n; sig = the signature,
 * left-padded to the modulus length when shorter. */
static int verify_rsa(const char *alg, struct ssh_rd *key, const uint8_t *sig, size_t slen,
                      const uint8_t *data, size_t dlen)
{
    int sha512 = strcmp(alg, "rsa-sha2-512") == 0;
    mbedtls_rsa_context rsa;
    const uint8_t *e, *n;
    size_t elen, nlen;
    uint8_t hash[64], padded[RSA_MAX_BYTES];
    int rc = -1;

    e = ssh_rd_mpint(key, &elen);
    n = ssh_rd_mpint(key, &nlen);
    if (!e || !n || !ssh_rd_end(key) || nlen < RSA_MIN_BYTES || nlen > RSA_MAX_BYTES ||
        slen > nlen || elen == 0 || elen > 8)
        return -1;
    memset(padded, 0, nlen - slen);
    memcpy(padded + (nlen - slen), sig, slen);
    if (sha512)
        mbedtls_sha512_ret(data, dlen, hash, 0);
    else
        mbedtls_sha256_ret(data, dlen, hash, 0);
    mbedtls_rsa_init(&rsa, MBEDTLS_RSA_PKCS_V15, 0);
    if (mbedtls_rsa_import_raw(&rsa, n, nlen, NULL, 0, NULL, 0, NULL, 0, e, elen) == 0 &&
        mbedtls_rsa_complete(&rsa) == 0 && mbedtls_rsa_check_pubkey(&rsa) == 0 &&
        mbedtls_rsa_pkcs1_verify(&rsa, NULL, NULL, MBEDTLS_RSA_PUBLIC,
                                 sha512 ? MBEDTLS_MD_SHA512 : MBEDTLS_MD_SHA256, 0, hash,
                                 padded) == 0)
        rc = 0;
    mbedtls_rsa_free(&rsa);
    return rc;
}

/* Verifies sig over data with blob's key under alg; 0 if valid. */
int ssh_userkey_verify(const char *alg, const uint8_t *blob, size_t blob_len, const uint8_t *sig,
                       size_t sig_len, const uint8_t *data, size_t data_len)
{
    struct ssh_rd key;
    const uint8_t *body;
    size_t body_len, type_len;

    if (!ssh_userkey_alg_fits(alg, blob, blob_len))
        return -1;
    body = sig_body(alg, sig, sig_len, &body_len);
    if (!body)
        return -1;
    ssh_rd_init(&key, blob, blob_len);
    ssh_rd_string(&key, &type_len); /* the key type, checked by ssh_userkey_alg_fits */
    if (strcmp(alg, "ssh-ed25519") == 0)
        return verify_ed25519(&key, body, body_len, data, data_len);
    if (strcmp(alg, "ecdsa-sha2-nistp256") == 0)
        return verify_ecdsa(&key, body, body_len, data, data_len);
    return verify_rsa(alg, &key, body, body_len, data, data_len);
}
