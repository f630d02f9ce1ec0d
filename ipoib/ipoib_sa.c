/*
 * ipoib_sa.c - SA MCMemberRecord joins and PathRecord queries, as MADs.
 * Every field through libibmad, except the three bytes libibmad has no
 * field for (MCMemberRecord HopLimit, PathRecord MTU and the selectors),
 * which are read and written as whole bytes at the offsets of IBA 15.2.5.
 */
#include "ipoib_sa.h"

#include "mad_header.h"

#include <infiniband/mad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>
#include <string.h>

#define SA_CLASS_VERSION 2
#define MCM_HOP_LIMIT_OFFS 47 /* MCMemberRecord: the byte after SL|FlowLabel */
#define PR_MTU_OFFS 54        /* PathRecord: MTUSelector(2) | MTU(6) */
#define PR_NPATH_MASK_BIT (1ULL << 12)
#define PR_DGID_MASK_BIT (1ULL << 2)
#define PR_SGID_MASK_BIT (1ULL << 3)
#define PR_PKEY_MASK_BIT (1ULL << 13)

/* Fill the common MAD header and SA header of a request. */
static void sa_header(uint8_t *mad, unsigned method, unsigned attr, uint64_t tid, uint64_t mask)
{
    mad_header_init(mad, IB_SA_CLASS, SA_CLASS_VERSION, method, tid, attr, 0);
    mad_set_field64(mad, 0, IB_SA_COMPMASK_F, mask);
}

/* A join: Set with MGID, PortGID, P_Key and JoinState. */
void ipoib_sa_build_join(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                         const uint8_t mgid[IPOIB_GID_LEN], const uint8_t port_gid[IPOIB_GID_LEN],
                         uint16_t pkey, uint8_t join_state)
{
    uint8_t gid[IPOIB_GID_LEN];

    sa_header(mad, IB_MAD_METHOD_SET, IB_SA_ATTR_MCRECORD, tid,
              UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID |
                  UMAD_SA_MCM_COMP_MASK_PKEY | UMAD_SA_MCM_COMP_MASK_JOIN_STATE);
    memcpy(gid, mgid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, gid);
    memcpy(gid, port_gid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PORTGID_F, gid);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PKEY_F, pkey);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F, join_state);
}

/* A path query: Get with DGID, SGID, NumbPath 1 and P_Key. */
void ipoib_sa_build_path_query(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                               const uint8_t sgid[IPOIB_GID_LEN], const uint8_t dgid[IPOIB_GID_LEN],
                               uint16_t pkey)
{
    uint8_t gid[IPOIB_GID_LEN];

    sa_header(mad, IB_MAD_METHOD_GET, IB_SA_ATTR_PATHRECORD, tid,
              PR_DGID_MASK_BIT | PR_SGID_MASK_BIT | PR_NPATH_MASK_BIT | PR_PKEY_MASK_BIT);
    memcpy(gid, dgid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_PR_DGID_F, gid);
    memcpy(gid, sgid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_PR_SGID_F, gid);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_NPATH_F, 1);
    /* P_Key shares its 32-bit word with NumbPath and has no libibmad field. */
    mad[IB_SA_DATA_OFFS + 50] = (uint8_t)(pkey >> 8);
    mad[IB_SA_DATA_OFFS + 51] = (uint8_t)pkey;
}

/* The 64-bit TID from the common header. */
uint64_t ipoib_sa_tid(const uint8_t *mad)
{
    return mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
}

/* Class SA, a response method, long enough for a header. */
int ipoib_sa_is_response(const uint8_t *mad, size_t len)
{
    if (len < IB_SA_DATA_OFFS)
        return 0;
    return mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SA_CLASS &&
           mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F);
}

/*
 * Check the header of an answer: an SA GetResp for attr, status 0, holding
 * a record of rec_len bytes.  Returns IPOIB_SA_OK or the reason.
 */
static enum ipoib_sa_result sa_check(const uint8_t *mad, size_t len, unsigned attr, size_t rec_len,
                                     unsigned *status)
{
    void *m = (void *)mad;

    if (len < IB_SA_DATA_OFFS)
        return IPOIB_SA_SHORT;
    *status = mad_get_field(m, 0, IB_MAD_STATUS_F);
    if (mad_get_field(m, 0, IB_MAD_BASEVER_F) != 1 ||
        mad_get_field(m, 0, IB_MAD_MGMTCLASS_F) != IB_SA_CLASS ||
        !mad_get_field(m, 0, IB_MAD_RESPONSE_F) ||
        mad_get_field(m, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET ||
        mad_get_field(m, 0, IB_MAD_ATTRID_F) != attr)
        return IPOIB_SA_NOT_ANSWER;
    if (*status != 0)
        return IPOIB_SA_STATUS;
    if (len < IB_SA_DATA_OFFS + rec_len)
        return IPOIB_SA_SHORT;
    return IPOIB_SA_OK;
}

/* Check, then copy the group's parameters out of the MCMemberRecord. */
enum ipoib_sa_result ipoib_sa_parse_join(const uint8_t *mad, size_t len,
                                         const uint8_t mgid[IPOIB_GID_LEN], struct ipoib_group *g,
                                         unsigned *status)
{
    void *m = (void *)mad;
    enum ipoib_sa_result r;

    *status = 0;
    r = sa_check(mad, len, IB_SA_ATTR_MCRECORD, IB_SA_MCM_RECSZ, status);
    if (r != IPOIB_SA_OK)
        return r;
    mad_get_array(m, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, g->mgid);
    if (memcmp(g->mgid, mgid, IPOIB_GID_LEN) != 0)
        return IPOIB_SA_MISMATCH;
    g->qkey = mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F);
    g->mlid = (uint16_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_MLID_F);
    g->mtu = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_MTU_F);
    g->rate = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_RATE_F);
    g->sl = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_SL_F);
    g->tclass = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_TCLASS_F);
    g->flow_label = mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_FLOW_LABEL_F);
    g->hop_limit = mad[IB_SA_DATA_OFFS + MCM_HOP_LIMIT_OFFS];
    g->pkey = (uint16_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_PKEY_F);
    g->join_state = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F);
    if (g->mlid < 0xC000 || g->mlid == 0xFFFF || ipoib_ip_mtu(g->mtu) == 0)
        return IPOIB_SA_MISMATCH;
    return IPOIB_SA_OK;
}

/* Check, then copy the path's LIDs, SL and MTU out of the PathRecord. */
enum ipoib_sa_result ipoib_sa_parse_path(const uint8_t *mad, size_t len,
                                         const uint8_t dgid[IPOIB_GID_LEN], struct ipoib_path *p,
                                         unsigned *status)
{
    void *m = (void *)mad;
    enum ipoib_sa_result r;

    *status = 0;
    r = sa_check(mad, len, IB_SA_ATTR_PATHRECORD, IB_SA_PR_RECSZ, status);
    if (r != IPOIB_SA_OK)
        return r;
    mad_get_array(m, IB_SA_DATA_OFFS, IB_SA_PR_DGID_F, p->dgid);
    mad_get_array(m, IB_SA_DATA_OFFS, IB_SA_PR_SGID_F, p->sgid);
    if (memcmp(p->dgid, dgid, IPOIB_GID_LEN) != 0)
        return IPOIB_SA_MISMATCH;
    p->dlid = (uint16_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F);
    p->slid = (uint16_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_PR_SLID_F);
    p->sl = (uint8_t)mad_get_field(m, IB_SA_DATA_OFFS, IB_SA_PR_SL_F);
    p->mtu = mad[IB_SA_DATA_OFFS + PR_MTU_OFFS] & UMAD_SA_RATE_MTU_PKT_LIFE_MASK;
    p->pkey = be16_get(mad + IB_SA_DATA_OFFS + 50);
    if (p->dlid == 0 || p->dlid >= 0xC000)
        return IPOIB_SA_MISMATCH;
    return IPOIB_SA_OK;
}

/* 2^(code+7) - 4 for codes 1..5. */
unsigned ipoib_ip_mtu(uint8_t ib_mtu_code)
{
    if (ib_mtu_code < 1 || ib_mtu_code > 5)
        return 0;
    return (1u << (ib_mtu_code + 7)) - IPOIB_ENCAP_LEN;
}
