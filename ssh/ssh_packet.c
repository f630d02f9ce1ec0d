/*
 * ssh_packet.c - the binary packet protocol (RFC 4253 §6): framing,
 * padding, sequence numbers, the output queue, and packets held back while
 * a key exchange is in progress (RFC 4253 §7.1).
 */
#include <stdlib.h>
#include <string.h>

#include <mbedtls/platform_util.h>

#include "ssh_internal.h"

/*
 * Grows the buffer *buf of *cap bytes to hold at least need bytes, doubling
 * from first when it has none; 0 on success, -1 (nothing changed) when out
 * of memory.
 */
static int buf_reserve(uint8_t **buf, size_t *cap, size_t need, size_t first)
{
    size_t n = *cap ? *cap : first;
    uint8_t *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*buf, n);
    if (!q)
        return -1;
    *buf = q;
    *cap = n;
    return 0;
}

/* Appends len bytes to the output queue (growing it); 0 on success. */
static int outq_append(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    if (c->out_head && c->out_head == c->out_len)
        c->out_head = c->out_len = 0;
    if (c->out_head > c->out_cap / 2) {
        memmove(c->outq, c->outq + c->out_head, c->out_len - c->out_head);
        c->out_len -= c->out_head;
        c->out_head = 0;
    }
    if (buf_reserve(&c->outq, &c->out_cap, c->out_len + len, 65536))
        return -1;
    memcpy(c->outq + c->out_len, p, len);
    c->out_len += len;
    return 0;
}

/* Writes queued bytes until the transport stops taking them. */
void ssh_flush(struct ssh_conn *c)
{
    size_t n;

    while (c->out_head < c->out_len) {
        n = c->ops->write(c->app, c->outq + c->out_head, c->out_len - c->out_head);
        if (n == 0)
            break;
        if (n > c->out_len - c->out_head)
            n = c->out_len - c->out_head;
        c->out_head += n;
    }
    if (c->out_head == c->out_len)
        c->out_head = c->out_len = 0;
}

/* Padding length for a payload of len bytes under the current output cipher. */
static unsigned padding_for(const struct ssh_conn *c, size_t len)
{
    unsigned block = ssh_cipher_block(&c->tx.c);
    size_t covered = 1 + len + (ssh_cipher_len_outside(&c->tx.c) ? 0 : 4);
    unsigned pad = block - (unsigned)(covered % block);

    if (pad < 4)
        pad += block;
    return pad;
}

/* Frames, protects and queues one payload; 0 on success. */
int ssh_send_now(struct ssh_conn *c, const uint8_t *payload, size_t len)
{
    unsigned pad, tag;
    size_t total;

    if (c->finished || len == 0 || len > SSH_PAYLOAD_MAX)
        return -1;
    pad = padding_for(c, len);
    tag = ssh_cipher_tag_len(&c->tx.c);
    total = 4 + 1 + len + pad;
    ssh_put_u32(c->pkt, (uint32_t)(total - 4));
    c->pkt[4] = (uint8_t)pad;
    memcpy(c->pkt + 5, payload, len);
    if (ssh_random(c->srv, c->pkt + 5 + len, pad) != 0 ||
        ssh_cipher_seal(&c->tx.c, c->tx.seq, c->pkt, total) != 0)
        return -1;
    c->tx.seq++;
    c->tx.bytes += total + tag;
    if (outq_append(c, c->pkt, total + tag) != 0)
        return -1;
    ssh_flush(c);
    return 0;
}

/* Keeps a payload until our NEWKEYS is out; 0 on success. */
static int defer_payload(struct ssh_conn *c, const uint8_t *payload, size_t len)
{
    size_t need = c->def_len + 4 + len;

    if (buf_reserve(&c->deferred, &c->def_cap, need, 4096))
        return -1;
    ssh_put_u32(c->deferred + c->def_len, (uint32_t)len);
    memcpy(c->deferred + c->def_len + 4, payload, len);
    c->def_len = need;
    return 0;
}

/* True for what may go out between our KEXINIT and our NEWKEYS (RFC 4253 §7.1): the
 * generic transport messages except SERVICE_REQUEST/ACCEPT, and the key exchange's own. */
static bool allowed_during_kex(uint8_t type)
{
    return type < SSH_MSG_SERVICE_REQUEST ||
           (type >= SSH_MSG_KEXINIT && type < SSH_MSG_USERAUTH_REQUEST);
}

/* Sends a payload, holding back what may not go out during our key exchange. */
int ssh_send(struct ssh_conn *c, const uint8_t *payload, size_t len)
{
    if (len && !allowed_during_kex(payload[0]) && c->kex.sent_kexinit && !c->kex.sent_newkeys)
        return defer_payload(c, payload, len);
    return ssh_send_now(c, payload, len);
}

/* Sends what was held back during the key exchange. */
void ssh_send_deferred(struct ssh_conn *c)
{
    size_t off = 0, len;

    while (off + 4 <= c->def_len) {
        len = ssh_get_u32(c->deferred + off);
        ssh_send_now(c, c->deferred + off + 4, len);
        off += 4 + len;
    }
    c->def_len = 0;
}

/* True if the line (without CR LF) is an SSH-2 version line (RFC 4253 §4.2): printable
 * US-ASCII (and spaces before comments) only. */
static bool version_ok(const uint8_t *line, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (line[i] < 0x20 || line[i] > 0x7e)
            return false;
    return (len >= 8 && memcmp(line, "SSH-2.0-", 8) == 0) ||
           (len >= 9 && memcmp(line, "SSH-1.99-", 9) == 0);
}

/* Takes the version line byte by byte (RFC 4253 §4.2); bytes taken. */
static size_t version_input(struct ssh_conn *c, const uint8_t *buf, size_t len)
{
    size_t i;

    for (i = 0; i < len && !c->got_version; i++) {
        if (buf[i] != '\n') {
            if (c->in_len >= 255) {
                ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "version line too long");
                return len;
            }
            c->in[c->in_len++] = buf[i];
            continue;
        }
        if (c->in_len && c->in[c->in_len - 1] == '\r')
            c->in_len--;
        if (!version_ok(c->in, c->in_len)) {
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_VERSION_NOT_SUPPORTED,
                                "SSH-2.0 expected");
            return len;
        }
        memcpy(c->peer_version, c->in, c->in_len);
        c->peer_version[c->in_len] = 0;
        c->in_len = 0;
        c->got_version = true;
        ssh_log(c, SSH_LOG_DEBUG, "client version %s", c->peer_version);
    }
    return i;
}

/* True if plen is a valid packet_length under the input cipher. */
static bool length_ok(const struct ssh_conn *c, uint32_t plen)
{
    unsigned block = ssh_cipher_block(&c->rx.c);
    uint32_t covered = plen + (ssh_cipher_len_outside(&c->rx.c) ? 0 : 4);

    return plen >= 8 && plen <= SSH_PACKET_MAX && covered % block == 0;
}

/* Opens and dispatches the complete packet in c->in. */
static void packet_complete(struct ssh_conn *c)
{
    uint32_t plen = c->in_plen, seq = c->rx.seq;
    unsigned pad;

    c->in_len = 0;
    c->in_plen = 0;
    if (ssh_cipher_open(&c->rx.c, seq, c->in, 4 + plen) != 0) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_MAC_ERROR, "message authentication failed");
        return;
    }
    pad = c->in[4];
    if (pad < 4 || (uint32_t)pad + 1 >= plen) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad padding");
        return;
    }
    c->rx.seq++;
    c->rx.bytes += 4 + plen + ssh_cipher_tag_len(&c->rx.c);
    c->rx_packets++;
    if (c->rx.seq == 0 && c->strict) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "sequence number wrapped");
        return;
    }
    ssh_dispatch(c, c->in + 5, plen - pad - 1);
    if (c->in[5] == SSH_MSG_USERAUTH_REQUEST) /* may hold a password */
        mbedtls_platform_zeroize(c->in, 4 + plen);
}

/* True while input must wait: an auth failure being delayed, a password verdict awaited,
 * a full output queue, or too many answers held back by a key exchange the peer does not
 * finish. */
static bool input_blocked(const struct ssh_conn *c)
{
    return c->auth_failure_pending || c->pw_pending || c->out_len - c->out_head > SSH_OUTQ_STALL ||
           c->def_len > SSH_OUTQ_STALL;
}

/* Assembles packets from received bytes; returns the bytes taken. */
size_t ssh_packet_input(struct ssh_conn *c, const uint8_t *buf, size_t len)
{
    size_t taken = 0, need, n;
    uint32_t plen;

    while (taken < len) {
        if (c->finished)
            return len;
        if (input_blocked(c))
            break;
        if (!c->got_version) {
            taken += version_input(c, buf + taken, len - taken);
            continue;
        }
        need = c->in_plen ? 4 + c->in_plen + ssh_cipher_tag_len(&c->rx.c)
                          : ssh_cipher_len_need(&c->rx.c);
        n = need - c->in_len < len - taken ? need - c->in_len : len - taken;
        memcpy(c->in + c->in_len, buf + taken, n);
        c->in_len += n;
        taken += n;
        if (c->in_len < need)
            break;
        if (c->in_plen) {
            packet_complete(c);
            continue;
        }
        if (ssh_cipher_open_length(&c->rx.c, c->rx.seq, c->in, &plen) != 0 || !length_ok(c, plen)) {
            ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad packet length");
            return len;
        }
        c->in_plen = plen;
        if (c->in_len == 4 + plen + ssh_cipher_tag_len(&c->rx.c))
            packet_complete(c);
    }
    return taken;
}
