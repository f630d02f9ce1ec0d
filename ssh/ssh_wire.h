/*
 * ssh_wire.h - reading and writing the SSH data types of RFC 4251 §5
 * (byte, boolean, uint32, uint64, string, mpint, name-list) in bounded
 * buffers.  A reader or writer that runs past its end sets err and
 * returns zeros from then on, so a message parser checks err once.
 */
#ifndef PZ_SSH_WIRE_H
#define PZ_SSH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ssh_rd {
    const uint8_t *p;
    size_t len, pos;
    bool err;
};

struct ssh_wr {
    uint8_t *p;
    size_t cap, len;
    bool err;
};

void ssh_rd_init(struct ssh_rd *rd, const uint8_t *p, size_t len);
uint8_t ssh_rd_u8(struct ssh_rd *rd);
bool ssh_rd_bool(struct ssh_rd *rd);
uint32_t ssh_rd_u32(struct ssh_rd *rd);
/* A string's bytes (pointer into the buffer) and length; NULL on error. */
const uint8_t *ssh_rd_string(struct ssh_rd *rd, size_t *len);
/* A string that must equal s. */
bool ssh_rd_string_is(struct ssh_rd *rd, const char *s);
/* A string copied NUL-terminated into out (cap bytes); error if it does not fit or
 * holds a NUL. */
bool ssh_rd_cstring(struct ssh_rd *rd, char *out, size_t cap);
/* A non-negative mpint's magnitude without leading zeros. */
const uint8_t *ssh_rd_mpint(struct ssh_rd *rd, size_t *len);
/* True when no error happened and every byte was read. */
bool ssh_rd_end(const struct ssh_rd *rd);

void ssh_wr_init(struct ssh_wr *wr, uint8_t *p, size_t cap);
void ssh_wr_u8(struct ssh_wr *wr, uint8_t v);
void ssh_wr_u32(struct ssh_wr *wr, uint32_t v);
void ssh_wr_bytes(struct ssh_wr *wr, const void *p, size_t len);
void ssh_wr_string(struct ssh_wr *wr, const void *p, size_t len);
void ssh_wr_cstring(struct ssh_wr *wr, const char *s);
/* An mpint from an unsigned big-endian magnitude (leading zeros dropped, a zero byte
 * added when the top bit is set). */
void ssh_wr_mpint(struct ssh_wr *wr, const uint8_t *be, size_t len);

void ssh_put_u32(uint8_t *p, uint32_t v);
uint32_t ssh_get_u32(const uint8_t *p);

/* True if the comma-separated list (len bytes) has the name. */
bool ssh_namelist_has(const uint8_t *list, size_t len, const char *name);
/* The first name of the client's list that the server's NULL-terminated list has;
 * NULL if none. */
const char *ssh_namelist_pick(const uint8_t *client, size_t len, const char *const *server);

/* Constant-time equality of two buffers of the same length. */
bool ssh_ct_equal(const void *a, const void *b, size_t len);

#endif
