/*
 * pcap.h - capture files of InfiniBand packets (pcap, LINKTYPE_INFINIBAND =
 * 247: each record is one packet as it crosses a link, from the LRH to the
 * VCRC), and the packet framing they need: UD packets with a local route
 * header (LNH = IBA local: LRH, BTH, DETH, payload, ICRC, VCRC).
 *
 * CRCs (IBA 7.8): the ICRC is CRC-32 (the Ethernet polynomial, seed and final
 * inversion) over LRH..payload with the variant fields (LRH.VL and
 * BTH.Resv8a) taken as all ones; the VCRC is CRC-16 (polynomial 0x100B, seed
 * 0xFFFF, inverted) over LRH..ICRC.  Both are sent least significant byte
 * first.
 *
 * A struct pz_pcap is used by one thread at a time; the module has no global
 * state.  Files are written little-endian with nanosecond timestamps.
 *
 * Two file formats hold the same records (each one packet, LRH..VCRC):
 *   pcap  LINKTYPE_INFINIBAND (247), the default.  Wireshark 4.0 maps no
 *         pcap link type to its InfiniBand dissector: read a copy whose
 *         link type (4 bytes at offset 20) is USER0 (147) with a user DLT
 *         entry "infiniband" (fabric/README.md has the commands);
 *   erf   Endace ERF records of type 21 (InfiniBand), no file header: stock
 *         tshark/Wireshark decode these directly.  Each record is a 16-byte
 *         header (time stamp as 32.32 fixed-point seconds, little-endian;
 *         type; flags 0x04 = variable length; rlen, lctr 0 and wlen
 *         big-endian), the frame, and zero padding to a multiple of 8.
 */
#ifndef PZ_PCAP_H
#define PZ_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PZ_PCAP_LINKTYPE_INFINIBAND 247
#define PZ_ERF_TYPE_INFINIBAND 21
#define PZ_ERF_HDR_LEN 16
#define PZ_IB_LRH_LEN 8
#define PZ_IB_BTH_LEN 12
#define PZ_IB_DETH_LEN 8
#define PZ_IB_ICRC_LEN 4
#define PZ_IB_VCRC_LEN 2
#define PZ_IB_UD_HDR_LEN (PZ_IB_LRH_LEN + PZ_IB_BTH_LEN + PZ_IB_DETH_LEN)
#define PZ_IB_MAX_PAYLOAD 4096 /* largest IB MTU */
/* Largest UD frame: headers, payload, pad, ICRC, VCRC. */
#define PZ_IB_UD_MAX_FRAME (PZ_IB_UD_HDR_LEN + PZ_IB_MAX_PAYLOAD + PZ_IB_ICRC_LEN + PZ_IB_VCRC_LEN)

#define PZ_IB_GRH_LEN 40
/* Largest UD frame with a GRH (multicast datagrams). */
#define PZ_IB_UD_GRH_MAX_FRAME (PZ_IB_UD_MAX_FRAME + PZ_IB_GRH_LEN)
#define PZ_IB_GRH_NXTHDR_BTH 0x1B /* GRH.NxtHdr: an IBA transport header follows */

#define PZ_IB_OPCODE_UD_SEND_ONLY 0x64
#define PZ_IB_QKEY_GSI 0x80010000u /* Q_Key of QP1 (GMPs) */
#define PZ_IB_DEFAULT_PKEY 0xFFFFu
#define PZ_PCAP_DEFAULT_FLUSH_MS 1000u

/* One UD SEND_ONLY packet on a link. */
struct pz_pcap_ud {
    uint8_t vl;             /* LRH virtual lane: 15 for SMPs (QP0), else 0..14 */
    uint8_t sl;             /* LRH service level, 0..15 */
    uint16_t dlid;          /* LRH destination LID */
    uint16_t slid;          /* LRH source LID */
    uint16_t pkey;          /* BTH P_Key */
    uint32_t dest_qp;       /* BTH destination QP, 24 bits */
    uint32_t psn;           /* BTH packet sequence number, 24 bits */
    uint32_t qkey;          /* DETH Q_Key: 0 for QP0, PZ_IB_QKEY_GSI for QP1 */
    uint32_t src_qp;        /* DETH source QP, 24 bits */
    const uint8_t *payload; /* e.g. the 256-byte MAD */
    size_t len;             /* payload bytes, at most PZ_IB_MAX_PAYLOAD */
    /*
     * NULL, or the 40-byte GRH to send after the LRH (LNH = IBA global), as
     * on the wire; its PayLen is written by the framer, the rest as given.
     */
    const uint8_t *grh;
};

struct pz_pcap;

/* The file formats the writer knows. */
enum pz_pcap_format {
    PZ_PCAP_FORMAT_PCAP = 0, /* pcap, LINKTYPE_INFINIBAND */
    PZ_PCAP_FORMAT_ERF = 1,  /* ERF type 21 records */
};

/* The format named name ("pcap" or "erf"); returns 0, or -1 for another name. */
int pz_pcap_format_parse(const char *name, enum pz_pcap_format *fmt);

/* The name of a format ("pcap", "erf"). */
const char *pz_pcap_format_name(enum pz_pcap_format fmt);

/*
 * Describe a MAD of len bytes (normally 256) sent from QP src_qp at slid to
 * QP dest_qp at dlid, with the defaults: VL 15 and Q_Key 0 when dest_qp is 0
 * (an SMP), else VL 0 and Q_Key 0x80010000; SL 0, P_Key 0xFFFF, PSN 0.
 */
void pz_pcap_ud_mad(struct pz_pcap_ud *pkt, const uint8_t *mad, size_t len, uint16_t slid,
                    uint16_t dlid, uint32_t src_qp, uint32_t dest_qp);

/*
 * Frame pkt into buf (cap bytes): LRH (LNH = IBA local, or global with the
 * GRH when pkt->grh is set), BTH (UD SEND_ONLY,
 * pad count for a payload that is not a multiple of 4), DETH, payload, zero
 * pad, ICRC, VCRC.  Returns the frame length, or -1 with errno = EINVAL
 * (field out of range, payload too long or missing) or ENOSPC (cap too small).
 */
long pz_ib_frame_ud(const struct pz_pcap_ud *pkt, uint8_t *buf, size_t cap);

/*
 * ICRC of a local (LNH = IBA local, no GRH) packet whose LRH..pad is the len
 * bytes at pkt (len >= 20).  Returns the CRC; it is sent least significant
 * byte first.
 */
uint32_t pz_ib_icrc_local(const uint8_t *pkt, size_t len);

/*
 * ICRC of a global packet (LRH, GRH, BTH, ...: len bytes up to the ICRC):
 * the variant fields LRH.VL, GRH TClass/FlowLabel/HopLimit and BTH.Resv8a
 * read as ones (IBA 7.8.1).
 */
uint32_t pz_ib_icrc_global(const uint8_t *pkt, size_t len);

/* VCRC of the len bytes at pkt (LRH..ICRC). Sent least significant byte first. */
uint16_t pz_ib_vcrc(const uint8_t *pkt, size_t len);

/*
 * Create (truncate) the capture file at path and write its header.  Returns
 * the writer, or NULL with a message naming the path in err (errlen bytes).
 * Buffered output is flushed at most every PZ_PCAP_DEFAULT_FLUSH_MS.
 */
struct pz_pcap *pz_pcap_open(const char *path, char *err, size_t errlen);

/* The same in format fmt (an ERF file has no header: it starts empty). */
struct pz_pcap *pz_pcap_open_format(const char *path, enum pz_pcap_format fmt, char *err,
                                    size_t errlen);

/* Number of packets appended so far. */
unsigned long long pz_pcap_packets(const struct pz_pcap *p);

/*
 * Flush buffered packets to the file when ms milliseconds have passed since
 * the last flush (checked on every write); 0 flushes after every packet.
 */
void pz_pcap_set_flush_interval(struct pz_pcap *p, unsigned ms);

/*
 * Append one UD packet stamped with the current CLOCK_REALTIME.  Returns 0,
 * or -1 with errno set (EINVAL for a bad packet, else the I/O error; after an
 * I/O error every later write fails too).
 */
int pz_pcap_write_ud(struct pz_pcap *p, const struct pz_pcap_ud *pkt);

/* Same with the time stamp ts (for emulated clocks and tests). */
int pz_pcap_write_ud_at(struct pz_pcap *p, const struct pz_pcap_ud *pkt, const struct timespec *ts);

/* Append an already framed packet (LRH..VCRC, len bytes) stamped ts. Returns 0 or -1. */
int pz_pcap_write_frame(struct pz_pcap *p, const uint8_t *frame, size_t len,
                        const struct timespec *ts);

/* Write buffered packets to the file now. Returns 0 or -1 with errno set. */
int pz_pcap_flush(struct pz_pcap *p);

/*
 * Flush, close and free the writer (NULL is fine).  Returns 0, or -1 if
 * anything written since the open failed to reach the file.
 */
int pz_pcap_close(struct pz_pcap *p);

#endif /* PZ_PCAP_H */
