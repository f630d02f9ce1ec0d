/*
 * test_pcap.c - fabric/pcap: UD framing (LRH, BTH, DETH, pad), ICRC and VCRC
 * against a reference packet, the capture file layout, flushing and errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pcap.h"
#include "pzt.h"
#include "pzt_main.h"

/*
 * Reference: a local (LNH = IBA local) packet and its ICRC, from the packet
 * generator test data of Mellanox's ibutils (mpga, internal_functions.c):
 * VL 7, SL 1, DLID 0x375C, PktLen 14, SLID 0x17D2, BTH opcode 0x0A with pad
 * count 2, 52 bytes up to the ICRC, ICRC 96 25 B7 5A on the wire.
 */
static const uint8_t ref_pkt[] = {
    0x70, 0x12, 0x37, 0x5C, 0x00, 0x0E, 0x17, 0xD2, 0x0A, 0x20, 0x24, 0x87, 0x00, 0x87,
    0xB1, 0xB3, 0x00, 0x0D, 0xEC, 0x2A, 0x01, 0x71, 0x0A, 0x1C, 0x01, 0x5D, 0x40, 0x02,
    0x38, 0xF2, 0x7A, 0x05, 0x00, 0x00, 0x00, 0x0E, 0xBB, 0x88, 0x4D, 0x85, 0xFD, 0x5C,
    0xFB, 0xA4, 0x72, 0x8B, 0xC0, 0x69, 0x0E, 0xD4, 0x00, 0x00, 0x96, 0x25, 0xB7, 0x5A, /* ICRC */
};
#define REF_ICRC_OFF 52

/* Read a little-endian field of n bytes at p. */
static uint32_t get_le(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;

    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* A temporary file name for one test; the caller unlinks it. */
static void temp_path(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "%s/pz_test_pcap_%ld_%s.pcap", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), tag);
}

/* Read all of path into buf (cap bytes); returns the length. */
static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* The ICRC of the reference packet, masked VL and Resv8a included. */
static void test_icrc_reference(void **state)
{
    uint8_t pkt[sizeof(ref_pkt)];

    assert_int_equal(pz_ib_icrc_local(ref_pkt, REF_ICRC_OFF), get_le(ref_pkt + REF_ICRC_OFF, 4));
    assert_int_equal(pz_ib_icrc_local(ref_pkt, REF_ICRC_OFF), 0x5AB72596u);

    /* Variant fields do not change it: another VL, another Resv8a. */
    memcpy(pkt, ref_pkt, sizeof(pkt));
    pkt[0] = 0xF0 | (pkt[0] & 0x0F);
    pkt[12] = 0x5A;
    assert_int_equal(pz_ib_icrc_local(pkt, REF_ICRC_OFF), 0x5AB72596u);

    /* Everything else does: SL, a LID bit, a payload byte. */
    memcpy(pkt, ref_pkt, sizeof(pkt));
    pkt[1] ^= 0x10;
    assert_int_not_equal(pz_ib_icrc_local(pkt, REF_ICRC_OFF), 0x5AB72596u);
    memcpy(pkt, ref_pkt, sizeof(pkt));
    pkt[7] ^= 0x01;
    assert_int_not_equal(pz_ib_icrc_local(pkt, REF_ICRC_OFF), 0x5AB72596u);
    memcpy(pkt, ref_pkt, sizeof(pkt));
    pkt[40] ^= 0x80;
    assert_int_not_equal(pz_ib_icrc_local(pkt, REF_ICRC_OFF), 0x5AB72596u);
}

/*
 * The VCRC: CRC-16 0x100B reflected, seed 0xFFFF, inverted, the parameters
 * and table of the same generator (its table holds 0x1BA1 for index 0x01 and
 * 0xD008 for 0x80).  0xFA45 is the VCRC of the reference packet with its
 * ICRC, computed with a bit-by-bit model of those parameters.  The VCRC
 * covers the variant fields: another VL changes it.
 */
static void test_vcrc(void **state)
{
    const uint8_t fe = 0xFE, x7f = 0x7F;
    uint8_t buf[sizeof(ref_pkt) + 2], buf2[sizeof(ref_pkt) + 2];
    uint16_t v;

    /* One byte b: ~(table[b ^ 0xFF] ^ 0x00FF) with the generator's table. */
    assert_int_equal(pz_ib_vcrc(&fe, 1), (uint16_t) ~(0x1BA1 ^ 0x00FF));
    assert_int_equal(pz_ib_vcrc(&x7f, 1), (uint16_t) ~(0xD008 ^ 0x00FF));
    v = pz_ib_vcrc(ref_pkt, sizeof(ref_pkt));
    assert_int_equal(v, 0xFA45);
    memcpy(buf, ref_pkt, sizeof(ref_pkt));
    buf[sizeof(ref_pkt)] = (uint8_t)v;
    buf[sizeof(ref_pkt) + 1] = (uint8_t)(v >> 8);
    memcpy(buf2, buf, sizeof(buf));
    buf2[0] ^= 0x10; /* another VL */
    buf2[sizeof(ref_pkt)] = (uint8_t)pz_ib_vcrc(buf2, sizeof(ref_pkt));
    buf2[sizeof(ref_pkt) + 1] = (uint8_t)(pz_ib_vcrc(buf2, sizeof(ref_pkt)) >> 8);
    assert_int_not_equal(get_le(buf2 + sizeof(ref_pkt), 2), v);
    assert_int_equal(pz_ib_vcrc(buf, sizeof(buf)), pz_ib_vcrc(buf2, sizeof(buf2)));
}

/* An SMP with the defaults: VL 15, QP0, Q_Key 0, P_Key 0xFFFF; every header byte. */
static void test_frame_smp(void **state)
{
    uint8_t mad[256], frame[PZ_IB_UD_MAX_FRAME];
    struct pz_pcap_ud pkt;
    long len;

    for (size_t i = 0; i < sizeof(mad); i++)
        mad[i] = (uint8_t)i;
    pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 0x0001, 0x00AB, 0, 0);
    assert_int_equal(pkt.vl, 15);
    assert_int_equal(pkt.qkey, 0);
    assert_int_equal(pkt.pkey, 0xFFFF);
    len = pz_ib_frame_ud(&pkt, frame, sizeof(frame));
    assert_int_equal(len, 8 + 12 + 8 + 256 + 4 + 2);

    /* LRH: VL 15, LVer 0, SL 0, LNH 2 (IBA local), DLID, PktLen 72 words, SLID. */
    assert_int_equal(frame[0], 0xF0);
    assert_int_equal(frame[1], 0x02);
    assert_int_equal(pzt_be(frame + 2, 2), 0x00AB);
    assert_int_equal(pzt_be(frame + 4, 2), (8 + 12 + 8 + 256 + 4) / 4);
    assert_int_equal(pzt_be(frame + 6, 2), 0x0001);
    /* BTH: UD SEND_ONLY, no pad, P_Key, Resv8a 0, dest QP 0, A 0, PSN 0. */
    assert_int_equal(frame[8], 0x64);
    assert_int_equal(frame[9], 0x00);
    assert_int_equal(pzt_be(frame + 10, 2), 0xFFFF);
    assert_int_equal(frame[12], 0);
    assert_int_equal(pzt_be(frame + 13, 3), 0);
    assert_int_equal(pzt_be(frame + 16, 4), 0);
    /* DETH: Q_Key 0, reserved, source QP 0. */
    assert_int_equal(pzt_be(frame + 20, 4), 0);
    assert_int_equal(pzt_be(frame + 24, 4), 0);
    assert_memory_equal(frame + 28, mad, sizeof(mad));
    /* ICRC then VCRC, least significant byte first. */
    assert_int_equal(get_le(frame + 284, 4), pz_ib_icrc_local(frame, 284));
    assert_int_equal(get_le(frame + 288, 2), pz_ib_vcrc(frame, 288));
}

/* A GMP to QP1 with other values everywhere: VL 0, Q_Key 0x80010000, SL, P_Key, PSN. */
static void test_frame_gmp(void **state)
{
    uint8_t mad[256] = {1, 4, 1, 1}, frame[PZ_IB_UD_MAX_FRAME];
    struct pz_pcap_ud pkt;

    pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 0x1234, 0xBEEF, 1, 1);
    assert_int_equal(pkt.vl, 0);
    assert_int_equal(pkt.qkey, PZ_IB_QKEY_GSI);
    pkt.sl = 9;
    pkt.pkey = 0x8001;
    pkt.psn = 0xABCDEF;
    pkt.src_qp = 0x123456;
    pkt.dest_qp = 0xFEDCBA;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), 290);
    assert_int_equal(frame[0], 0x00);
    assert_int_equal(frame[1], 0x92);
    assert_int_equal(pzt_be(frame + 2, 2), 0xBEEF);
    assert_int_equal(pzt_be(frame + 6, 2), 0x1234);
    assert_int_equal(pzt_be(frame + 10, 2), 0x8001);
    assert_int_equal(pzt_be(frame + 13, 3), 0xFEDCBA);
    assert_int_equal(pzt_be(frame + 17, 3), 0xABCDEF);
    assert_int_equal(pzt_be(frame + 20, 4), 0x80010000u);
    assert_int_equal(pzt_be(frame + 25, 3), 0x123456);
    assert_int_equal(get_le(frame + 284, 4), pz_ib_icrc_local(frame, 284));
    assert_int_equal(get_le(frame + 288, 2), pz_ib_vcrc(frame, 288));
}

/* Payloads that are not a multiple of 4 get zero pad and BTH.PadCnt; limits. */
static void test_frame_pad_and_limits(void **state)
{
    uint8_t big[PZ_IB_MAX_PAYLOAD + 1] = {0};
    uint8_t frame[PZ_IB_UD_MAX_FRAME + 8];
    struct pz_pcap_ud pkt;

    memset(frame, 0xAA, sizeof(frame));
    pz_pcap_ud_mad(&pkt, (const uint8_t *)"hello, world!", 13, 5, 1, 0x123456, 2);
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), 28 + 16 + 6);
    assert_int_equal(frame[9] >> 4 & 3, 3);                    /* PadCnt */
    assert_int_equal(pzt_be(frame + 4, 2), (28 + 16 + 4) / 4); /* PktLen */
    assert_memory_equal(frame + 28, "hello, world!\0\0\0", 16);
    assert_int_equal(get_le(frame + 44, 4), pz_ib_icrc_local(frame, 44));

    pkt.payload = NULL; /* an empty payload needs no buffer */
    pkt.len = 0;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), 28 + 6);
    assert_int_equal(pzt_be(frame + 4, 2), 8);

    pkt.payload = big;
    pkt.len = PZ_IB_MAX_PAYLOAD;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), PZ_IB_UD_MAX_FRAME);
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, PZ_IB_UD_MAX_FRAME - 1), -1);
    assert_int_equal(errno, ENOSPC);
    pkt.len = PZ_IB_MAX_PAYLOAD + 1;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    assert_int_equal(errno, EINVAL);

    pz_pcap_ud_mad(&pkt, big, 256, 1, 2, 0, 0);
    pkt.vl = 16;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    pz_pcap_ud_mad(&pkt, big, 256, 1, 2, 0, 0);
    pkt.sl = 16;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    pz_pcap_ud_mad(&pkt, big, 256, 1, 2, 0x1000000, 0);
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    pz_pcap_ud_mad(&pkt, big, 256, 1, 2, 0, 0);
    pkt.psn = 0x1000000;
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    pz_pcap_ud_mad(&pkt, NULL, 256, 1, 2, 0, 0);
    assert_int_equal(pz_ib_frame_ud(&pkt, frame, sizeof(frame)), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(pz_ib_frame_ud(NULL, frame, sizeof(frame)), -1);
}

/* The file: global header, record headers with the given stamps, the frames. */
static void test_file_layout(void **state)
{
    uint8_t file[4096];
    uint8_t mad[256] = {1, 0x81, 1, 1}, frame[PZ_IB_UD_MAX_FRAME];
    struct timespec t1 = {.tv_sec = 1700000000, .tv_nsec = 123456789}, before, after;
    struct pz_pcap_ud pkt;
    char path[256], err[128];
    struct pz_pcap *p;
    long flen;
    size_t n, off;

    temp_path(path, sizeof(path), "layout");
    p = pz_pcap_open(path, err, sizeof(err));
    assert_non_null(p);
    pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 0xFFFF, 0xFFFF, 0, 0);
    flen = pz_ib_frame_ud(&pkt, frame, sizeof(frame));
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &t1), 0);
    clock_gettime(CLOCK_REALTIME, &before);
    assert_int_equal(pz_pcap_write_ud(p, &pkt), 0);
    clock_gettime(CLOCK_REALTIME, &after);
    assert_int_equal(pz_pcap_close(p), 0);

    n = slurp(path, file, sizeof(file));
    unlink(path);
    assert_int_equal(n, 24 + 2 * (16 + flen));
    assert_int_equal(get_le(file, 4), 0xa1b23c4du); /* nanosecond pcap */
    assert_int_equal(get_le(file + 4, 2), 2);
    assert_int_equal(get_le(file + 6, 2), 4);
    assert_int_equal(get_le(file + 8, 4), 0);
    assert_int_equal(get_le(file + 12, 4), 0);
    assert_true(get_le(file + 16, 4) >= PZ_IB_UD_MAX_FRAME);
    assert_int_equal(get_le(file + 20, 4), PZ_PCAP_LINKTYPE_INFINIBAND);
    off = 24;
    assert_int_equal(get_le(file + off, 4), 1700000000u);
    assert_int_equal(get_le(file + off + 4, 4), 123456789u);
    assert_int_equal(get_le(file + off + 8, 4), flen);
    assert_int_equal(get_le(file + off + 12, 4), flen);
    assert_memory_equal(file + off + 16, frame, (size_t)flen);
    off += 16 + (size_t)flen;
    assert_in_range(get_le(file + off, 4), (uint32_t)before.tv_sec, (uint32_t)after.tv_sec);
    assert_in_range(get_le(file + off + 4, 4), 0, 999999999);
    assert_int_equal(get_le(file + off + 8, 4), flen);
    assert_memory_equal(file + off + 16, frame, (size_t)flen);
}

/* Size of the file at path. */
static long file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

/* Interval 0 flushes every packet; a long interval keeps them until a flush. */
static void test_flush_interval(void **state)
{
    uint8_t mad[256] = {0};
    struct timespec t = {.tv_sec = 1, .tv_nsec = 0};
    struct pz_pcap_ud pkt;
    char path[256], err[128];
    struct pz_pcap *p;

    temp_path(path, sizeof(path), "flush");
    pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 1, 2, 0, 0);
    p = pz_pcap_open(path, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(file_size(path), 24); /* the header is written at once */
    pz_pcap_set_flush_interval(p, 0);
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &t), 0);
    assert_int_equal(file_size(path), 24 + 16 + 290);
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &t), 0);
    assert_int_equal(file_size(path), 24 + 2 * (16 + 290));

    pz_pcap_set_flush_interval(p, 3600 * 1000);
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &t), 0);
    assert_int_equal(file_size(path), 24 + 2 * (16 + 290));
    assert_int_equal(pz_pcap_flush(p), 0);
    assert_int_equal(file_size(path), 24 + 3 * (16 + 290));
    assert_int_equal(pz_pcap_close(p), 0);
    unlink(path);
}

/* Open failures name the path; bad packets and stamps are EINVAL; close(NULL). */
static void test_errors(void **state)
{
    uint8_t mad[256] = {0};
    struct timespec bad_ts = {.tv_sec = 1, .tv_nsec = 1000000000L}, ts = {0};
    struct pz_pcap_ud pkt;
    char path[256], err[160] = "";
    struct pz_pcap *p;

    assert_null(pz_pcap_open("/nonexistent-dir/x.pcap", err, sizeof(err)));
    assert_string_equal(err, "/nonexistent-dir/x.pcap: No such file or directory");
    assert_null(pz_pcap_open("/nonexistent-dir/x.pcap", NULL, 0));
    if (access("/dev/full", W_OK) == 0) { /* the header cannot be written */
        assert_null(pz_pcap_open("/dev/full", err, sizeof(err)));
        assert_string_equal(err, "/dev/full: No space left on device");
    }

    temp_path(path, sizeof(path), "errors");
    p = pz_pcap_open(path, err, sizeof(err));
    assert_non_null(p);
    pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 1, 2, 0, 0);
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &bad_ts), -1);
    assert_int_equal(errno, EINVAL);
    pkt.vl = 16;
    assert_int_equal(pz_pcap_write_ud_at(p, &pkt, &ts), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(pz_pcap_write_frame(p, mad, 70000, &ts), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(pz_pcap_close(p), 0);
    assert_int_equal(file_size(path), 24); /* nothing half-written */
    unlink(path);
    assert_int_equal(pz_pcap_close(NULL), 0);
}

PZT_MAIN(test_icrc_reference, test_vcrc, test_frame_smp, test_frame_gmp, test_frame_pad_and_limits,
         test_file_layout, test_flush_interval, test_errors)
