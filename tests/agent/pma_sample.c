/*
 * pma_sample.c - one PMA sampling session, as a performance manager runs it
 * (infiniband-diags has no tool that sets PortSamplesControl): a Set of
 * PortSamplesControl, a wait past its end, a Get of PortSamplesResult.  Run
 * it through libumad2sim.so like the diags.
 *
 * usage: pma_sample LID PORT INTERVAL_US
 *   samples PortXmitData, PortRcvData, PortXmitPkts, PortRcvPkts and
 *   PortXmitWait (CounterSelect 1-5) of PORT (255: all ports) for
 *   INTERVAL_US ticks of 1 us, starting at once, then prints
 *   "status S tag T xmit_data D rcv_data D xmit_pkts P rcv_pkts P xmit_wait W"
 *   (S: PortSamplesResult.SampleStatus, 0 = done).
 * Exit status: 0 answered, 1 failure (MAD error or timeout), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>

#define PS_ATTR_CONTROL 0x0010
#define PS_ATTR_RESULT 0x0011
#define PS_TAG 0x5a17
#define PS_TIMEOUT_MS 3000
#define PS_COUNTERS 5 /* CounterSelect 1..5: IBA's mandatory set */

/* One PMA Get or Set of attr to portid, data in and out; returns 0 or -1 (prints why). */
static int ps_rpc(struct ibmad_port *srcport, ib_portid_t *portid, unsigned method, unsigned attr,
                  uint8_t *data)
{
    ib_rpc_t rpc;

    memset(&rpc, 0, sizeof(rpc));
    rpc.mgtclass = IB_PERFORMANCE_CLASS;
    rpc.method = method;
    rpc.attr.id = attr;
    rpc.timeout = PS_TIMEOUT_MS;
    rpc.datasz = IB_PC_DATA_SZ;
    rpc.dataoffs = IB_PC_DATA_OFFS;
    portid->qp = 1;
    if (!portid->qkey)
        portid->qkey = IB_DEFAULT_QP1_QKEY;
    if (!mad_rpc(srcport, &rpc, portid, data, data)) {
        fprintf(stderr, "pma_sample: attribute 0x%04x method %u: no answer or status 0x%x\n", attr,
                method, rpc.rstatus);
        return -1;
    }
    return 0;
}

/* Fill a PortSamplesControl Set: port, interval, our Tag, CounterSelect 1..5. */
static void ps_control(uint8_t *data, unsigned port, unsigned interval)
{
    memset(data, 0, IB_PC_DATA_SZ);
    mad_set_field(data, 0, IB_PSC_PORT_SELECT_F, port);
    mad_set_field(data, 0, IB_PSC_SAMPLE_START_F, 0);
    mad_set_field(data, 0, IB_PSC_SAMPLE_INTVL_F, interval);
    mad_set_field(data, 0, IB_PSC_TAG_F, PS_TAG);
    for (unsigned i = 0; i < PS_COUNTERS; i++)
        mad_set_field(data, 0, (enum MAD_FIELDS)(IB_PSC_COUNTER_SEL0_F + i), i + 1);
}

/* Print a PortSamplesResult: status, tag and the five counters. */
static void ps_print(uint8_t *data)
{
    static const char *const names[PS_COUNTERS] = {"xmit_data", "rcv_data", "xmit_pkts", "rcv_pkts",
                                                   "xmit_wait"};

    printf("status %u tag 0x%04x", mad_get_field(data, 0, IB_PSR_SAMPLE_STATUS_F),
           mad_get_field(data, 0, IB_PSR_TAG_F));
    for (unsigned i = 0; i < PS_COUNTERS; i++)
        printf(" %s %u", names[i],
               mad_get_field(data, 0, (enum MAD_FIELDS)(IB_PSR_COUNTER0_F + i)));
    printf("\n");
}

int main(int argc, char **argv)
{
    int classes[] = {IB_PERFORMANCE_CLASS};
    uint8_t data[IB_PC_DATA_SZ];
    struct ibmad_port *srcport;
    ib_portid_t portid;
    unsigned long interval;
    int rc;

    if (argc != 4) {
        fprintf(stderr, "usage: pma_sample LID PORT INTERVAL_US\n");
        return 2;
    }
    interval = strtoul(argv[3], NULL, 0);
    srcport = mad_rpc_open_port(NULL, 0, classes, 1);
    if (!srcport) {
        fprintf(stderr, "pma_sample: cannot open the umad port\n");
        return 1;
    }
    memset(&portid, 0, sizeof(portid));
    portid.lid = (int)strtol(argv[1], NULL, 0);
    ps_control(data, (unsigned)strtoul(argv[2], NULL, 0), (unsigned)interval);
    rc = ps_rpc(srcport, &portid, IB_MAD_METHOD_SET, PS_ATTR_CONTROL, data);
    if (rc == 0) {
        /* Past the end by 300 ms: the session is done however late the answer comes. */
        usleep((useconds_t)(interval + 300000));
        memset(data, 0, sizeof(data));
        rc = ps_rpc(srcport, &portid, IB_MAD_METHOD_GET, PS_ATTR_RESULT, data);
    }
    if (rc == 0)
        ps_print(data);
    mad_rpc_close_port(srcport);
    return rc ? 1 : 0;
}
