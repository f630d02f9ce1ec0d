/*
 * ssh_userkey.h - users' public keys: which signature algorithm fits which
 * key blob, and signature verification for ssh-ed25519 (libsodium, RFC 8709),
 * ecdsa-sha2-nistp256 (RFC 5656) and rsa-sha2-256/512 (RFC 8332) (mbedtls).
 */
#ifndef PZ_SSH_USERKEY_H
#define PZ_SSH_USERKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Public key algorithms accepted for user authentication, NULL-terminated. */
const char *const *ssh_userkey_algs(void);

/* True if alg is accepted and the blob's key type is the one alg signs with. */
bool ssh_userkey_alg_fits(const char *alg, const uint8_t *blob, size_t blob_len);
/* Checks sig (an SSH signature blob) over data with the key in blob under alg;
 * 0 if valid, -1 otherwise (any malformed field included). */
int ssh_userkey_verify(const char *alg, const uint8_t *blob, size_t blob_len, const uint8_t *sig,
                       size_t sig_len, const uint8_t *data, size_t data_len);

#endif
