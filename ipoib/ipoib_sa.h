/*
 * ipoib_sa.h - the two SA queries an IPoIB endpoint makes: joining the
 * broadcast group (SubnAdmSet MCMemberRecord) and resolving a peer's port
 * GID to a LID and SL (SubnAdmGet PathRecord).  Builds the request MADs and
 * checks and reads the answers; sending them is the caller's business.
 */
#ifndef PZ_IPOIB_SA_H
#define PZ_IPOIB_SA_H

#include <stddef.h>
#include <stdint.h>

#include "ipoib_wire.h"

#define IPOIB_SA_MAD_LEN 256

/* What a broadcast-group join answer tells the member. */
struct ipoib_group {
    uint8_t mgid[IPOIB_GID_LEN];
    uint32_t qkey;
    uint16_t mlid;
    uint8_t mtu;  /* IB MTU code: 1 = 256 ... 5 = 4096 */
    uint8_t rate; /* IB rate code */
    uint8_t sl;
    uint8_t tclass;
    uint32_t flow_label;
    uint8_t hop_limit;
    uint16_t pkey;
    uint8_t join_state;
};

/* What a PathRecord answer tells the sender. */
struct ipoib_path {
    uint8_t dgid[IPOIB_GID_LEN];
    uint8_t sgid[IPOIB_GID_LEN];
    uint16_t dlid;
    uint16_t slid;
    uint8_t sl;
    uint8_t mtu;
    uint16_t pkey;
};

/* What became of an answer. */
enum ipoib_sa_result {
    IPOIB_SA_OK,
    IPOIB_SA_SHORT,      /* shorter than the header plus the record */
    IPOIB_SA_NOT_ANSWER, /* not an SA GetResp of the expected attribute */
    IPOIB_SA_STATUS,     /* the SA refused: see *status */
    IPOIB_SA_MISMATCH,   /* an answer, but for another group or GID */
};

/*
 * Build a SubnAdmSet(MCMemberRecord) that joins mgid as port_gid with
 * join_state (1 = full member) in partition pkey.  Component mask
 * MGID|PortGID|P_Key|JoinState, as Linux's ipoib sends: the group must
 * exist (the SM creates the broadcast group).
 */
void ipoib_sa_build_join(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                         const uint8_t mgid[IPOIB_GID_LEN], const uint8_t port_gid[IPOIB_GID_LEN],
                         uint16_t pkey, uint8_t join_state);

/*
 * Build a SubnAdmGet(PathRecord) from sgid to dgid in partition pkey, one
 * path (DGID|SGID|NumbPath|P_Key).
 */
void ipoib_sa_build_path_query(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                               const uint8_t sgid[IPOIB_GID_LEN], const uint8_t dgid[IPOIB_GID_LEN],
                               uint16_t pkey);

/* The transaction ID of a MAD (at least 24 bytes long). */
uint64_t ipoib_sa_tid(const uint8_t *mad);

/* True if mad (len bytes) is an SA response, i.e. worth offering to the parsers. */
int ipoib_sa_is_response(const uint8_t *mad, size_t len);

/*
 * Read the answer to a join of mgid.  Returns IPOIB_SA_OK and fills *g, or
 * the reason; *status gets the MAD status whenever the header was readable.
 */
enum ipoib_sa_result ipoib_sa_parse_join(const uint8_t *mad, size_t len,
                                         const uint8_t mgid[IPOIB_GID_LEN], struct ipoib_group *g,
                                         unsigned *status);

/*
 * Read the answer to a path query for dgid.  Returns IPOIB_SA_OK and fills
 * *p, or the reason; *status as above.  A LID of 0 or in the multicast
 * range counts as a mismatch.
 */
enum ipoib_sa_result ipoib_sa_parse_path(const uint8_t *mad, size_t len,
                                         const uint8_t dgid[IPOIB_GID_LEN], struct ipoib_path *p,
                                         unsigned *status);

/* The IP MTU a group's IB MTU code gives (IB MTU - 4), or 0 for a bad code. */
unsigned ipoib_ip_mtu(uint8_t ib_mtu_code);

#endif
