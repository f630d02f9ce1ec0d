/*
 * ssh_hostkey.h - the server's host keys: ssh-ed25519 (libsodium) and
 * ecdsa-sha2-nistp256 (mbedtls), generated on first start, kept as PEM files
 * (mode 0600) in the state directory, loaded after; their public blobs
 * (RFC 8709 §4, RFC 5656 §3.1) and signatures (RFC 8709 §6, RFC 5656 §3.1.2).
 */
#ifndef PZ_SSH_HOSTKEY_H
#define PZ_SSH_HOSTKEY_H

#include <stddef.h>
#include <stdint.h>

#include <mbedtls/pk.h>

#include "ssh_wire.h"

typedef int (*ssh_rng_fn)(void *rng, unsigned char *out, size_t len);

struct ssh_hostkey {
    const char *alg;
    uint8_t ed_sk[64]; /* libsodium's seed || public key */
    mbedtls_pk_context pk;
    uint8_t blob[128];
    size_t blob_len;
};

/* Host key algorithms, NULL-terminated, in preference order. */
const char *const *ssh_hostkey_names(void);

/* Loads dir/<file for alg>, or generates and stores it when missing; 0 on success, else
 * -1 with a message in err. */
int ssh_hostkey_load(struct ssh_hostkey *hk, const char *alg, const char *dir, ssh_rng_fn rng,
                     void *rng_ctx, char *err, size_t errlen);
void ssh_hostkey_free(struct ssh_hostkey *hk);
/* Appends the signature blob over data (as a string) to out; 0 on success. */
int ssh_hostkey_sign(struct ssh_hostkey *hk, const uint8_t *data, size_t len, struct ssh_wr *out,
                     ssh_rng_fn rng, void *rng_ctx);

#endif
