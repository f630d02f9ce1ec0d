/*
 * pz_reach.h - switch-to-switch reachability in portzerod: the echo
 * service's registration at the SA, the discovery of the subnet's other
 * switches and their echo services, the probes (traffic/reach.h's table,
 * traffic/pz_echo's probes) and what a change of a peer's status sets off
 * (a log line, the SNMP notification, a vendor notice to the SM).
 *
 * SA side (requests through the agent's umad port, each a mad/mad_txn
 * transaction: resent with its TID, answers back through the MAD router by
 * TID tag PZ_REACH_TID_TAG, RMPP answers reassembled by the MAD layer):
 *   - ServiceRecord Set: ServiceID PZ_REACH_SERVICE_ID, ServiceGID port 0's
 *     GID (GidPrefix + port 0's GUID), the default P_Key, ServiceName
 *     "portzero-echo", ServiceData32[0] the echo QP's number, [1] its
 *     Q_Key, a lease of reach_lease_s renewed at half of it, again after a
 *     ClientReregister, a new LID or a new SM; Delete at clean shutdown.
 *   - GetTable NodeRecord (NodeType switch) and GetTable ServiceRecord
 *     (that ServiceID) every reach_refresh_s and after the same events.
 *
 * Runs on the agent loop's thread only.
 */
#ifndef PZ_AGENT_REACH_H
#define PZ_AGENT_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reach.h"

struct mad_addr;
struct sma;
struct board;
struct pz_echo;

/* The router tag of the SA requests ('e', for echo, in the top TID byte; mad_txn.h's layout). */
#define PZ_REACH_TID_MASK 0xFF000000u
#define PZ_REACH_TID_TAG 0x65000000u

/*
 * The echo service's ServiceID.  A placeholder, like the MIB's enterprise
 * number: IBA 15.2.5.14 ServiceIDs are IEEE OUI based (A.3.3); portzero has
 * no OUI of its own, so this one uses the locally administered range
 * (first byte 0x02) with "PZECHO" after it.  Replace it with one under an
 * assigned OUI before deployment.
 */
#define PZ_REACH_SERVICE_ID 0x02505a4543484f00ull
#define PZ_REACH_SERVICE_NAME "portzero-echo"

/*
 * Vendor notice trap numbers (sma_send_vendor_notice; the hot-spot notices
 * are 0x0001/0x0002).  DataDetails after the trap number and this switch's
 * LID: bytes 4-5 the peer's LID, 6-13 its node GUID, 14 the new status
 * (enum reach_status: 1 reachable, 2 unreachable, 4 lost: gone from the
 * subnet), 15 how many changes of
 * that peer the notice sums up (saturating at 255: more than 1 when it
 * changed again while its notice waited for room in the trap queue).
 */
#define PZ_REACH_TRAP_LOST 0x0003
#define PZ_REACH_TRAP_REGAINED 0x0004

/* How a request MAD (IB_MAD_SIZE bytes) goes out: 0 or -1 (portzerod: mad_io_send). */
typedef int (*pz_reach_send_fn)(void *ctx, const uint8_t *mad, const struct mad_addr *to);

/* The service's settings (portzerod: the configuration's reach_* keys). */
struct pz_reach_config {
    unsigned interval_ms; /* between two probes of one switch */
    unsigned timeout_ms;  /* a probe unanswered this long is a miss; less than interval_ms */
    unsigned lost_after;  /* misses in a row that make a switch unreachable */
    unsigned refresh_s;   /* SA rediscovery of the switches and their echo services */
    unsigned lease_s;     /* lease of the echo service's ServiceRecord, renewed at half */
    unsigned lost_keep_s; /* a switch gone from the subnet stays listed as lost this long */
};

/* How loud a log line is (the agent maps it to its own levels). */
enum pz_reach_log_level { PZ_REACH_LOG_WARN, PZ_REACH_LOG_INFO, PZ_REACH_LOG_DEBUG };

/* Called with each log line of the service ("reach: ...", no newline). */
typedef void (*pz_reach_log_fn)(void *arg, enum pz_reach_log_level level, const char *msg);

/* What the reachability service uses of the agent. */
struct pz_reach_env {
    const struct board *board;
    struct sma *sma;
    struct pz_echo *echo; /* the echo service (its QP sends the probes) */
    uint32_t echo_qpn;    /* its QP number, registered at the SA */
    uint32_t echo_qkey;
    pz_reach_send_fn send;
    void *send_ctx;
    /* Called with every peer after each change of status (the SNMP agent's
     * table and notifications); NULL: none. */
    void (*publish)(void *arg, const struct reach_peer *peers, size_t n);
    void *publish_arg;
    pz_reach_log_fn log; /* NULL: the service logs nothing */
    void *log_arg;
};

struct pz_reach;

/*
 * Start as cfg says.  NULL with a message in err.  The caller
 * registers pz_reach_deadline / pz_reach_on_timer with its loop (clock:
 * CLOCK_MONOTONIC ns, pz_loop's).
 */
struct pz_reach *pz_reach_create(const struct pz_reach_config *cfg, const struct pz_reach_env *env,
                                 char *err, size_t errlen);

/* Delete the ServiceRecord (when registered: the Delete is sent, not awaited) and free
 * (NULL is fine); the caller unregisters the timer. */
void pz_reach_destroy(struct pz_reach *r);

/* Loop deadline source: when the next work is due (ns). */
uint64_t pz_reach_deadline(void *arg);

/* Loop timer: look at port 0, run the SA requests' timers, expire and send probes. */
void pz_reach_on_timer(void *arg, uint64_t now);

/* MAD router client (mad_answer_fn): an SA answer carrying the tag. */
void pz_reach_take_mad(void *arg, const uint8_t *mad, size_t len);

/* The SM may have changed port 0 (an SMP Set): look at it soon. */
void pz_reach_port_changed(struct pz_reach *r);

/*
 * Probe every switch with an echo service now (the CLI's check); returns
 * how many are probed, or -ENOENT before the first discovery.
 */
int pz_reach_probe_all(struct pz_reach *r, uint64_t now_ns);

/* The peers (identity and state); *n their number. */
const struct reach_peer *pz_reach_peers(const struct pz_reach *r, size_t *n);

/* The probe timeout (ns), for a CLI check's wait. */
uint64_t pz_reach_timeout_ns(const struct pz_reach *r);

/* Whether a discovery answer came (the table means something). */
bool pz_reach_discovered(const struct pz_reach *r);

#endif
