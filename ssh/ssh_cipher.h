/*
 * ssh_cipher.h - protection of one direction of the binary packet protocol
 * (RFC 4253 §6): chacha20-poly1305@openssh.com, aes128/256-gcm@openssh.com,
 * aes128/256-ctr with hmac-sha2-256/512 (encrypt-and-MAC, or -etm@openssh.com
 * encrypt-then-MAC), and the clear state before the first NEWKEYS.
 */
#ifndef PZ_SSH_CIPHER_H
#define PZ_SSH_CIPHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mbedtls/aes.h>
#include <mbedtls/gcm.h>
#include <mbedtls/md.h>

enum ssh_cipher_mode { SSH_MODE_NONE, SSH_MODE_CHACHAPOLY, SSH_MODE_GCM, SSH_MODE_CTR };

struct ssh_cipher_alg {
    const char *name;
    enum ssh_cipher_mode mode;
    unsigned key_len, iv_len, block;
};

struct ssh_mac_alg {
    const char *name;
    mbedtls_md_type_t md;
    unsigned key_len, len;
    bool etm;
};

/* One direction's keys and cipher state. */
struct ssh_cipher {
    const struct ssh_cipher_alg *alg;
    const struct ssh_mac_alg *mac; /* NULL for the AEAD modes */
    uint8_t key[64];               /* chacha: K_2 then K_1 */
    uint8_t iv[16];
    mbedtls_aes_context aes;
    mbedtls_gcm_context gcm;
    mbedtls_md_context_t hmac;
    uint8_t ctr_stream[16];
    size_t ctr_off;
    bool len_opened; /* CTR E&M: the first block is already decrypted in place */
};

const struct ssh_cipher_alg *ssh_cipher_alg_find(const char *name);
const struct ssh_mac_alg *ssh_mac_alg_find(const char *name);
/* Names of every cipher / MAC this module has, NULL-terminated, in preference order. */
const char *const *ssh_cipher_names(void);
const char *const *ssh_mac_names(void);

/* Sets up c for alg (and mac unless AEAD) with the derived key, IV and MAC key;
 * 0 on success. */
int ssh_cipher_init(struct ssh_cipher *c, const struct ssh_cipher_alg *alg,
                    const struct ssh_mac_alg *mac, const uint8_t *key, const uint8_t *iv,
                    const uint8_t *mac_key);
/* Clears c to the clear state, wiping keys. */
void ssh_cipher_free(struct ssh_cipher *c);

/* Padding unit and whether the length field is outside the padded span. */
unsigned ssh_cipher_block(const struct ssh_cipher *c);
bool ssh_cipher_len_outside(const struct ssh_cipher *c);
/* Bytes of tag/MAC after the packet. */
unsigned ssh_cipher_tag_len(const struct ssh_cipher *c);
/* Bytes needed before the packet length can be known (4, or the first block). */
unsigned ssh_cipher_len_need(const struct ssh_cipher *c);

/* Encrypts a packet in place (pkt: uint32 length, padding length, payload, padding;
 * len bytes) and writes the tag at pkt + len.  Returns 0 on success. */
int ssh_cipher_seal(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, size_t len);
/* Reads the packet length from the first ssh_cipher_len_need() bytes at pkt. */
int ssh_cipher_open_length(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, uint32_t *plen);
/* Checks the tag at pkt + len and decrypts the packet in place; after it pkt holds
 * the clear packet.  Returns 0, or -1 on a bad MAC/tag. */
int ssh_cipher_open(struct ssh_cipher *c, uint32_t seq, uint8_t *pkt, size_t len);

#endif
