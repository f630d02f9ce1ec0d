/*
 * rmpp.h - the pure parts of RMPP (IBA 1.2.1 section 13.6, Reliable
 * Multi-Packet Protocol) as the Linux kernel's MAD layer runs it for agents
 * registered with an rmpp_version (drivers/infiniband/core/mad_rmpp.c):
 * the RMPP header, cutting a long MAD into DATA segments, the sender's
 * window and retry state, and the receiver's reassembly state machine.
 * No I/O, no clock, no globals: the caller (pzumad_rmpp.c) sends what
 * these functions say and keeps the time.
 */
#ifndef PZ_ATTACH_RMPP_H
#define PZ_ATTACH_RMPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PZR_MAD_SIZE 256          /* one MAD, one segment on the wire */
#define PZR_RMPP_HDR_END 36       /* MAD header (24) + RMPP header (12) */
#define PZR_SEG_RMPP_DATA 220     /* RMPP payload a segment carries: PZR_MAD_SIZE - 36 */
#define PZR_VERSION 1             /* RMPPVersion of IBA 1.2.1 */
#define PZR_WINDOW 64             /* segments granted per ACK, as Linux (512 receives >> 3) */
#define PZR_ACK_TIMEOUT_MS 2000   /* the sender's wait for an ACK, as Linux */
#define PZR_RECV_TIMEOUT_MS 40000 /* a reassembly's whole lifetime, as Linux */

/* RMPPType (13.6.2.1). */
enum pzr_type { PZR_TYPE_DATA = 1, PZR_TYPE_ACK = 2, PZR_TYPE_STOP = 3, PZR_TYPE_ABORT = 4 };

/* RMPPFlags, the low 3 bits of the byte shared with RRespTime. */
enum pzr_flag { PZR_FLAG_ACTIVE = 1, PZR_FLAG_FIRST = 2, PZR_FLAG_LAST = 4 };

/* RMPPStatus (table 112). */
enum pzr_status {
    PZR_STATUS_OK = 0,
    PZR_STATUS_RESX = 1,         /* resources exhausted (STOP) */
    PZR_STATUS_T2L = 118,        /* total time too long */
    PZR_STATUS_BAD_LEN = 119,    /* inconsistent last and payload length */
    PZR_STATUS_BAD_SEG = 120,    /* inconsistent first and segment number */
    PZR_STATUS_BADT = 121,       /* bad RMPPType */
    PZR_STATUS_W2S = 122,        /* NewWindowLast too small */
    PZR_STATUS_S2B = 123,        /* SegmentNumber too big */
    PZR_STATUS_BAD_STATUS = 124, /* illegal status */
    PZR_STATUS_UNV = 125,        /* unsupported version */
    PZR_STATUS_TMR = 126,        /* too many retries */
    PZR_STATUS_ABORT_MIN = 118,
    PZR_STATUS_ABORT_MAX = 127,
};

/* The RMPP header of a MAD (bytes 24-35). */
struct pzr_hdr {
    uint8_t version;
    uint8_t type;
    uint8_t flags; /* RMPPFlags (low 3 bits of byte 26) */
    uint8_t rtime; /* RRespTime (high 5 bits of byte 26) */
    uint8_t status;
    uint32_t seg_num;
    uint32_t paylen_newwin; /* PayloadLength (DATA) or NewWindowLast (ACK) */
};

/* The fields of the MAD header the RMPP layer keys transfers on. */
uint8_t pzr_mad_class(const uint8_t *mad);
uint8_t pzr_mad_method(const uint8_t *mad);
uint64_t pzr_mad_tid(const uint8_t *mad);

/* Whether mgmt_class carries RMPP (SA, device management, BIS, vendor range 2). */
bool pzr_class_is_rmpp(uint8_t mgmt_class);
/* Offset of the data behind the class header in each segment (24 + 12 + class header). */
unsigned pzr_data_offset(uint8_t mgmt_class);

/* Read the RMPP header of mad (at least 36 bytes) into h. */
void pzr_hdr_get(const uint8_t *mad, struct pzr_hdr *h);
/* Write h into the RMPP header of mad (at least 36 bytes). */
void pzr_hdr_put(uint8_t *mad, const struct pzr_hdr *h);

/* What a received MAD is to the RMPP layer of an RMPP agent. */
enum pzr_kind {
    PZR_KIND_PLAIN, /* not an RMPP class, too short, or RMPP not active: the client's */
    PZR_KIND_DATA,
    PZR_KIND_ACK,
    PZR_KIND_STOP,
    PZR_KIND_ABORT,
    PZR_KIND_BAD_VERSION, /* active, RMPPVersion not 1: answer ABORT UNV */
    PZR_KIND_BAD_TYPE,    /* active, unknown RMPPType: answer ABORT BADT */
};
/* Classify a received MAD of len bytes; returns its kind. */
enum pzr_kind pzr_classify(const uint8_t *mad, size_t len);

/* Fill out (PZR_MAD_SIZE bytes) with the ACK, STOP or ABORT that answers the segment
 * `in` (as Linux: in's header up to its data offset, method's response bit flipped,
 * type, Active, status, SegmentNumber seg_num, NewWindowLast newwin). */
void pzr_build_reply(uint8_t *out, const uint8_t *in, uint8_t type, uint8_t status,
                     uint32_t seg_num, uint32_t newwin);

/* ---- sender ---- */

/* One long MAD being sent in segments (the MAD bytes stay the caller's). */
struct pzr_send {
    const uint8_t *mad; /* the whole MAD as the client sent it */
    size_t len;         /* its length: header + data */
    unsigned hdr_len;   /* data offset of its class */
    unsigned seg_size;  /* data bytes per segment: PZR_MAD_SIZE - hdr_len */
    uint32_t seg_count; /* segments in all */
    uint32_t pad;       /* zero bytes after the data in the last segment */
    uint32_t last_ack;  /* highest segment the receiver acknowledged */
    uint32_t seg_sent;  /* highest segment sent in this round */
    uint32_t newwin;    /* highest segment the receiver lets us send */
    int retries_left;
};

/* Prepare s to send the len-byte MAD mad; returns its segment count, 0 if len is shorter
 * than its class header. */
uint32_t pzr_send_init(struct pzr_send *s, const uint8_t *mad, size_t len, int retries);
/* Fill out (PZR_MAD_SIZE bytes) with DATA segment seg (1..seg_count) of s. */
void pzr_send_segment(const struct pzr_send *s, uint32_t seg, uint8_t *out);
/* The next segment to send now, 0 if the window or the message is used up; counts it sent. */
uint32_t pzr_send_next(struct pzr_send *s);

/* What the sender does on an ACK, a timeout. */
enum pzr_send_verdict {
    PZR_SEND_IGNORE, /* old or duplicate: nothing */
    PZR_SEND_MORE,   /* window moved: send pzr_send_next() until 0 */
    PZR_SEND_DONE,   /* every segment acknowledged: the transfer is over */
    PZR_SEND_ABORT,  /* protocol error: answer ABORT with *status, drop the transfer */
    PZR_SEND_GIVE_UP /* retries used up: send ABORT TMR, drop the transfer */
};
/* Take the ACK of segment seg_num, NewWindowLast newwin, RMPPStatus ack_status; returns the
 * verdict and, for PZR_SEND_ABORT, the ABORT's status in *status. */
enum pzr_send_verdict pzr_send_ack(struct pzr_send *s, uint32_t seg_num, uint32_t newwin,
                                   uint8_t ack_status, uint8_t *status);
/* No ACK in time: rewinds to the last acknowledged segment; returns PZR_SEND_MORE or
 * PZR_SEND_GIVE_UP. */
enum pzr_send_verdict pzr_send_timeout(struct pzr_send *s);

/* ---- receiver ---- */

/* One MAD being reassembled from DATA segments. */
struct pzr_recv {
    uint8_t *buf;     /* the first segment whole, then each later segment's data */
    size_t cap;       /* bytes allocated at buf */
    size_t max_len;   /* the most this transfer may hold */
    size_t len;       /* the MAD's length once complete */
    unsigned hdr_len; /* data offset of its class */
    uint32_t seg_num; /* last segment received in order */
    uint32_t newwin;  /* window granted */
    bool complete;
};

/* What the receiver does with a segment. */
enum pzr_recv_verdict {
    PZR_RECV_DROP,  /* nothing to send (in the window, or out of order) */
    PZR_RECV_ACK,   /* send ACK(reply.seg_num, reply.newwin) */
    PZR_RECV_DONE,  /* complete: send the ACK, hand buf[0..len) to the client */
    PZR_RECV_STOP,  /* too big to hold: send STOP(RESX), drop the transfer */
    PZR_RECV_ABORT, /* protocol error: send ABORT(reply.status), drop the transfer */
};
struct pzr_reply {
    uint8_t status;
    uint32_t seg_num;
    uint32_t newwin;
};

/* Check a DATA segment before it starts or continues a transfer; returns 0 or the RMPPStatus
 * of the ABORT that answers it. */
uint8_t pzr_data_check(const uint8_t *seg, size_t len);
/* Whether the DATA segment seg (checked) starts a transfer (SegmentNumber 1). */
bool pzr_data_is_first(const uint8_t *seg);
/* Start r from its first segment seg (len bytes, checked); holds at most max_len bytes,
 * window PZR_WINDOW. Returns the verdict and fills *reply; r->buf is allocated (free it
 * with pzr_recv_free) unless the verdict is STOP or ABORT. */
enum pzr_recv_verdict pzr_recv_start(struct pzr_recv *r, const uint8_t *seg, size_t len,
                                     size_t max_len, struct pzr_reply *reply);
/* Continue r with segment seg (len bytes, checked); returns the verdict, fills *reply. */
enum pzr_recv_verdict pzr_recv_feed(struct pzr_recv *r, const uint8_t *seg, size_t len,
                                    struct pzr_reply *reply);
/* Free what r holds (r stays usable as a completed record). */
void pzr_recv_free(struct pzr_recv *r);

#endif
