/*
 * sim_ctl.c - the ibsim control messages: attach and detach clients, and
 * answer what umad2sim asks to build its fake sysfs (NodeInfo, PortInfo,
 * P_Keys, vendor) from the client's node, read through the node's SMA.
 * A failed request is answered with type SIM_CTL_ERROR.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pzf_log.h"
#include "server_internal.h"

/* Whether the message names an attached client. */
static bool sim_ctl_client_ok(const struct sim_server *s, const struct sim_ctl *ctl)
{
    /* A client whose MADs travel on a board connection has no control channel. */
    return ctl->clientid < s->num_conns && s->conns[ctl->clientid].used &&
           !s->conns[ctl->clientid].board_agent && fabric_client_attached(s->f, ctl->clientid);
}

/* Read an attribute of the client's node into buf; returns 0 or -1. */
static int sim_ctl_attr(struct sim_server *s, const struct sim_ctl *ctl, uint16_t attr,
                        uint32_t mod, uint8_t buf[64])
{
    return fabric_client_get_attr(s->f, ctl->clientid, attr, mod, buf) ? -1 : 0;
}

/* Put an answer of len bytes into the control message's data, zero-padded. */
static void sim_ctl_answer(struct sim_ctl *ctl, const void *answer, size_t len)
{
    memset(ctl->data, 0, sizeof(ctl->data));
    memcpy(ctl->data, answer, len);
}

/* CONNECT: attach a client at $SIM_HOST (or the first node); returns 0 or -1. */
static int sim_ctl_connect(struct sim_server *s, struct sim_ctl *ctl)
{
    struct sim_client_info info;
    char host[sizeof(info.nodeid) + 1];
    long node = 0;
    unsigned id;
    int rc;

    memcpy(&info, ctl->data, sizeof(info));
    memcpy(host, info.nodeid, sizeof(info.nodeid));
    host[sizeof(info.nodeid)] = '\0';
    if (host[0] && (node = fabric_find_node(s->f, host)) < 0) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "pid %u: no node \"%s\" to attach to", info.id, host);
        return -1;
    }
    rc = sim_conn_open(s, info.id, &id);
    if (rc) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "pid %u: cannot open its packet socket: %s", info.id,
                strerror(-rc));
        return -1;
    }
    rc = fabric_client_attach(s->f, id, (size_t)node, info.issm != 0);
    if (rc) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "pid %u: cannot attach: %s", info.id, strerror(-rc));
        sim_conn_close(s, id);
        return -1;
    }
    info.id = id;
    memset(info.nodeid, 0, sizeof(info.nodeid));
    snprintf(info.nodeid, sizeof(info.nodeid), "%s", fabric_node_name(s->f, (size_t)node));
    memcpy(ctl->data, &info, sizeof(info));
    ctl->clientid = id;
    return 0;
}

/* GET_PORT: the client port's LID and PortState. */
static int sim_ctl_get_port(struct sim_server *s, struct sim_ctl *ctl)
{
    struct sim_port_info port = {0};
    uint8_t pi[64];

    if (sim_ctl_attr(s, ctl, IB_ATTR_PORT_INFO, 0, pi))
        return -1;
    port.lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F);
    port.state = (uint8_t)mad_get_field(pi, 0, IB_PORT_STATE_F);
    sim_ctl_answer(ctl, &port, sizeof(port));
    return 0;
}

/* GET_VENDOR: vendor, device and revision from NodeInfo; firmware 1 as ibsim. */
static int sim_ctl_get_vendor(struct sim_server *s, struct sim_ctl *ctl)
{
    struct sim_vendor_info v = {0};
    uint8_t ni[64];

    if (sim_ctl_attr(s, ctl, IB_ATTR_NODE_INFO, 0, ni))
        return -1;
    v.vendor_id = mad_get_field(ni, 0, IB_NODE_VENDORID_F);
    v.vendor_part_id = mad_get_field(ni, 0, IB_NODE_DEVID_F);
    v.hw_ver = mad_get_field(ni, 0, IB_NODE_REVISION_F);
    v.fw_ver = 1;
    sim_ctl_answer(ctl, &v, sizeof(v));
    return 0;
}

/* GET_GID: the port's GID (prefix and port GUID, network order). */
static int sim_ctl_get_gid(struct sim_server *s, struct sim_ctl *ctl)
{
    uint8_t pi[64], ni[64];

    if (sim_ctl_attr(s, ctl, IB_ATTR_PORT_INFO, 0, pi) ||
        sim_ctl_attr(s, ctl, IB_ATTR_NODE_INFO, 0, ni))
        return -1;
    memset(ctl->data, 0, sizeof(ctl->data));
    be64_put(ctl->data, mad_get_field64(pi, 0, IB_PORT_GID_PREFIX_F));
    be64_put(ctl->data + 8, mad_get_field64(ni, 0, IB_NODE_PORT_GUID_F));
    return 0;
}

/* GET_GUID: the node GUID in host order, as ibsim sends it. */
static int sim_ctl_get_guid(struct sim_server *s, struct sim_ctl *ctl)
{
    uint8_t ni[64];
    uint64_t guid;

    if (sim_ctl_attr(s, ctl, IB_ATTR_NODE_INFO, 0, ni))
        return -1;
    guid = mad_get_field64(ni, 0, IB_NODE_GUID_F);
    sim_ctl_answer(ctl, &guid, sizeof(guid));
    return 0;
}

/* GET_NODEINFO: the NodeInfo attribute as seen from the client's port. */
static int sim_ctl_get_nodeinfo(struct sim_server *s, struct sim_ctl *ctl)
{
    return sim_ctl_attr(s, ctl, IB_ATTR_NODE_INFO, 0, ctl->data);
}

/* GET_PORTINFO: PortInfo of port data[0] (0 or out of range: the client's port). */
static int sim_ctl_get_portinfo(struct sim_server *s, struct sim_ctl *ctl)
{
    unsigned want = ctl->data[0], port;
    size_t node;
    uint8_t ni[64];

    if (fabric_client_where(s->f, ctl->clientid, &node, &port) ||
        sim_ctl_attr(s, ctl, IB_ATTR_NODE_INFO, 0, ni))
        return -1;
    if (want == 0 || want > mad_get_field(ni, 0, IB_NODE_NPORTS_F))
        want = port;
    return sim_ctl_attr(s, ctl, IB_ATTR_PORT_INFO, want, ctl->data);
}

/* GET_PKEYS: the first 32 P_Keys of the client's port (network order). */
static int sim_ctl_get_pkeys(struct sim_server *s, struct sim_ctl *ctl)
{
    unsigned port;
    size_t node;

    if (fabric_client_where(s->f, ctl->clientid, &node, &port))
        return -1;
    return sim_ctl_attr(s, ctl, IB_ATTR_PKEY_TBL, (uint32_t)port << 16, ctl->data);
}

/* PZ_GET_REREG: the client's port's ClientReregister count, big-endian. */
static int sim_ctl_get_rereg(struct sim_server *s, struct sim_ctl *ctl)
{
    uint32_t count;
    uint8_t be[4];

    if (fabric_client_rereg_count(s->f, ctl->clientid, &count))
        return -1;
    for (int i = 0; i < 4; i++)
        be[i] = (uint8_t)(count >> (24 - 8 * i));
    sim_ctl_answer(ctl, be, sizeof(be));
    ctl->len = sizeof(be);
    return 0;
}

/* SET_ISSM: data holds an int, non-zero for "this client is a subnet manager". */
static int sim_ctl_set_issm(struct sim_server *s, struct sim_ctl *ctl)
{
    int issm;

    memcpy(&issm, ctl->data, sizeof(issm));
    pzf_log(s->verbose, PZF_LOG_INFO, "client %u: IsSM %s", ctl->clientid, issm ? "on" : "off");
    return fabric_client_set_issm(s->f, ctl->clientid, issm != 0) ? -1 : 0;
}

/* Run the handler of one message type on an attached client; returns 0 or -1. */
static int sim_ctl_dispatch(struct sim_server *s, struct sim_ctl *ctl)
{
    switch (ctl->type) {
    case SIM_CTL_DISCONNECT:
        sim_conn_close(s, ctl->clientid);
        return 0;
    case SIM_CTL_GET_PORT:
        return sim_ctl_get_port(s, ctl);
    case SIM_CTL_GET_VENDOR:
        return sim_ctl_get_vendor(s, ctl);
    case SIM_CTL_GET_GID:
        return sim_ctl_get_gid(s, ctl);
    case SIM_CTL_GET_GUID:
        return sim_ctl_get_guid(s, ctl);
    case SIM_CTL_GET_NODEINFO:
        return sim_ctl_get_nodeinfo(s, ctl);
    case SIM_CTL_GET_PORTINFO:
        return sim_ctl_get_portinfo(s, ctl);
    case SIM_CTL_SET_ISSM:
        return sim_ctl_set_issm(s, ctl);
    case SIM_CTL_GET_PKEYS:
        return sim_ctl_get_pkeys(s, ctl);
    case SIM_CTL_PZ_GET_REREG:
        return sim_ctl_get_rereg(s, ctl);
    default:
        pzf_log(s->verbose, PZF_LOG_ERROR, "control message of unknown type %u", ctl->type);
        return -1;
    }
}

void sim_ctl_handle(struct sim_server *s, struct sim_ctl *ctl)
{
    int rc;

    if (ctl->type == SIM_CTL_CONNECT) {
        rc = sim_ctl_connect(s, ctl);
    } else if (ctl->type == SIM_CTL_DISCONNECT && !sim_ctl_client_ok(s, ctl)) {
        rc = 0; /* already gone (detached when its socket vanished) */
    } else if (!sim_ctl_client_ok(s, ctl)) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "control message type %u for unknown client %u",
                ctl->type, ctl->clientid);
        rc = -1;
    } else {
        rc = sim_ctl_dispatch(s, ctl);
    }
    if (rc)
        ctl->type = SIM_CTL_ERROR;
}
