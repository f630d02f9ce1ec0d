/*
 * mcast_tool.c - a multicast group member for test_pzfabric_mcast.sh, run
 * as a umad2sim client (LD_PRELOAD, SIM_HOST) of pzfabric:
 *
 *   mcast_tool join MGID    SA Set MCMemberRecord (full member) for this
 *                           port; prints the group's MLID in hex
 *   mcast_tool send MLID    one vendor-class MAD (class 0x09, method Send)
 *                           to MLID, QP 0xFFFFFF
 *
 * Exit status 0, or 1 with a message.
 */
#include <arpa/inet.h>
#include <infiniband/mad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MCM_COMP_MGID (1u << 0)
#define MCM_COMP_PORTGID (1u << 1)
#define MCM_COMP_JOIN_STATE (1u << 16)
#define JOIN_FULL_MEMBER 1
#define MCAST_QP 0xFFFFFF
#define TIMEOUT_MS 2000

/* This port's GID: the link-local prefix and the port GUID from NodeInfo. */
static int own_port_gid(struct ibmad_port *port, uint8_t gid[16])
{
    ib_portid_t self = {0};
    uint8_t ni[IB_SMP_DATA_SIZE] = {0};
    uint64_t guid;

    self.drpath.cnt = 0; /* directed route, hop count 0: this node */
    if (!smp_query_via(ni, &self, IB_ATTR_NODE_INFO, 0, TIMEOUT_MS, port))
        return -1;
    guid = mad_get_field64(ni, 0, IB_NODE_PORT_GUID_F);
    memset(gid, 0, 16);
    gid[0] = 0xfe;
    gid[1] = 0x80;
    for (int i = 0; i < 8; i++)
        gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
    return 0;
}

/* Join the group MGID (text form) as a full member; prints its MLID. */
static int join(struct ibmad_port *port, const char *mgid_text)
{
    uint8_t rec[IB_SA_DATA_SIZE] = {0}, mgid[16], gid[16];
    ib_sa_call_t sa = {0};
    ib_portid_t sm = {0};

    if (inet_pton(AF_INET6, mgid_text, mgid) != 1) {
        fprintf(stderr, "mcast_tool: bad MGID %s\n", mgid_text);
        return 1;
    }
    if (own_port_gid(port, gid) || ib_resolve_smlid_via(&sm, TIMEOUT_MS, port)) {
        fprintf(stderr, "mcast_tool: cannot read this port's GID or the SM LID\n");
        return 1;
    }
    mad_encode_field(rec, IB_SA_MCM_MGID_F, mgid);
    mad_encode_field(rec, IB_SA_MCM_PORTGID_F, gid);
    mad_set_field(rec, 0, IB_SA_MCM_JOIN_STATE_F, JOIN_FULL_MEMBER);
    sa.attrid = IB_SA_ATTR_MCRECORD;
    sa.method = IB_MAD_METHOD_SET;
    sa.mask = MCM_COMP_MGID | MCM_COMP_PORTGID | MCM_COMP_JOIN_STATE;
    if (!sa_rpc_call(port, rec, &sm, &sa, TIMEOUT_MS)) {
        fprintf(stderr, "mcast_tool: the SA refused or did not answer the join\n");
        return 1;
    }
    printf("0x%04x\n", mad_get_field(rec, 0, IB_SA_MCM_MLID_F));
    return 0;
}

/* Send one MAD to the multicast LID (text form). */
static int send_to(struct ibmad_port *port, const char *mlid_text)
{
    uint8_t data[IB_VENDOR_RANGE1_DATA_SIZE] = "pzfabric multicast probe";
    ib_rpc_t rpc = {0};
    ib_portid_t dst = {0};
    char *end;
    unsigned long mlid = strtoul(mlid_text, &end, 0);

    if (*end || mlid < 0xC000 || mlid > 0xFFFE) {
        fprintf(stderr, "mcast_tool: bad multicast LID %s\n", mlid_text);
        return 1;
    }
    ib_portid_set(&dst, (int)mlid, MCAST_QP, 0);
    rpc.mgtclass = IB_VENDOR_RANGE1_START_CLASS;
    rpc.method = IB_MAD_METHOD_SEND;
    rpc.attr.id = 0x10;
    rpc.datasz = IB_VENDOR_RANGE1_DATA_SIZE;
    rpc.dataoffs = IB_VENDOR_RANGE1_DATA_OFFS;
    if (mad_send_via(&rpc, &dst, NULL, data, port) < 0) {
        fprintf(stderr, "mcast_tool: send failed\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int classes[] = {IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_VENDOR_RANGE1_START_CLASS};
    struct ibmad_port *port;
    int rc;

    if (argc != 3 || (strcmp(argv[1], "join") && strcmp(argv[1], "send"))) {
        fprintf(stderr, "usage: mcast_tool join MGID | send MLID\n");
        return 1;
    }
    port = mad_rpc_open_port(NULL, 0, classes, 3);
    if (!port) {
        fprintf(stderr, "mcast_tool: cannot open the umad port\n");
        return 1;
    }
    rc = strcmp(argv[1], "join") ? send_to(port, argv[2]) : join(port, argv[2]);
    mad_rpc_close_port(port);
    return rc;
}
