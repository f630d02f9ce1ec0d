/*
 * pcap_sample.c - write a small InfiniBand capture for test_pcap_tshark.sh:
 *   1. directed-route SMP (class 0x81) Get NodeInfo, permissive LIDs, VL 15
 *   2. LID-routed SMP (class 0x01) Get PortInfo port 3, LID 1 -> 5, VL 15
 *   3. PMA GMP (class 0x04) Get PortCounters port 2, QP1, LID 1 -> 5, VL 0
 *   4. PMA GetResp back, LID 5 -> 1, SL 1, P_Key 0x7FFF, PSN 77
 *   5. a 13-byte UD payload from QP 0x123456 (pad count 3)
 * Usage: pcap_sample [--erf] FILE (--erf: ERF records instead of pcap).
 * Prints "N ICRC VCRC" per packet, the trailer bytes in wire order as hex.
 * Exit status 0, or 1 with a message.
 */
#include <infiniband/mad.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mad_header.h"
#include "pcap.h"
#include "pzt.h"

#define SAMPLE_QP 0x123456u

/* A PMA PortCounters MAD (Get, or its GetResp) for port port_select. */
static void pma_port_counters(uint8_t mad[PZT_MAD], bool response, unsigned port_select)
{
    mad_header_init(mad, IB_PERFORMANCE_CLASS, 1, IB_MAD_METHOD_GET | (response ? 0x80 : 0), 0x1234,
                    IB_GSI_PORT_COUNTERS, 0);
    mad_set_field(mad + IB_PC_DATA_OFFS, 0, IB_PC_PORT_SELECT_F, port_select);
}

/* Append pkt stamped ts and print its number and trailer; returns 0 or -1. */
static int write_and_print(struct pz_pcap *p, int i, const struct pz_pcap_ud *pkt,
                           const struct timespec *ts)
{
    uint8_t frame[PZ_IB_UD_MAX_FRAME];
    long len = pz_ib_frame_ud(pkt, frame, sizeof(frame));
    const uint8_t *t;

    if (len < 0 || pz_pcap_write_ud_at(p, pkt, ts) < 0)
        return -1;
    t = frame + len - PZ_IB_ICRC_LEN - PZ_IB_VCRC_LEN;
    printf("%d 0x%02x%02x%02x%02x 0x%02x%02x\n", i + 1, t[0], t[1], t[2], t[3], t[4], t[5]);
    return 0;
}

/* Write packet number i (0-based) of the sample into p; returns the writer's result. */
static int write_sample(struct pz_pcap *p, int i)
{
    static const uint8_t path[] = {0, 1, 3};
    static const uint8_t text[] = "hello, world!";
    struct timespec ts = {.tv_sec = 1700000000 + i, .tv_nsec = 1000 * i};
    uint8_t mad[PZT_MAD];
    struct pz_pcap_ud pkt;

    switch (i) {
    case 0:
        pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 1, 2, 1, path, 0xFFFF, 0xFFFF);
        pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 0xFFFF, 0xFFFF, 0, 0);
        break;
    case 1:
        pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 3, 0, 2);
        pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 1, 5, 0, 0);
        break;
    case 2:
        pma_port_counters(mad, false, 2);
        pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 1, 5, 1, 1);
        break;
    case 3:
        pma_port_counters(mad, true, 2);
        pz_pcap_ud_mad(&pkt, mad, sizeof(mad), 5, 1, 1, 1);
        pkt.sl = 1;
        pkt.pkey = 0x7FFF;
        pkt.psn = 77;
        break;
    default:
        pz_pcap_ud_mad(&pkt, text, sizeof(text) - 1, 5, 1, SAMPLE_QP, 2);
        pkt.qkey = 0x11111111;
        break;
    }
    return write_and_print(p, i, &pkt, &ts);
}

int main(int argc, char **argv)
{
    enum pz_pcap_format fmt = PZ_PCAP_FORMAT_PCAP;
    char err[256];
    struct pz_pcap *p;

    if (argc == 3 && !strcmp(argv[1], "--erf")) {
        fmt = PZ_PCAP_FORMAT_ERF;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: pcap_sample [--erf] FILE\n");
        return 1;
    }
    p = pz_pcap_open_format(argv[1], fmt, err, sizeof(err));
    if (!p) {
        fprintf(stderr, "pcap_sample: %s\n", err);
        return 1;
    }
    for (int i = 0; i < 5; i++) {
        if (write_sample(p, i) < 0) {
            perror("pcap_sample: write");
            pz_pcap_close(p);
            return 1;
        }
    }
    if (pz_pcap_close(p) < 0) {
        perror("pcap_sample: close");
        return 1;
    }
    return 0;
}
