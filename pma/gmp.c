/*
 * gmp.c - request screening, response header and addressing shared by the
 * PMA and the Congestion Control agent.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "gmp.h"

int gmp_request_method(const uint8_t *mad, size_t len, unsigned mgmt_class)
{
    void *m = (void *)mad;
    unsigned method;

    if (len < IB_MAD_SIZE)
        return -1;
    if (mad_get_field(m, 0, IB_MAD_BASEVER_F) != 1)
        return -1; /* not an IBA MAD: its layout is unknown */
    if (mad_get_field(m, 0, IB_MAD_MGMTCLASS_F) != mgmt_class)
        return -1;
    if (mad_get_field(m, 0, IB_MAD_RESPONSE_F))
        return -1; /* nobody here asked */
    method = mad_get_field(m, 0, IB_MAD_METHOD_F);
    if (method == IB_MAD_METHOD_TRAP || method == IB_MAD_METHOD_TRAP_REPRESS)
        return -1; /* traps go to managers, not agents */
    return (int)method;
}

void gmp_make_response(uint8_t *mad, unsigned status)
{
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE & 0x7F);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
}

void gmp_reply_addr(const struct mad_addr *in, const struct board_identity *id,
                    struct mad_addr *out)
{
    memset(out, 0, sizeof(*out));
    out->lid_routed = true;
    if (id->node_type == BOARD_NODE_CA)
        out->port = in->port >= 1 && in->port <= id->num_ports ? in->port : 1;
    out->slid = in->dlid;
    out->dlid = in->slid;
    out->sl = in->sl;
    out->src_qp = 1;
    out->dst_qp = in->src_qp;
    out->qkey = IB_DEFAULT_QP1_QKEY;
    out->pkey = in->pkey;
}
