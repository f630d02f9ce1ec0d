/*
 * cc_agent.c - Congestion Control agent instance, MAD reception, CC_Key
 * gate, dispatch, status codes, ClassPortInfo, CongestionInfo and TimeStamp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "cc_internal.h"

/* Which kind of node answers an attribute. */
enum cc_node_kind { CC_ANY, CC_SWITCH_ONLY, CC_CA_ONLY };

/* How the agent answers one attribute (NULL set: read-only). */
struct cc_attr_entry {
    uint16_t id;
    cc_attr_fn *get;
    cc_attr_fn *set;
    enum cc_node_kind kind;
    bool blocks; /* AttrMod selects a block; otherwise it must be 0 */
};

static uint16_t cc_cpi_get(struct cc_agent *cc, struct cc_req *req);
static uint16_t cc_info_get(struct cc_agent *cc, struct cc_req *req);
static uint16_t cc_timestamp_get(struct cc_agent *cc, struct cc_req *req);

/* Every attribute the agent answers; all others get status 0x0C. */
static const struct cc_attr_entry cc_attrs[] = {
    {CLASS_PORT_INFO, cc_cpi_get, NULL, CC_ANY, false},
    {IB_CC_ATTR_CONGESTION_INFO, cc_info_get, NULL, CC_ANY, false},
    {IB_CC_ATTR_CONGESTION_KEY_INFO, cc_key_info_get, cc_key_info_set, CC_ANY, false},
    {IB_CC_ATTR_CONGESTION_LOG, cc_log_get, NULL, CC_ANY, false},
    {IB_CC_ATTR_SWITCH_CONGESTION_SETTING, cc_switch_setting_get, cc_switch_setting_set,
     CC_SWITCH_ONLY, false},
    {IB_CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, cc_port_setting_get, cc_port_setting_set,
     CC_SWITCH_ONLY, true},
    {IB_CC_ATTR_CA_CONGESTION_SETTING, cc_ca_setting_get, cc_ca_setting_set, CC_CA_ONLY, false},
    {IB_CC_ATTR_CONGESTION_CONTROL_TABLE, cc_cct_get, cc_cct_set, CC_CA_ONLY, true},
    {IB_CC_ATTR_TIMESTAMP, cc_timestamp_get, NULL, CC_ANY, false},
};

/* The table entry for attr_id on this node, or NULL. */
static const struct cc_attr_entry *cc_find_attr(const struct cc_agent *cc, unsigned attr_id)
{
    for (size_t i = 0; i < sizeof(cc_attrs) / sizeof(cc_attrs[0]); i++) {
        const struct cc_attr_entry *e = &cc_attrs[i];

        if (e->id != attr_id)
            continue;
        if ((e->kind == CC_SWITCH_ONLY && !cc->is_switch) ||
            (e->kind == CC_CA_ONLY && cc->is_switch))
            return NULL;
        return e;
    }
    return NULL;
}

/* ClassPortInfo: class version 2, no optional capabilities, no redirection. */
static uint16_t cc_cpi_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = req->out + GMP_DATA_OFFS;

    (void)cc;
    mad_set_field(d, 0, IB_CPI_BASEVER_F, 1);
    mad_set_field(d, 0, IB_CPI_CLASSVER_F, CC_CLASS_VERSION);
    mad_set_field(d, 0, IB_CPI_RESP_TIME_VALUE_F, CC_RESP_TIME_VALUE);
    return MAD_STATUS_OK;
}

/*
 * CongestionInfo: no credit starvation (the board has no such mechanism);
 * ControlTableCap is the CA's number of 64-entry CCT blocks, 0 on a switch.
 */
static uint16_t cc_info_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = req->out + GMP_DATA_OFFS;

    mad_set_field(d, 0, IB_CC_CONGESTION_INFO_F, 0);
    mad_set_field(d, 0, IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F,
                  cc->is_switch ? 0 : CC_CCT_BLOCKS);
    return MAD_STATUS_OK;
}

/* TimeStamp: the congestion clock now. */
static uint16_t cc_timestamp_get(struct cc_agent *cc, struct cc_req *req)
{
    mad_set_field(req->out + GMP_DATA_OFFS, 0, IB_CC_TIMESTAMP_F, cc_timestamp(cc));
    return MAD_STATUS_OK;
}

uint32_t cc_timestamp(const struct cc_agent *cc)
{
    return (uint32_t)(board_now_ns(cc->board) / 1024);
}

struct cc_agent *cc_create(const struct board *board)
{
    struct cc_agent *cc;

    if (!board || !board->id || !board->ops || board->id->num_ports == 0)
        return NULL;
    cc = calloc(1, sizeof(*cc));
    if (!cc)
        return NULL;
    cc->board = board;
    cc->is_switch = board->id->node_type == BOARD_NODE_SWITCH;
    cc->num_ports = board->id->num_ports;
    cc->ports = calloc(cc->num_ports + 1, sizeof(*cc->ports));
    if (!cc->ports) {
        free(cc);
        return NULL;
    }
    return cc;
}

void cc_destroy(struct cc_agent *cc)
{
    if (!cc)
        return;
    free(cc->ports);
    free(cc);
}

/* Run the attribute handler for a request; returns the MAD status. */
static uint16_t cc_dispatch(struct cc_agent *cc, struct cc_req *req)
{
    const struct cc_attr_entry *e;

    if (req->method != IB_MAD_METHOD_GET && req->method != IB_MAD_METHOD_SET)
        return MAD_STATUS_BAD_METHOD;
    e = cc_find_attr(cc, req->attr_id);
    if (!e || (req->method == IB_MAD_METHOD_SET && !e->set))
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (!e->blocks && req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    return req->method == IB_MAD_METHOD_GET ? e->get(cc, req) : e->set(cc, req);
}

enum mad_verdict cc_process(struct cc_agent *cc, const struct mad_addr *in_addr, const uint8_t *in,
                            size_t in_len, struct mad_addr *out_addr, uint8_t out[CC_MAD_SIZE])
{
    int method = gmp_request_method(in, in_len, IB_CC_CLASS);
    enum cc_key_verdict key;
    struct cc_req req;
    uint16_t status;

    cc->stats.mads_received++;
    if (method < 0 || in_addr->port > cc->num_ports) {
        cc->stats.dropped++;
        return MAD_DROP;
    }
    key = cc_key_check(cc, in, (unsigned)method, board_now_ns(cc->board));
    if (key == CC_KEY_VIOLATION)
        return MAD_DROP;
    memcpy(out, in, CC_MAD_SIZE);
    memset(out + CC_LOG_DATA_OFFS, 0, CC_MAD_SIZE - CC_LOG_DATA_OFFS);
    req.method = (uint8_t)method;
    req.attr_id = (uint16_t)mad_get_field(out, 0, IB_MAD_ATTRID_F);
    req.attr_mod = mad_get_field(out, 0, IB_MAD_ATTRMOD_F);
    req.hide_key = key == CC_KEY_OK_HIDE;
    req.in = in;
    req.out = out;
    if (mad_get_field(out, 0, IB_MAD_CLASSVER_F) != CC_CLASS_VERSION)
        status = MAD_STATUS_BAD_VERSION;
    else
        status = cc_dispatch(cc, &req);
    if (status != MAD_STATUS_OK) /* echo the request */
        memcpy(out + CC_LOG_DATA_OFFS, in + CC_LOG_DATA_OFFS, CC_MAD_SIZE - CC_LOG_DATA_OFFS);
    gmp_make_response(out, status);
    gmp_reply_addr(in_addr, cc->board->id, out_addr);
    cc->stats.responses_sent++;
    return MAD_SEND;
}

void cc_get_switch_setting(const struct cc_agent *cc, struct cc_switch_setting *s)
{
    *s = cc->sw;
}

int cc_get_port_setting(const struct cc_agent *cc, unsigned port, struct cc_port_setting *s)
{
    if (!cc->is_switch || port > cc->num_ports)
        return -EINVAL;
    *s = cc->ports[port];
    return 0;
}

int cc_get_ca_entry(const struct cc_agent *cc, unsigned sl, struct cc_ca_entry *e)
{
    if (cc->is_switch || sl >= CC_CA_SLS)
        return -EINVAL;
    *e = cc->ca[sl];
    return 0;
}

void cc_get_stats(const struct cc_agent *cc, struct cc_stats *stats)
{
    *stats = cc->stats;
}
