/*
 * sim_proto.h - ibsim's client protocol as libumad2sim.so speaks it.
 *
 * Facts from ibsim (include/ibsim.h, umad2sim/sim_client.c,
 * umad2sim/umad2sim.c); the definitions are pzfabric's own.
 *
 * Sockets: Unix datagram sockets in the abstract namespace whose address
 * includes the name's terminating NUL ("\0NAME:ctl\0", address length =
 * offsetof(sun_path) + strlen(name) + 2), NAME from $IBSIM_SOCKNAME
 * (default "sim"):
 *   NAME:ctl        the server's control socket; each client binds
 *                   NAME:ctl<pid>, connects it to NAME:ctl and sends struct
 *                   sim_ctl messages, which the server answers to the sender;
 *   NAME:in<pid>    the client's packet socket;
 *   NAME:out<id>    the server's packet socket for client <id>, bound before
 *                   the CONNECT answer and connected to NAME:in<pid>; the
 *                   client connects NAME:in<pid> to it and writes struct
 *                   sim_request packets, which the server answers on it.
 * Control messages carry host-order integers; struct sim_request carries
 * the LIDs as the 16-bit network-order values umad uses, widened to 32 bits.
 */
#ifndef PZ_SIM_PROTO_H
#define PZ_SIM_PROTO_H

#include <stdint.h>
#include <stdlib.h>

#define SIM_PROTO_MAGIC 0xdeadbeefu
#define SIM_PROTO_CTL_DATA 64
#define SIM_PROTO_DEFAULT_NAME "sim"

/*
 * The simulator's socket name when the command line gives none: as ibsim
 * and umad2sim take it, $IBSIM_SOCKNAME unless unset or empty, else "sim".
 */
static inline const char *sim_proto_default_sockname(void)
{
    const char *name = getenv("IBSIM_SOCKNAME");

    return name && *name ? name : SIM_PROTO_DEFAULT_NAME;
}

/* Control message types (struct sim_ctl.type). */
enum sim_ctl_type {
    SIM_CTL_ERROR = 0, /* in an answer: the request failed */
    SIM_CTL_CONNECT,
    SIM_CTL_DISCONNECT,
    SIM_CTL_GET_PORT,
    SIM_CTL_GET_VENDOR,
    SIM_CTL_GET_GID,
    SIM_CTL_GET_GUID,
    SIM_CTL_GET_NODEINFO,
    SIM_CTL_GET_PORTINFO,
    SIM_CTL_SET_ISSM,
    SIM_CTL_GET_PKEYS,
    /*
     * pzfabric's extension (ibsim answers SIM_CTL_ERROR): the attached
     * port's ClientReregister count, data[0..3] big-endian: how many
     * PortInfo Sets with ClientReregister 1 its SMA took (IBA 14.4.11: the
     * port's clients must join their groups again), so that a client
     * (pz-iphost) sees the event the SMA has, as a host's driver does.
     */
    SIM_CTL_PZ_GET_REREG = 0x505a0001,
};

/* A control message, both ways (80 bytes). */
struct sim_ctl {
    uint32_t magic;
    uint32_t clientid; /* the id CONNECT returned */
    uint32_t type;     /* enum sim_ctl_type */
    uint32_t len;      /* bytes of data used */
    uint8_t data[SIM_PROTO_CTL_DATA];
};

/* SIM_CTL_CONNECT data, both ways. */
struct sim_client_info {
    uint32_t id;     /* request: the client's pid; answer: its client id */
    uint32_t qp;     /* always 0 from umad2sim */
    uint32_t issm;   /* $SIM_SET_ISSM was set */
    char nodeid[32]; /* request: $SIM_HOST (node name or description); answer: the node */
};

/* SIM_CTL_GET_PORT answer. */
struct sim_port_info {
    uint16_t lid;
    uint8_t state; /* PortState */
};

/* SIM_CTL_GET_VENDOR answer (24 bytes with padding). */
struct sim_vendor_info {
    uint32_t vendor_id;
    uint32_t vendor_part_id;
    uint32_t hw_ver;
    uint64_t fw_ver;
};

/* A MAD between a client and the server (288 bytes). */
struct sim_request {
    uint32_t dlid;   /* network-order 16-bit LID in a 32-bit field */
    uint32_t slid;   /* same; 0 from a client means "my port's LID" */
    uint32_t dqp;    /* network order */
    uint32_t sqp;    /* network order */
    uint32_t status; /* network order; 110 (ETIMEDOUT) for an unanswered request */
    uint64_t length; /* big-endian: bytes of mad[] used */
    uint8_t mad[256];
};

/*
 * portzero's extension of a client's request: umad2sim always sends status
 * 0, so libpzumad2sim.so (attach/) puts into it how long the client's
 * umad_send() waits for the answer on hardware, timeout_ms x (retries + 1):
 * SIM_STATUS_TIMEOUT_TAG | milliseconds (at most SIM_STATUS_TIMEOUT_MASK).
 * pzfabric lets a request it hands to an external agent wait that long;
 * ibsim ignores it, and libpzumad2sim.so clears it from the requests it
 * receives (ibsim forwards requests to clients as they came).  Real status
 * values (errno numbers such as 110) never have the tag's bits.
 */
#define SIM_STATUS_TIMEOUT_TAG 0x7E000000u
#define SIM_STATUS_TIMEOUT_MASK 0x00FFFFFFu

_Static_assert(sizeof(struct sim_ctl) == 80, "sim_ctl wire size");
_Static_assert(sizeof(struct sim_client_info) == 44, "sim_client_info wire size");
_Static_assert(sizeof(struct sim_vendor_info) == 24, "sim_vendor_info wire size");
_Static_assert(sizeof(struct sim_request) == 288, "sim_request wire size");

#endif /* PZ_SIM_PROTO_H */
