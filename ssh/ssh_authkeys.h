/*
 * ssh_authkeys.h - OpenSSH authorized_keys files (sshd(8) "AUTHORIZED_KEYS
 * FILE FORMAT"): one key a line, "[options] keytype base64-key [comment]".
 *
 * Policy: a line with an options prefix is refused (its key does not log in):
 * the options (command=, from=, restrict...) restrict a key, and a server that
 * ignored them would grant more than the file says.  Key types other than
 * ssh-ed25519, ecdsa-sha2-nistp256 and ssh-rsa are skipped.
 */
#ifndef PZ_SSH_AUTHKEYS_H
#define PZ_SSH_AUTHKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ssh_authkeys_line {
    SSH_AK_KEY,      /* a usable key: blob filled */
    SSH_AK_BLANK,    /* empty or comment */
    SSH_AK_OPTIONS,  /* refused: has an options prefix */
    SSH_AK_TYPE,     /* skipped: a key type this server does not take */
    SSH_AK_MALFORMED /* not a key line */
};

/* Largest key blob kept (an 8192-bit RSA key is about 1 KB). */
#define SSH_AK_BLOB_MAX 2048

/* Parses one line (len bytes, no newline) into blob. */
enum ssh_authkeys_line ssh_authkeys_parse_line(const char *line, size_t len, uint8_t *blob,
                                               size_t cap, size_t *blob_len);
/* True if the text (a whole file) lists the key blob. */
bool ssh_authkeys_has_key(const char *text, size_t len, const uint8_t *blob, size_t blob_len);
/* Reads the file at path (at most 1 MiB) and looks for blob: 1 found, 0 not, -1 unreadable. */
int ssh_authkeys_file_has_key(const char *path, const uint8_t *blob, size_t blob_len);

#endif
