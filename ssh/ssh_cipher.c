/*
 * ssh_cipher.c - per-direction packet protection on mbedtls primitives.
 *
 * chacha20-poly1305@openssh.com (openssh PROTOCOL.chacha20poly1305) is
 * built from mbedtls' ChaCha20 and Poly1305, not from mbedtls_chachapoly
 * (the RFC 8439 AEAD is a different construction): the 64-byte key is K_2
 * (payload, Poly1305 key) then K_1 (length); the nonce is the sequence number
 * as a 64-bit big-endian value, which in RFC 8439's 96-bit nonce is 4 zero
 * bytes followed by it.  aes-gcm@openssh.com follows openssh PROTOCOL §1.6:
 * the length is AAD, the 12-byte IV's last 8 bytes count packets.
 */
#include <string.h>

#include <mbedtls/chacha20.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/poly1305.h>

#include "ssh_cipher.h"
#include "ssh_wire.h"

static const struct ssh_cipher_alg cipher_algs[] = {
    {"chacha20-poly1305@openssh.com", SSH_MODE_CHACHAPOLY, 64, 0, 8},
    {"aes256-gcm@openssh.com", SSH_MODE_GCM, 32, 12, 16},
    {"aes128-gcm@openssh.com", SSH_MODE_GCM, 16, 12, 16},
    {"aes256-ctr", SSH_MODE_CTR, 32, 16, 16},
    {"aes128-ctr", SSH_MODE_CTR, 16, 16, 16},
};

static const struct ssh_mac_alg mac_algs[] = {
    {"hmac-sha2-256-etm@openssh.com", MBEDTLS_MD_SHA256, 32, 32, true},
    {"hmac-sha2-512-etm@openssh.com", MBEDTLS_MD_SHA512, 64, 64, true},
    {"hmac-sha2-256", MBEDTLS_MD_SHA256, 32, 32, false},
    {"hmac-sha2-512", MBEDTLS_MD_SHA512, 64, 64, false},
};

static const char *const cipher_names[] = {"chacha20-poly1305@openssh.com",
                                           "aes256-gcm@openssh.com",
                                           "aes128-gcm@openssh.com",
                                           "aes256-ctr",
                                           "aes128-ctr",
                                           NULL};
static const char *const mac_names[] = {"hmac-sha2-256-etm@openssh.com",
                                        "hmac-sha2-512-etm@openssh.com", "hmac-sha2-256",
                                        "hmac-sha2-512", NULL};

/* The cipher names, NULL-terminated (a function: no exported arrays). */
const char *const *ssh_cipher_names(void)
{
    return cipher_names;
}

/* The MAC names, NULL-terminated. */
const char *const *ssh_mac_names(void)
{
    return mac_names;
}

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The cipher named name, or NULL. */
const struct ssh_cipher_alg *ssh_cipher_alg_find(const char *name)
{
    size_t i;

    for (i = 0; i < N_ELEM(cipher_algs); i++)
        if (strcmp(cipher_algs[i].name, name) == 0)
            return &cipher_algs[i];
    return NULL;
}

/* The MAC named name, or NULL. */
const struct ssh_mac_alg *ssh_mac_alg_find(const char *name)
{
    size_t i;

    for (i = 0; i < N_ELEM(mac_algs); i++)
        if (strcmp(mac_algs[i].name, name) == 0)
            return &mac_algs[i];
    return NULL;
}

/* Sets up one direction; 0 on success, -1 on an mbedtls failure. */
int ssh_cipher_init(struct ssh_cipher *c, const struct ssh_cipher_alg *alg,
                    const struct ssh_mac_alg *mac, const uint8_t *key, const uint8_t *iv,
                    const uint8_t *mac_key)
{
    ssh_cipher_free(c);
    c->alg = alg;
    memcpy(c->key, key, alg->key_len);
    if (alg->iv_len)
        memcpy(c->iv, iv, alg->iv_len);
    if (alg->mode == SSH_MODE_GCM &&
        mbedtls_gcm_setkey(&c->gcm, MBEDTLS_CIPHER_ID_AES, key, alg->key_len * 8) != 0)
        return -1;
    if (alg->mode == SSH_MODE_CTR) {
        if (mbedtls_aes_setkey_enc(&c->aes, key, alg->key_len * 8) != 0)
            return -1;
        c->mac = mac;
        if (mbedtls_md_setup(&c->hmac, mbedtls_md_info_from_type(mac->md), 1) != 0 ||
            mbedtls_md_hmac_starts(&c->hmac, mac_key, mac->key_len) != 0)
            return -1;
    }
    return 0;
}

/* Wipes the keys and returns c to the clear state. */
void ssh_cipher_free(struct ssh_cipher *c)
{
    if (c->alg && c->alg->mode == SSH_MODE_CTR)
        mbedtls_md_free(&c->hmac);
    if (c->alg) {
        mbedtls_aes_free(&c->aes);
        mbedtls_gcm_free(&c->gcm);
    }
    mbedtls_platform_zeroize(c, sizeof(*c));
    mbedtls_aes_init(&c->aes);
    mbedtls_gcm_init(&c->gcm);
    mbedtls_md_init(&c->hmac);
}

/* The padding unit: the cipher's block, at least 8 (RFC 4253 §6). */
unsigned ssh_cipher_block(const struct ssh_cipher *c)
{
    return c->alg ? c->alg->block : 8;
}

/* True if the length field is not part of the padded, encrypted span. */
bool ssh_cipher_len_outside(const struct ssh_cipher *c)
{
    if (!c->alg)
        return false;
    return c->alg->mode != SSH_MODE_CTR || c->mac->etm;
}

/* Tag or MAC length. */
unsigned ssh_cipher_tag_len(const struct ssh_cipher *c)
{
    if (!c->alg)
        return 0;
    return c->alg->mode == SSH_MODE_CTR ? c->mac->len : 16;
}

/* Bytes needed to learn the length: a whole block for CTR encrypt-and-MAC. */
unsigned ssh_cipher_len_need(const struct ssh_cipher *c)
{
    if (c->alg && c->alg->mode == SSH_MODE_CTR && !c->mac->etm)
        return c->alg->block;
    return 4;
}

/* The 12-byte RFC 8439 nonce for sequence number seq. */
static void chacha_nonce(uint32_t seq, uint8_t nonce[12])
{
    memset(nonce, 0, 12);
    ssh_put_u32(nonce + 8, seq);
}

/* The Poly1305 tag of pkt (len bytes) under K_2's first keystream block. */
static int chacha_tag(const struct ssh_cipher *c, const uint8_t nonce[12], const uint8_t *pkt,
                      size_t len, uint8_t tag[16])
{
    uint8_t poly_key[32] = {0};
    int rc;

    rc = mbedtls_chacha20_crypt(c->key, nonce, 0, sizeof(poly_key), poly_key, poly_key);
    if (rc == 0)
        rc = mbedtls_poly1305_mac(poly_key, pkt, len, tag);
    mbedtls_platform_zeroize(poly_key, sizeof(poly_key));
    return rc;
}

/* Increments the GCM invocation counter (last 8 bytes of the IV). */
static void gcm_next_iv(struct ssh_cipher *c)
{
    int i;

    for (i = 11; i >= 4; i--)
        if (++c->iv[i] != 0)
            break;
}

/* HMAC over seq || data (len bytes) into out. */
static int hmac_packet(struct ssh_cipher *c, uint32_t seq, const uint8_t *data, size_t len,
                       uint8_t *out)
{
    uint8_t s[4];

    ssh_put_u32(s, seq);
    if (mbedtls_md_hmac_reset(&c->hmac) != 0 || mbedtls_md_hmac_update(&c->hmac, s, 4) != 0 ||
        mbedtls_md_hmac_update(&c->hmac, data, len) != 0 ||
        mbedtls_md_hmac_finish(&c->hmac, out) != 0)
        return -1;
    return 0;
}

/* AES-CTR over len bytes in place, continuing the stream. */
static int ctr_crypt(struct ssh_cipher *c, uint8_t *p, size_t len)
{
    return mbedtls_aes_crypt_ctr(&c->aes, len, &c->ctr_off, c->iv, c->ctr_stream, p, p);
}

/* Encrypts pkt in place and appends the tag; 0 on success. */
int ssh_cipher_seal(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, size_t len)
{
    uint8_t nonce[12];

    if (!c->alg)
        return 0;
    switch (c->alg->mode) {
    case SSH_MODE_CHACHAPOLY:
        chacha_nonce(seq, nonce);
        if (mbedtls_chacha20_crypt(c->key + 32, nonce, 0, 4, pkt, pkt) != 0 ||
            mbedtls_chacha20_crypt(c->key, nonce, 1, len - 4, pkt + 4, pkt + 4) != 0)
            return -1;
        return chacha_tag(c, nonce, pkt, len, pkt + len);
    case SSH_MODE_GCM:
        if (mbedtls_gcm_crypt_and_tag(&c->gcm, MBEDTLS_GCM_ENCRYPT, len - 4, c->iv, 12, pkt, 4,
                                      pkt + 4, pkt + 4, 16, pkt + len) != 0)
            return -1;
        gcm_next_iv(c);
        return 0;
    case SSH_MODE_CTR:
        if (c->mac->etm) {
            if (ctr_crypt(c, pkt + 4, len - 4) != 0)
                return -1;
            return hmac_packet(c, seq, pkt, len, pkt + len);
        }
        if (hmac_packet(c, seq, pkt, len, pkt + len) != 0)
            return -1;
        return ctr_crypt(c, pkt, len);
    default:
        return -1;
    }
}

/* Learns the packet length; 0 on success. */
int ssh_cipher_open_length(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, uint32_t *plen)
{
    uint8_t nonce[12], len[4];

    if (c->alg && c->alg->mode == SSH_MODE_CHACHAPOLY) {
        chacha_nonce(seq, nonce);
        if (mbedtls_chacha20_crypt(c->key + 32, nonce, 0, 4, pkt, len) != 0)
            return -1;
        *plen = ssh_get_u32(len);
        return 0;
    }
    if (c->alg && c->alg->mode == SSH_MODE_CTR && !c->mac->etm && !c->len_opened) {
        if (ctr_crypt(c, pkt, c->alg->block) != 0)
            return -1;
        c->len_opened = true;
    }
    *plen = ssh_get_u32(pkt);
    return 0;
}

/* Verifies the tag/MAC and decrypts in place; 0 on success, -1 on a bad tag. */
int ssh_cipher_open(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, size_t len)
{
    uint8_t nonce[12], mac[64];
    int ok;

    if (!c->alg)
        return 0;
    switch (c->alg->mode) {
    case SSH_MODE_CHACHAPOLY:
        chacha_nonce(seq, nonce);
        if (chacha_tag(c, nonce, pkt, len, mac) != 0 || !ssh_ct_equal(mac, pkt + len, 16))
            return -1;
        if (mbedtls_chacha20_crypt(c->key + 32, nonce, 0, 4, pkt, pkt) != 0 ||
            mbedtls_chacha20_crypt(c->key, nonce, 1, len - 4, pkt + 4, pkt + 4) != 0)
            return -1;
        return 0;
    case SSH_MODE_GCM:
        if (mbedtls_gcm_auth_decrypt(&c->gcm, len - 4, c->iv, 12, pkt, 4, pkt + len, 16, pkt + 4,
                                     pkt + 4) != 0)
            return -1;
        gcm_next_iv(c);
        return 0;
    case SSH_MODE_CTR:
        if (c->mac->etm) {
            if (hmac_packet(c, seq, pkt, len, mac) != 0 ||
                !ssh_ct_equal(mac, pkt + len, c->mac->len))
                return -1;
            return ctr_crypt(c, pkt + 4, len - 4);
        }
        c->len_opened = false;
        if (ctr_crypt(c, pkt + c->alg->block, len - c->alg->block) != 0)
            return -1;
        ok = hmac_packet(c, seq, pkt, len, mac) == 0 && ssh_ct_equal(mac, pkt + len, c->mac->len);
        mbedtls_platform_zeroize(mac, sizeof(mac));
        return ok ? 0 : -1;
    default:
        return -1;
    }
}
