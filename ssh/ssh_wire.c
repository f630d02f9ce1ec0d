/*
 * ssh_wire.c - SSH data types (RFC 4251 §5) in bounded buffers.
 */
#include <string.h>

#include <mbedtls/constant_time.h>

#include "ssh_wire.h"

/* Starts reading len bytes at p. */
void ssh_rd_init(struct ssh_rd *rd, const uint8_t *p, size_t len)
{
    rd->p = p;
    rd->len = len;
    rd->pos = 0;
    rd->err = false;
}

/* Takes n bytes; returns a pointer to them, or NULL (and err) if fewer are left. */
static const uint8_t *rd_take(struct ssh_rd *rd, size_t n)
{
    const uint8_t *p;

    if (rd->err || n > rd->len - rd->pos) {
        rd->err = true;
        return NULL;
    }
    p = rd->p + rd->pos;
    rd->pos += n;
    return p;
}

/* Reads a byte; 0 on error. */
uint8_t ssh_rd_u8(struct ssh_rd *rd)
{
    const uint8_t *p = rd_take(rd, 1);

    return p ? p[0] : 0;
}

/* Reads a boolean (any non-zero byte is true). */
bool ssh_rd_bool(struct ssh_rd *rd)
{
    return ssh_rd_u8(rd) != 0;
}

/* Reads a big-endian uint32; 0 on error. */
uint32_t ssh_rd_u32(struct ssh_rd *rd)
{
    const uint8_t *p = rd_take(rd, 4);

    return p ? ssh_get_u32(p) : 0;
}

/* Reads a string; returns its bytes and sets *len, NULL on error. */
const uint8_t *ssh_rd_string(struct ssh_rd *rd, size_t *len)
{
    uint32_t n = ssh_rd_u32(rd);
    const uint8_t *p = rd_take(rd, n);

    *len = p ? n : 0;
    return p;
}

/* Reads a string and returns whether it equals s. */
bool ssh_rd_string_is(struct ssh_rd *rd, const char *s)
{
    size_t len;
    const uint8_t *p = ssh_rd_string(rd, &len);

    return p && len == strlen(s) && memcmp(p, s, len) == 0;
}

/* Reads a string into out as a C string; false (and err) if too long or with a NUL. */
bool ssh_rd_cstring(struct ssh_rd *rd, char *out, size_t cap)
{
    size_t len;
    const uint8_t *p = ssh_rd_string(rd, &len);

    if (!p || len >= cap || memchr(p, 0, len)) {
        rd->err = true;
        if (cap)
            out[0] = 0;
        return false;
    }
    memcpy(out, p, len);
    out[len] = 0;
    return true;
}

/* Reads a non-negative mpint; returns its magnitude without leading zeros. */
const uint8_t *ssh_rd_mpint(struct ssh_rd *rd, size_t *len)
{
    const uint8_t *p = ssh_rd_string(rd, len);

    if (!p)
        return NULL;
    if (*len && (p[0] & 0x80)) { /* negative */
        rd->err = true;
        return NULL;
    }
    while (*len && p[0] == 0) {
        p++;
        (*len)--;
    }
    return p;
}

/* True if parsing went well and consumed everything. */
bool ssh_rd_end(const struct ssh_rd *rd)
{
    return !rd->err && rd->pos == rd->len;
}

/* Starts writing into p (cap bytes). */
void ssh_wr_init(struct ssh_wr *wr, uint8_t *p, size_t cap)
{
    wr->p = p;
    wr->cap = cap;
    wr->len = 0;
    wr->err = false;
}

/* Appends len bytes. */
void ssh_wr_bytes(struct ssh_wr *wr, const void *p, size_t len)
{
    if (wr->err || len > wr->cap - wr->len) {
        wr->err = true;
        return;
    }
    if (len)
        memcpy(wr->p + wr->len, p, len);
    wr->len += len;
}

/* Appends a byte. */
void ssh_wr_u8(struct ssh_wr *wr, uint8_t v)
{
    ssh_wr_bytes(wr, &v, 1);
}

/* Appends a big-endian uint32. */
void ssh_wr_u32(struct ssh_wr *wr, uint32_t v)
{
    uint8_t b[4];

    ssh_put_u32(b, v);
    ssh_wr_bytes(wr, b, 4);
}

/* Appends a string of len bytes. */
void ssh_wr_string(struct ssh_wr *wr, const void *p, size_t len)
{
    if (len > UINT32_MAX) {
        wr->err = true;
        return;
    }
    ssh_wr_u32(wr, (uint32_t)len);
    ssh_wr_bytes(wr, p, len);
}

/* Appends a C string as a string. */
void ssh_wr_cstring(struct ssh_wr *wr, const char *s)
{
    ssh_wr_string(wr, s, strlen(s));
}

/* Appends an mpint from an unsigned big-endian magnitude. */
void ssh_wr_mpint(struct ssh_wr *wr, const uint8_t *be, size_t len)
{
    uint8_t zero = 0;

    while (len && be[0] == 0) {
        be++;
        len--;
    }
    if (len && (be[0] & 0x80)) {
        ssh_wr_u32(wr, (uint32_t)len + 1);
        ssh_wr_bytes(wr, &zero, 1);
    } else {
        ssh_wr_u32(wr, (uint32_t)len);
    }
    ssh_wr_bytes(wr, be, len);
}

/* Stores v big-endian at p. */
void ssh_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Loads a big-endian uint32 from p. */
uint32_t ssh_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* True if the comma-separated list has exactly the name as one entry. */
bool ssh_namelist_has(const uint8_t *list, size_t len, const char *name)
{
    size_t nlen = strlen(name), start = 0, i;

    for (i = 0; i <= len; i++) {
        if (i == len || list[i] == ',') {
            if (i - start == nlen && memcmp(list + start, name, nlen) == 0)
                return true;
            start = i + 1;
        }
    }
    return false;
}

/* The client's first choice that the server also has (RFC 4253 §7.1). */
const char *ssh_namelist_pick(const uint8_t *client, size_t len, const char *const *server)
{
    size_t start = 0, i, k;

    for (i = 0; i <= len; i++) {
        if (i < len && client[i] != ',')
            continue;
        for (k = 0; server[k]; k++) {
            if (strlen(server[k]) == i - start && memcmp(client + start, server[k], i - start) == 0)
                return server[k];
        }
        start = i + 1;
    }
    return NULL;
}

/* Compares without data-dependent branches: mbedtls' constant-time compare
 * (mbedtls/constant_time.h, public since 2.28). */
bool ssh_ct_equal(const void *a, const void *b, size_t len)
{
    return mbedtls_ct_memcmp(a, b, len) == 0;
}
