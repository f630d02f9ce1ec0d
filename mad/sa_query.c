/*
 * sa_query.c - SubnAdm table requests and answers as pure functions
 * (sa_query.h says what and why).
 */
#include "sa_query.h"

#include <string.h>

#include "mad.h"

/* RMPP header flags (IBA 13.6.2.1). */
#define SA_RMPP_ACTIVE 0x1
#define SA_RMPP_FIRST 0x2
#define SA_RMPP_LAST 0x4

/* The SA header's own 20 bytes counted in an RMPP PayloadLength. */
#define SA_CLASS_HEADER_LEN (SA_HEADER_LEN - 36)

/* Read a libibmad field of a record that lives in a const buffer. */
static uint32_t sa_field(const uint8_t *rec, int base, enum MAD_FIELDS f)
{
    return mad_get_field((void *)rec, base, f);
}

/* Same, a 64-bit field. */
static uint64_t sa_field64(const uint8_t *rec, int base, enum MAD_FIELDS f)
{
    return mad_get_field64((void *)rec, base, f);
}

size_t sa_query_build(uint8_t *buf, uint8_t method, uint16_t attr_id, uint64_t tid,
                      uint64_t comp_mask, const uint8_t *template_rec, size_t template_len)
{
    if (template_len > IB_SA_DATA_SIZE)
        return 0;
    memset(buf, 0, IB_MAD_SIZE);
    mad_set_field(buf, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(buf, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
    mad_set_field(buf, 0, IB_MAD_CLASSVER_F, 2);
    mad_set_field(buf, 0, IB_MAD_METHOD_F, method);
    mad_set_field64(buf, 0, IB_MAD_TRID_F, tid);
    mad_set_field(buf, 0, IB_MAD_ATTRID_F, attr_id);
    mad_set_field64(buf, 0, IB_SA_COMPMASK_F, comp_mask);
    if (template_rec && template_len)
        memcpy(buf + SA_HEADER_LEN, template_rec, template_len);
    return IB_MAD_SIZE;
}

size_t sa_query_build_all(uint8_t *buf, uint16_t attr_id, uint64_t tid)
{
    return sa_query_build(buf, IB_MAD_METHOD_GET_TABLE, attr_id, tid, 0, NULL, 0);
}

size_t sa_query_build_by_lid(uint8_t *buf, uint16_t attr_id, uint64_t tid, uint16_t lid)
{
    uint8_t rec[8] = {0};

    /* Every record this module knows starts with its LID (16 bits); libibmad
     * names it only for NodeRecord (IB_SA_NR_LID_F), the same bits. */
    mad_set_field(rec, 0, IB_SA_NR_LID_F, lid);
    return sa_query_build(buf, IB_MAD_METHOD_GET_TABLE, attr_id, tid, SA_COMP_LID, rec,
                          sizeof(rec));
}

/*
 * The bytes of record data an answer of len bytes carries: all after the
 * header, less when the RMPP PayloadLength says so; *truncated when it is
 * a lone first segment of several.
 */
static size_t sa_answer_data_len(const uint8_t *buf, size_t len, bool *truncated)
{
    unsigned flags = sa_field(buf, 0, IB_SA_RMPP_FLAGS_F);
    uint32_t paylen = sa_field(buf, 0, IB_SA_RMPP_LEN_F);
    size_t data = len - SA_HEADER_LEN;

    *truncated = false;
    if (!(flags & SA_RMPP_ACTIVE))
        return data;
    if (len <= IB_MAD_SIZE && !(flags & SA_RMPP_LAST)) {
        *truncated = true; /* more segments follow that nobody put together */
        return data;
    }
    /* PayloadLength of a first segment: the whole transfer, SA header included. */
    if ((flags & SA_RMPP_FIRST) && paylen >= SA_CLASS_HEADER_LEN &&
        paylen - SA_CLASS_HEADER_LEN < data)
        data = paylen - SA_CLASS_HEADER_LEN;
    return data;
}

int sa_answer_parse(const uint8_t *buf, size_t len, struct sa_answer *a, const char **why)
{
    const char *reason = NULL;

    memset(a, 0, sizeof(*a));
    if (!buf || len < SA_HEADER_LEN)
        reason = "shorter than the SA header";
    else if (sa_field(buf, 0, IB_MAD_BASEVER_F) != 1 ||
             sa_field(buf, 0, IB_MAD_MGMTCLASS_F) != IB_SA_CLASS)
        reason = "not an SA MAD";
    else if (!sa_field(buf, 0, IB_MAD_RESPONSE_F))
        reason = "not a response";
    if (reason) {
        if (why)
            *why = reason;
        return -1;
    }
    /* libibmad's METHOD field is the 7 bits below the response bit */
    a->method = (uint8_t)(sa_field(buf, 0, IB_MAD_METHOD_F) | IB_MAD_RESPONSE);
    a->attr_id = (uint16_t)sa_field(buf, 0, IB_MAD_ATTRID_F);
    a->tid = sa_field64(buf, 0, IB_MAD_TRID_F);
    a->status = (uint16_t)sa_field(buf, 0, IB_MAD_STATUS_F);
    a->stride = (size_t)sa_field(buf, 0, IB_SA_ATTROFFS_F) * 8;
    if (a->status)
        return 0; /* an error carries no records */
    if (a->stride == 0) {
        /* IBA 15.2.1.2: records come with their spacing; an empty table may
         * leave it 0 (OpenSM does), so only non-zero data without it is bad */
        size_t data = sa_answer_data_len(buf, len, &a->truncated);

        for (size_t i = 0; i < data; i++)
            if (buf[SA_HEADER_LEN + i]) {
                if (why)
                    *why = "records without an AttributeOffset";
                return -1;
            }
        return 0;
    }
    a->count = sa_answer_data_len(buf, len, &a->truncated) / a->stride;
    a->first = buf + SA_HEADER_LEN;
    if (a->method == IB_MAD_METHOD_GET_RESPONSE && a->count > 1)
        a->count = 1; /* a Get answers one record; the rest is padding */
    return 0;
}

const uint8_t *sa_answer_record(const struct sa_answer *a, size_t i)
{
    return i < a->count ? a->first + i * a->stride : NULL;
}

unsigned sa_status_code(uint16_t status)
{
    return (status >> 8) & 0x7f;
}

const char *sa_status_name(uint16_t status)
{
    static const char *const names[] = {
        "success",
        "no resources",
        "request invalid",
        "no records",
        "too many records",
        "invalid GID",
        "insufficient components",
        "request denied",
        "priority suggested",
    };
    unsigned code = sa_status_code(status);

    if (status & 0xff)
        return "MAD status error"; /* the common MAD status bits (IBA 13.4.7) */
    return code < sizeof(names) / sizeof(names[0]) ? names[code] : "unknown SA status";
}

/* NodeDescription bytes as a printable, NUL-terminated string. */
static void sa_copy_desc(char *dst, const uint8_t *src)
{
    size_t i;

    for (i = 0; i < SA_NODE_DESC_LEN && src[i]; i++)
        dst[i] = (src[i] < 0x20 || src[i] >= 0x7f) ? '?' : (char)src[i];
    dst[i] = '\0';
}

int sa_node_record_decode(const uint8_t *rec, size_t stride, struct sa_node_record *r)
{
    uint8_t desc[SA_NODE_DESC_LEN];

    if (stride < SA_NODE_RECORD_LEN)
        return -1;
    memset(r, 0, sizeof(*r));
    r->lid = (uint16_t)sa_field(rec, 0, IB_SA_NR_LID_F);
    r->node_type = (uint8_t)sa_field(rec, 0, IB_SA_NR_TYPE_F);
    r->nports = (uint8_t)sa_field(rec, 0, IB_SA_NR_NPORTS_F);
    r->local_port = (uint8_t)sa_field(rec, 0, IB_SA_NR_LOCAL_PORT_F);
    r->system_guid = sa_field64(rec, 0, IB_SA_NR_SYSTEM_GUID_F);
    r->node_guid = sa_field64(rec, 0, IB_SA_NR_GUID_F);
    r->port_guid = sa_field64(rec, 0, IB_SA_NR_PORT_GUID_F);
    mad_get_array((void *)rec, 0, IB_SA_NR_NODEDESC_F, desc);
    sa_copy_desc(r->desc, desc);
    return 0;
}

int sa_link_record_decode(const uint8_t *rec, size_t stride, struct sa_link_record *r)
{
    if (stride < SA_LINK_RECORD_LEN)
        return -1;
    /* libibmad has no LinkRecord fields: FromLID 16, FromPort 8, ToPort 8,
     * ToLID 16 (IBA 15.2.5.13), big-endian. */
    r->from_lid = be16_get(rec);
    r->from_port = rec[2];
    r->to_port = rec[3];
    r->to_lid = be16_get(rec + 4);
    return 0;
}

int sa_lft_record_decode(const uint8_t *rec, size_t stride, struct sa_lft_record *r)
{
    if (stride < SA_LFT_RECORD_LEN)
        return -1;
    /* libibmad has no LFTRecord fields: LID 16, BlockNum 16, Reserved 32
     * (IBA 15.2.5.6); the block itself is SMP LinearForwardingTable data. */
    r->lid = be16_get(rec);
    r->block = be16_get(rec + 2);
    mad_get_array((void *)(rec + 8), 0, IB_LINEAR_FORW_TBL_F, r->port);
    return 0;
}

int sa_switch_info_record_decode(const uint8_t *rec, size_t stride, struct sa_switch_info_record *r)
{
    const uint8_t *si = rec + 4;

    if (stride < SA_SWITCH_INFO_RECORD_LEN)
        return -1;
    /* libibmad has no SwitchInfoRecord header fields: LID 16, Reserved 16
     * (IBA 15.2.5.4); SwitchInfo follows, read with IB_SW_*. */
    r->lid = be16_get(rec);
    r->linear_fdb_cap = (uint16_t)sa_field(si, 0, IB_SW_LINEAR_FDB_CAP_F);
    r->linear_fdb_top = (uint16_t)sa_field(si, 0, IB_SW_LINEAR_FDB_TOP_F);
    r->lifetime = (uint8_t)sa_field(si, 0, IB_SW_LIFE_TIME_F);
    r->enhanced_port0 = sa_field(si, 0, IB_SW_ENHANCED_PORT0_F) != 0;
    return 0;
}

/* The PortInfo inside a PortInfoRecord: after EndportLID 16, PortNum 8, Options 8. */
#define SA_PIR_PORT_INFO_OFFSET 4

int sa_port_info_record_decode(const uint8_t *rec, size_t stride, struct sa_port_info_record *r)
{
    if (stride < SA_PORT_INFO_RECORD_LEN)
        return -1;
    /* libibmad has no PortInfoRecord header fields: EndportLID 16, PortNum 8,
     * Options 8 (IBA 15.2.5.3); PortInfo follows, read with IB_PORT_*. */
    memset(r, 0, sizeof(*r));
    r->lid = be16_get(rec);
    r->port = rec[2];
    r->base_lid = (uint16_t)sa_field(rec, SA_PIR_PORT_INFO_OFFSET, IB_PORT_LID_F);
    r->lmc = (uint8_t)sa_field(rec, SA_PIR_PORT_INFO_OFFSET, IB_PORT_LMC_F);
    r->state = (uint8_t)sa_field(rec, SA_PIR_PORT_INFO_OFFSET, IB_PORT_STATE_F);
    return 0;
}

/* The bytes of ServiceData32[i] inside the 64-byte ServiceData (after Data8 and Data16). */
#define SA_SR_DATA32_OFFSET(i) (32 + 4 * (i))

size_t sa_service_build(uint8_t *buf, uint8_t method, uint64_t tid,
                        const struct sa_service_record *r, uint64_t comp_mask)
{
    uint8_t rec[SA_SERVICE_RECORD_LEN] = {0};
    uint8_t name[SA_SERVICE_NAME_LEN] = {0};
    uint8_t data[64] = {0};
    uint8_t gid[16];
    size_t i;

    mad_set_field64(rec, 0, IB_SA_SR_ID_F, r->id);
    memcpy(gid, r->gid, sizeof(gid));
    mad_set_array(rec, 0, IB_SA_SR_GID_F, gid);
    mad_set_field(rec, 0, IB_SA_SR_PKEY_F, r->pkey);
    mad_set_field(rec, 0, IB_SA_SR_LEASE_F, r->lease);
    memcpy(name, r->name, strnlen(r->name, SA_SERVICE_NAME_LEN));
    mad_set_array(rec, 0, IB_SA_SR_NAME_F, name);
    for (i = 0; i < 4; i++)
        be32_put(data + SA_SR_DATA32_OFFSET(i), r->data32[i]);
    mad_set_array(rec, 0, IB_SA_SR_DATA_F, data);
    return sa_query_build(buf, method, IB_SA_ATTR_SERVICERECORD, tid, comp_mask, rec, sizeof(rec));
}

int sa_service_record_decode(const uint8_t *rec, size_t stride, struct sa_service_record *r)
{
    uint8_t name[SA_SERVICE_NAME_LEN];
    uint8_t data[64];
    size_t i;

    if (stride < SA_SERVICE_RECORD_LEN)
        return -1;
    memset(r, 0, sizeof(*r));
    r->id = sa_field64(rec, 0, IB_SA_SR_ID_F);
    mad_get_array((void *)rec, 0, IB_SA_SR_GID_F, r->gid);
    r->pkey = (uint16_t)sa_field(rec, 0, IB_SA_SR_PKEY_F);
    r->lease = sa_field(rec, 0, IB_SA_SR_LEASE_F);
    mad_get_array((void *)rec, 0, IB_SA_SR_NAME_F, name);
    for (i = 0; i < SA_SERVICE_NAME_LEN && name[i]; i++)
        r->name[i] = name[i] < 0x20 || name[i] > 0x7E ? '?' : (char)name[i];
    mad_get_array((void *)rec, 0, IB_SA_SR_DATA_F, data);
    for (i = 0; i < 4; i++)
        r->data32[i] = be32_get(data + SA_SR_DATA32_OFFSET(i));
    return 0;
}
