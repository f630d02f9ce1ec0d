/*
 * sa_query.h - SubnAdm (SA) table queries as pure functions: build a
 * SubnAdmGet/GetTable request MAD and take apart the answer (NodeRecord,
 * LinkRecord, LinearForwardingTableRecord, SwitchInfoRecord,
 * PortInfoRecord).
 *
 * No I/O: the caller sends the request (portzerod through its umad port and
 * the MAD router, which hands answers back by TID tag; pz-routecheck through
 * libibumad) and feeds the answer in.  A GetTable answer with more records
 * than one MAD holds comes as RMPP; the MAD layer reassembles it (the
 * kernel's umad for an agent registered with rmpp_version 1; in emulation
 * libpzumad2sim.so) into one buffer: the first segment's 56 header bytes,
 * then every segment's data, so the records lie at 56 + i * stride.  A lone
 * first segment that says more follow (no reassembly) is reported as
 * truncated, not read as the whole table.
 *
 * Fields are read with libibmad (IB_SA_*, IB_NODE_*, IB_SW_*, IB_PORT_*,
 * IB_LINEAR_FORW_TBL_F) where it has them; the few without a libibmad field
 * are named at their use.
 */
#ifndef PZ_SA_QUERY_H
#define PZ_SA_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

/* SA header length: MAD header (24) + RMPP header (12) + SA header (20). */
#define SA_HEADER_LEN IB_SA_DATA_OFFS

/* Record sizes (IBA 15.2.5): the least an answer's stride may be. */
#define SA_NODE_RECORD_LEN IB_SA_NR_RECSZ /* 108 */
#define SA_LINK_RECORD_LEN 6
#define SA_LFT_RECORD_LEN 72
#define SA_SWITCH_INFO_RECORD_LEN 24
#define SA_PORT_INFO_RECORD_LEN 68 /* EndportLID, PortNum, Options, PortInfo (64) */
#define SA_NODE_DESC_LEN 64        /* NodeDescription bytes (IBA 14.2.5.2) */

#define SA_SERVICE_RECORD_LEN 176
#define SA_SERVICE_NAME_LEN 64

/* ServiceRecord component mask bits (IBA 15.2.5.14, in field order). */
#define SA_SR_COMP_ID 0x1ull
#define SA_SR_COMP_GID 0x2ull
#define SA_SR_COMP_PKEY 0x4ull
#define SA_SR_COMP_LEASE 0x10ull
#define SA_SR_COMP_NAME 0x40ull
#define SA_SR_COMP_DATA32(i) (1ull << (31 + (i))) /* ServiceData32[i], i < 4 */

/* Component mask bits of the records' first field (their LID). */
#define SA_COMP_LID 0x1ull

/* SA status codes (IBA 15.2.1.2), the high byte of the MAD status. */
enum sa_status {
    SA_STATUS_OK = 0,
    SA_STATUS_NO_RESOURCES = 1,
    SA_STATUS_REQ_INVALID = 2,
    SA_STATUS_NO_RECORDS = 3,
    SA_STATUS_TOO_MANY_RECORDS = 4,
};

/* One parsed SA answer: where its records are. */
struct sa_answer {
    uint8_t method;       /* IB_MAD_METHOD_GET_RESPONSE or GetTableResp (0x92) */
    uint16_t attr_id;     /* IB_SA_ATTR_* */
    uint64_t tid;         /* transaction ID as on the wire */
    uint16_t status;      /* MAD status (the SA code in bits 8-14) */
    size_t stride;        /* bytes per record (AttributeOffset * 8) */
    size_t count;         /* records present */
    const uint8_t *first; /* the first record (count * stride bytes) */
    bool truncated;       /* an RMPP first segment without the rest */
};

/* A NodeRecord (one per port of a CA, one per switch). */
struct sa_node_record {
    uint16_t lid;
    uint8_t node_type; /* IB_NODE_CA, IB_NODE_SWITCH, IB_NODE_ROUTER */
    uint8_t nports;
    uint8_t local_port;
    uint64_t node_guid, port_guid, system_guid;
    char desc[SA_NODE_DESC_LEN + 1]; /* NUL-terminated, control bytes as '?' */
};

/* A LinkRecord: the cable from (from_lid, from_port) to (to_lid, to_port). */
struct sa_link_record {
    uint16_t from_lid, to_lid;
    uint8_t from_port, to_port;
};

/* A LinearForwardingTableRecord: 64 LFT entries of one switch. */
struct sa_lft_record {
    uint16_t lid;   /* the switch */
    uint16_t block; /* entries for LIDs block * 64 .. block * 64 + 63 */
    uint8_t port[64];
};

/* A SwitchInfoRecord: the parts of SwitchInfo the route check uses. */
struct sa_switch_info_record {
    uint16_t lid;
    uint16_t linear_fdb_cap, linear_fdb_top;
    uint8_t lifetime;
    bool enhanced_port0;
};

/* A PortInfoRecord: the parts of a port's PortInfo the route check uses. */
struct sa_port_info_record {
    uint16_t lid;      /* EndportLID: the port's base LID (a switch's on all its ports) */
    uint8_t port;      /* PortNum (0: a switch's management port) */
    uint16_t base_lid; /* PortInfo LID */
    uint8_t lmc;       /* PortInfo LMC: the port owns lid .. lid + 2^lmc - 1 */
    uint8_t state;     /* PortInfo PortState (IB_PORT_ACTIVE, ...) */
};

/* A ServiceRecord: a service a port offers (the parts this project uses). */
struct sa_service_record {
    uint64_t id;     /* ServiceID */
    uint8_t gid[16]; /* ServiceGID: the port offering it */
    uint16_t pkey;
    uint32_t lease; /* seconds; 0xFFFFFFFF: indefinite */
    char name[SA_SERVICE_NAME_LEN + 1];
    uint32_t data32[4]; /* ServiceData32 */
};

/*
 * Build a SubnAdm request: method (IB_MAD_METHOD_GET or
 * IB_MAD_METHOD_GET_TABLE), attribute, TID, component mask, and the
 * template record (template_len bytes, NULL for none) after the header.
 * buf holds IB_MAD_SIZE bytes.  Returns IB_MAD_SIZE, or 0 when the
 * template does not fit.
 */
size_t sa_query_build(uint8_t *buf, uint8_t method, uint16_t attr_id, uint64_t tid,
                      uint64_t comp_mask, const uint8_t *template_rec, size_t template_len);

/* GetTable of every record of attr_id (component mask 0).  Returns IB_MAD_SIZE. */
size_t sa_query_build_all(uint8_t *buf, uint16_t attr_id, uint64_t tid);

/* GetTable of attr_id's records whose LID is lid (LFTRecord of one switch, ...). */
size_t sa_query_build_by_lid(uint8_t *buf, uint16_t attr_id, uint64_t tid, uint16_t lid);

/*
 * Take apart an answer of len bytes (a reassembled RMPP answer may be long).
 * Returns 0 and fills *a, or -1 (not an SA response, too short, a stride
 * of 0) with a reason in *why.  A status other than 0 still returns 0: the
 * caller reads a->status (NO_RECORDS means an empty table).
 */
int sa_answer_parse(const uint8_t *buf, size_t len, struct sa_answer *a, const char **why);

/* Record i of a parsed answer (i < a->count). */
const uint8_t *sa_answer_record(const struct sa_answer *a, size_t i);

/*
 * Build a ServiceRecord request (method IB_MAD_METHOD_SET to register,
 * IB_MAD_METHOD_DELETE, or IB_MAD_METHOD_GET_TABLE to look up) carrying r
 * with comp_mask (SA_SR_COMP_*).  Returns IB_MAD_SIZE.
 */
size_t sa_service_build(uint8_t *buf, uint8_t method, uint64_t tid,
                        const struct sa_service_record *r, uint64_t comp_mask);

/* SA status code of a MAD status, and its name. */
unsigned sa_status_code(uint16_t status);
const char *sa_status_name(uint16_t status);

/* Decoders of one record of stride bytes; 0, or -1 when stride is too small. */
int sa_node_record_decode(const uint8_t *rec, size_t stride, struct sa_node_record *r);
int sa_link_record_decode(const uint8_t *rec, size_t stride, struct sa_link_record *r);
int sa_lft_record_decode(const uint8_t *rec, size_t stride, struct sa_lft_record *r);
int sa_service_record_decode(const uint8_t *rec, size_t stride, struct sa_service_record *r);
int sa_switch_info_record_decode(const uint8_t *rec, size_t stride,
                                 struct sa_switch_info_record *r);
int sa_port_info_record_decode(const uint8_t *rec, size_t stride, struct sa_port_info_record *r);

#endif
