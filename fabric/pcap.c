/*
 * pcap.c - InfiniBand capture files (pcap with LINKTYPE_INFINIBAND, or ERF)
 * and UD framing with ICRC and VCRC.  See pcap.h.
 */
#include "pcap.h"

#include "mad.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAP_VERSION_MAJOR 2
#define PCAP_VERSION_MINOR 4
#define PCAP_SNAPLEN 65535u
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16

#define IB_LNH_IBA_LOCAL 0x2  /* LRH.LNH: BTH follows the LRH */
#define IB_LNH_IBA_GLOBAL 0x3 /* LRH.LNH: GRH, then BTH */
#define IB_BTH_RESV8A_OFF 12  /* offset of BTH.Resv8a from the LRH */
#define IB_QP_MAX 0xFFFFFFu   /* QPs and PSNs are 24 bits */
#define IB_PKTLEN_MAX 0x7FFu  /* LRH.PktLen is 11 bits (4-byte words) */
#define CRC32_POLY_REFL 0xEDB88320u
#define CRC16_POLY_REFL 0xD008u /* 0x100B reflected */
#define ERF_FLAG_VARLEN 0x04    /* ERF flags: variable-length record */
#define ERF_ALIGN 8             /* ERF records are padded to 8 bytes */
#define ERF_RLEN_MAX 0xFFFFu

/* An open capture file. */
struct pz_pcap {
    FILE *f;
    enum pz_pcap_format format;
    unsigned long long packets;
    unsigned flush_ms;
    struct timespec last_flush; /* CLOCK_MONOTONIC */
    int error;                  /* errno of the first failed write, 0 if none */
};

/* Store v little-endian in the n bytes at p (pcap headers, the CRCs). */
static void put_le(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Feed one byte into a reflected CRC-32 register; returns the new register. */
static uint32_t crc32_byte(uint32_t crc, uint8_t b)
{
    crc ^= b;
    for (int i = 0; i < 8; i++)
        crc = (crc >> 1) ^ (CRC32_POLY_REFL & (0u - (crc & 1u)));
    return crc;
}

/* ICRC: CRC-32 over LRH..pad with LRH.VL and BTH.Resv8a read as ones. */
uint32_t pz_ib_icrc_local(const uint8_t *pkt, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;

    for (size_t i = 0; i < len; i++) {
        uint8_t b = pkt[i];

        if (i == 0)
            b |= 0xF0; /* VL is the high nibble of LRH byte 0 */
        else if (i == IB_BTH_RESV8A_OFF)
            b = 0xFF;
        crc = crc32_byte(crc, b);
    }
    return ~crc;
}

/* ICRC of a packet with a GRH: LRH.VL, GRH TClass, FlowLabel, HopLimit and BTH.Resv8a as ones. */
uint32_t pz_ib_icrc_global(const uint8_t *pkt, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;

    for (size_t i = 0; i < len; i++) {
        uint8_t b = pkt[i];
        size_t g = i - PZ_IB_LRH_LEN; /* offset in the GRH */

        if (i == 0)
            b |= 0xF0; /* VL */
        else if (i >= PZ_IB_LRH_LEN && g < 4)
            b = g == 0 ? (uint8_t)(b | 0x0F) : 0xFF; /* IPVer kept; TClass, FlowLabel */
        else if (i >= PZ_IB_LRH_LEN && g == 7)
            b = 0xFF; /* HopLimit */
        else if (i == IB_BTH_RESV8A_OFF + PZ_IB_GRH_LEN)
            b = 0xFF;
        crc = crc32_byte(crc, b);
    }
    return ~crc;
}

/* VCRC: CRC-16 (0x100B, reflected, seed 0xFFFF, inverted) over LRH..ICRC. */
uint16_t pz_ib_vcrc(const uint8_t *pkt, size_t len)
{
    uint16_t crc = 0xFFFF;

    for (size_t i = 0; i < len; i++) {
        crc ^= pkt[i];
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)((crc >> 1) ^ (CRC16_POLY_REFL & (0u - (crc & 1u))));
    }
    return (uint16_t)~crc;
}

/* Fill *pkt for a MAD with the defaults of an SMP (dest_qp 0) or a GMP. */
void pz_pcap_ud_mad(struct pz_pcap_ud *pkt, const uint8_t *mad, size_t len, uint16_t slid,
                    uint16_t dlid, uint32_t src_qp, uint32_t dest_qp)
{
    *pkt = (struct pz_pcap_ud){
        .vl = dest_qp == 0 ? 15 : 0,
        .sl = 0,
        .dlid = dlid,
        .slid = slid,
        .pkey = PZ_IB_DEFAULT_PKEY,
        .dest_qp = dest_qp,
        .psn = 0,
        .qkey = dest_qp == 0 ? 0 : PZ_IB_QKEY_GSI,
        .src_qp = src_qp,
        .payload = mad,
        .len = len,
    };
}

/* True if every field of pkt fits its header field and the payload is there. */
static bool ud_valid(const struct pz_pcap_ud *pkt)
{
    return pkt && pkt->vl <= 15 && pkt->sl <= 15 && pkt->dest_qp <= IB_QP_MAX &&
           pkt->src_qp <= IB_QP_MAX && pkt->psn <= IB_QP_MAX && pkt->len <= PZ_IB_MAX_PAYLOAD &&
           (pkt->payload || pkt->len == 0);
}

/*
 * Write LRH, GRH (if any), BTH and DETH for pkt at buf; words = LRH.PktLen,
 * pad = BTH.PadCnt, paylen = GRH.PayLen (BTH..ICRC bytes).
 */
static void put_ud_headers(const struct pz_pcap_ud *pkt, uint8_t *buf, unsigned words, unsigned pad,
                           unsigned paylen)
{
    size_t grh_len = pkt->grh ? PZ_IB_GRH_LEN : 0;
    uint8_t *lrh = buf, *bth = buf + PZ_IB_LRH_LEN + grh_len, *deth = bth + PZ_IB_BTH_LEN;

    lrh[0] = (uint8_t)(pkt->vl << 4); /* LVer 0 */
    lrh[1] = (uint8_t)(pkt->sl << 4 | (pkt->grh ? IB_LNH_IBA_GLOBAL : IB_LNH_IBA_LOCAL));
    if (pkt->grh) {
        memcpy(lrh + PZ_IB_LRH_LEN, pkt->grh, PZ_IB_GRH_LEN);
        be_put(lrh + PZ_IB_LRH_LEN + 4, paylen, 2);
    }
    be_put(lrh + 2, pkt->dlid, 2);
    be_put(lrh + 4, words & IB_PKTLEN_MAX, 2); /* reserved 5 bits 0 */
    be_put(lrh + 6, pkt->slid, 2);

    bth[0] = PZ_IB_OPCODE_UD_SEND_ONLY;
    bth[1] = (uint8_t)(pad << 4); /* SE 0, MigReq 0, TVer 0 */
    be_put(bth + 2, pkt->pkey, 2);
    bth[4] = 0; /* Resv8a */
    be_put(bth + 5, pkt->dest_qp, 3);
    bth[8] = 0; /* AckReq 0, reserved 7 bits */
    be_put(bth + 9, pkt->psn, 3);

    be_put(deth, pkt->qkey, 4);
    deth[4] = 0;
    be_put(deth + 5, pkt->src_qp, 3);
}

/* Frame pkt into buf; returns the frame length or -1 with errno. */
long pz_ib_frame_ud(const struct pz_pcap_ud *pkt, uint8_t *buf, size_t cap)
{
    size_t hdr, pad, body, total;

    if (!ud_valid(pkt) || !buf) {
        errno = EINVAL;
        return -1;
    }
    hdr = PZ_IB_UD_HDR_LEN + (pkt->grh ? PZ_IB_GRH_LEN : 0);
    pad = (4 - pkt->len % 4) % 4;
    body = hdr + pkt->len + pad; /* LRH..pad: what the ICRC covers */
    total = body + PZ_IB_ICRC_LEN + PZ_IB_VCRC_LEN;
    if (cap < total) {
        errno = ENOSPC;
        return -1;
    }
    put_ud_headers(pkt, buf, (unsigned)((body + PZ_IB_ICRC_LEN) / 4), (unsigned)pad,
                   (unsigned)(body + PZ_IB_ICRC_LEN - PZ_IB_LRH_LEN - (hdr - PZ_IB_UD_HDR_LEN)));
    if (pkt->len)
        memcpy(buf + hdr, pkt->payload, pkt->len);
    memset(buf + hdr + pkt->len, 0, pad);
    put_le(buf + body, pkt->grh ? pz_ib_icrc_global(buf, body) : pz_ib_icrc_local(buf, body), 4);
    put_le(buf + body + PZ_IB_ICRC_LEN, pz_ib_vcrc(buf, body + PZ_IB_ICRC_LEN), 2);
    return (long)total;
}

/* Copy "path: what" into err if there is room; returns NULL for the caller. */
static struct pz_pcap *open_failed(char *err, size_t errlen, const char *path, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", path, what);
    return NULL;
}

/* The pcap file header: nanosecond stamps, little-endian, InfiniBand links. */
static void put_file_header(uint8_t hdr[PCAP_FILE_HDR_LEN])
{
    put_le(hdr, PCAP_MAGIC_NSEC, 4);
    put_le(hdr + 4, PCAP_VERSION_MAJOR, 2);
    put_le(hdr + 6, PCAP_VERSION_MINOR, 2);
    put_le(hdr + 8, 0, 4);  /* thiszone */
    put_le(hdr + 12, 0, 4); /* sigfigs */
    put_le(hdr + 16, PCAP_SNAPLEN, 4);
    put_le(hdr + 20, PZ_PCAP_LINKTYPE_INFINIBAND, 4);
}

int pz_pcap_format_parse(const char *name, enum pz_pcap_format *fmt)
{
    if (name && !strcmp(name, "pcap")) {
        *fmt = PZ_PCAP_FORMAT_PCAP;
        return 0;
    }
    if (name && !strcmp(name, "erf")) {
        *fmt = PZ_PCAP_FORMAT_ERF;
        return 0;
    }
    return -1;
}

const char *pz_pcap_format_name(enum pz_pcap_format fmt)
{
    return fmt == PZ_PCAP_FORMAT_ERF ? "erf" : "pcap";
}

/* Write the file header of p's format (ERF has none); returns 0 or -1 with errno. */
static int write_file_header(struct pz_pcap *p)
{
    uint8_t hdr[PCAP_FILE_HDR_LEN];

    if (p->format == PZ_PCAP_FORMAT_ERF)
        return 0;
    put_file_header(hdr);
    return fwrite(hdr, sizeof(hdr), 1, p->f) == 1 ? 0 : -1;
}

/* Create the file and write its header; returns the writer or NULL with err. */
struct pz_pcap *pz_pcap_open_format(const char *path, enum pz_pcap_format fmt, char *err,
                                    size_t errlen)
{
    struct pz_pcap *p;

    if (!path)
        return open_failed(err, errlen, "(null)", "no path");
    if (fmt != PZ_PCAP_FORMAT_PCAP && fmt != PZ_PCAP_FORMAT_ERF)
        return open_failed(err, errlen, path, "unknown capture format");
    p = calloc(1, sizeof(*p));
    if (!p)
        return open_failed(err, errlen, path, strerror(errno));
    p->format = fmt;
    p->f = fopen(path, "wb");
    if (!p->f) {
        open_failed(err, errlen, path, strerror(errno));
        free(p);
        return NULL;
    }
    if (write_file_header(p) || fflush(p->f) != 0) {
        open_failed(err, errlen, path, strerror(errno));
        fclose(p->f);
        free(p);
        return NULL;
    }
    p->flush_ms = PZ_PCAP_DEFAULT_FLUSH_MS;
    clock_gettime(CLOCK_MONOTONIC, &p->last_flush);
    return p;
}

/* A pcap file (LINKTYPE_INFINIBAND); returns the writer or NULL with err. */
struct pz_pcap *pz_pcap_open(const char *path, char *err, size_t errlen)
{
    return pz_pcap_open_format(path, PZ_PCAP_FORMAT_PCAP, err, errlen);
}

unsigned long long pz_pcap_packets(const struct pz_pcap *p)
{
    return p ? p->packets : 0;
}

/* Set the flush interval in milliseconds (0: after every packet). */
void pz_pcap_set_flush_interval(struct pz_pcap *p, unsigned ms)
{
    p->flush_ms = ms;
}

/* Record a write error (the first one wins); returns -1 with errno set. */
static int write_failed(struct pz_pcap *p)
{
    if (!p->error)
        p->error = errno ? errno : EIO;
    errno = p->error;
    return -1;
}

/* Flush now. Returns 0 or -1 with errno. */
int pz_pcap_flush(struct pz_pcap *p)
{
    if (p->error) {
        errno = p->error;
        return -1;
    }
    if (fflush(p->f) != 0)
        return write_failed(p);
    clock_gettime(CLOCK_MONOTONIC, &p->last_flush);
    return 0;
}

/* Milliseconds of CLOCK_MONOTONIC since the last flush. */
static long long ms_since_flush(const struct pz_pcap *p)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - p->last_flush.tv_sec) * 1000 +
           (now.tv_nsec - p->last_flush.tv_nsec) / 1000000;
}

/* Write the pcap record header and the frame; returns 0 or -1 with errno. */
static int write_pcap_record(struct pz_pcap *p, const uint8_t *frame, size_t len,
                             const struct timespec *ts)
{
    uint8_t rec[PCAP_REC_HDR_LEN];

    put_le(rec, (uint32_t)ts->tv_sec, 4);
    put_le(rec + 4, (uint32_t)ts->tv_nsec, 4);
    put_le(rec + 8, (uint32_t)len, 4);  /* captured */
    put_le(rec + 12, (uint32_t)len, 4); /* on the wire */
    if (fwrite(rec, sizeof(rec), 1, p->f) != 1 || fwrite(frame, 1, len, p->f) != len)
        return -1;
    return 0;
}

/* Write one ERF record (header, frame, padding); returns 0 or -1 with errno. */
static int write_erf_record(struct pz_pcap *p, const uint8_t *frame, size_t len,
                            const struct timespec *ts)
{
    static const uint8_t zeros[ERF_ALIGN];
    uint8_t rec[PZ_ERF_HDR_LEN];
    size_t pad = (ERF_ALIGN - (PZ_ERF_HDR_LEN + len) % ERF_ALIGN) % ERF_ALIGN;
    /* 32.32 fixed point: the fraction is tv_nsec * 2^32 / 10^9. */
    uint64_t frac = ((uint64_t)ts->tv_nsec << 32) / 1000000000u;
    uint64_t stamp = (uint64_t)ts->tv_sec << 32 | frac;

    put_le(rec, (uint32_t)stamp, 4);
    put_le(rec + 4, (uint32_t)(stamp >> 32), 4);
    rec[8] = PZ_ERF_TYPE_INFINIBAND;
    rec[9] = ERF_FLAG_VARLEN;
    be_put(rec + 10, (uint32_t)(PZ_ERF_HDR_LEN + len + pad), 2); /* rlen */
    be_put(rec + 12, 0, 2);                                      /* lctr: nothing lost */
    be_put(rec + 14, (uint32_t)len, 2);                          /* wlen */
    if (fwrite(rec, sizeof(rec), 1, p->f) != 1 || fwrite(frame, 1, len, p->f) != len ||
        (pad && fwrite(zeros, 1, pad, p->f) != pad))
        return -1;
    return 0;
}

/* Largest frame a record of p's format can hold. */
static size_t max_frame(const struct pz_pcap *p)
{
    if (p->format == PZ_PCAP_FORMAT_ERF)
        return ERF_RLEN_MAX - PZ_ERF_HDR_LEN - (ERF_ALIGN - 1);
    return PCAP_SNAPLEN;
}

/* Append a framed packet with record header; flush if the interval is up. */
int pz_pcap_write_frame(struct pz_pcap *p, const uint8_t *frame, size_t len,
                        const struct timespec *ts)
{
    int rc;

    if (!p || !frame || !ts || len > max_frame(p) || ts->tv_nsec < 0 ||
        ts->tv_nsec >= 1000000000L) {
        errno = EINVAL;
        return -1;
    }
    if (p->error) {
        errno = p->error;
        return -1;
    }
    errno = 0;
    if (p->format == PZ_PCAP_FORMAT_ERF)
        rc = write_erf_record(p, frame, len, ts);
    else
        rc = write_pcap_record(p, frame, len, ts);
    if (rc)
        return write_failed(p);
    p->packets++;
    if (p->flush_ms == 0 || ms_since_flush(p) >= (long long)p->flush_ms)
        return pz_pcap_flush(p);
    return 0;
}

/* Frame pkt and append it stamped ts. Returns 0 or -1 with errno. */
int pz_pcap_write_ud_at(struct pz_pcap *p, const struct pz_pcap_ud *pkt, const struct timespec *ts)
{
    uint8_t frame[PZ_IB_UD_GRH_MAX_FRAME];
    long len = pz_ib_frame_ud(pkt, frame, sizeof(frame));

    if (len < 0)
        return -1;
    return pz_pcap_write_frame(p, frame, (size_t)len, ts);
}

/* Frame pkt and append it stamped now (CLOCK_REALTIME). */
int pz_pcap_write_ud(struct pz_pcap *p, const struct pz_pcap_ud *pkt)
{
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    return pz_pcap_write_ud_at(p, pkt, &now);
}

/* Flush, close, free. Returns 0 or -1 if some packet did not reach the file. */
int pz_pcap_close(struct pz_pcap *p)
{
    int rc;

    if (!p)
        return 0;
    rc = p->error ? -1 : 0;
    if (fclose(p->f) != 0)
        rc = -1;
    free(p);
    return rc;
}
