/*
 * server_internal.h - what sim_server.c (sockets, packets), sim_ctl.c
 * (control messages), board_server.c (board/sim agents) and pzctl_server.c (the
 * operator control socket) share.
 */
#ifndef PZ_FABRIC_SERVER_INTERNAL_H
#define PZ_FABRIC_SERVER_INTERNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "board_sim_proto.h"
#include "fabric.h"
#include "sim_proto.h"
#include "sim_server.h"

#define SIM_NAME_MAX 80        /* longest socket base name */
#define SIM_TX_QUEUE_MAX 65536 /* packets held for a client that does not read */
#define SIM_READ_BURST 256     /* packets read from one socket per round */
#define SIM_RECV_BATCH 16      /* packets one recvmmsg() takes at most */

/* Packets waiting until a client's socket has room. */
struct sim_tx_queue {
    struct sim_request *items;
    size_t head;
    size_t count;
    size_t cap;
};

/* One attached client: its packet socket NAME:out<id>. */
struct sim_conn {
    bool used;
    bool dead; /* its socket is gone: detach at the end of the round */
    int fd;
    uint32_t pid;
    struct sim_tx_queue tx;
    /*
     * 0: an ibsim client with its own packet socket (fd).  Else the agent
     * connection (index + 1) on "<name>:board" that carries this client's
     * MADs (BOARD_SIM_ATTACH_MADS); fd is then -1.
     */
    size_t board_agent;
};

/* A board/sim connection from an external agent (portzerod). */
struct sim_agent {
    bool used;
    int fd;
    long node;        /* attached switch, or -1 before ATTACH */
    bool events_lost; /* a PORT_EVENT did not fit the socket: send an ALL one */
    long client;      /* the client whose MADs this connection carries, or -1 */
    /* MAD messages waiting until the socket has room (in order). */
    struct board_sim_msg *txq;
    size_t tx_head, tx_count, tx_cap;
    unsigned long tx_lost;     /* messages lost with the queue full */
    unsigned long smp_dropped; /* SMP requests dropped with a backlog queued (VL15Dropped) */
};

/* An operator connection on NAME:pzctl (pzfabric-ctl). */
struct pzctl_server_conn {
    bool used;
    int fd;
};

#define PZCTL_SERVER_CONNS_MAX 64 /* operator connections at once */

/* pfd_conn[] tags of the board and pzctl sockets (client ids are below). */
#define SIM_PFD_BOARD_LISTEN 0xFFFFFFFFu
#define SIM_PFD_PZCTL_LISTEN 0xFFFFFFFEu
#define SIM_PFD_AGENT 0x80000000u
#define SIM_PFD_PZCTL 0x40000000u

/* pfd_conn[] tags of the datagram sockets (dgram_server.c): the listener, connection i. */
#define SIM_PFD_DGRAM_LISTEN 0xFFFFFFFDu
#define SIM_PFD_DGRAM 0x20000000u
#define SIM_PFD_DGRAM_MASK 0xE0000000u

struct dgram_server;

struct sim_server {
    char name[SIM_NAME_MAX + 1];
    int ctl_fd;
    struct fabric *f;
    int verbose;
    struct sim_conn *conns; /* indexed by client id */
    size_t num_conns;
    struct pollfd *pfds;
    uint32_t *pfd_conn; /* client id of pfds[i], i >= 1 */
    size_t cap_pfds;
    size_t mad_pfds; /* pfds[0..mad_pfds): control, clients, board (the MAD sockets) */
    int board_fd;    /* NAME:board listening socket */
    struct sim_agent *agents;
    size_t num_agents;
    int pzctl_fd; /* NAME:pzctl listening socket */
    struct pzctl_server_conn pzctl[PZCTL_SERVER_CONNS_MAX];
    char *pzctl_reply; /* PZCTL_REPLY_MAX bytes */
    /* NAME:dgram, port-0 datagram stacks (dgram_server.c) */
    struct dgram_server *dgram;
};

/* sim_server.c */
int sim_socket_bind(const struct sim_server *s, const char *suffix, unsigned num);
int sim_socket_connect(int fd, const struct sim_server *s, const char *suffix, unsigned num);
/*
 * A non-blocking SOCK_SEQPACKET socket listening on "\0NAME:suffix" (no
 * terminating NUL in the address, unlike the ibsim sockets) with the given
 * backlog: its descriptor, or -1 with errno (ENAMETOOLONG: the name).
 */
int server_listen(const struct sim_server *s, const char *suffix, int backlog);
int sim_conn_open(struct sim_server *s, uint32_t pid, unsigned *id);
/* A client without a socket whose MADs agent connection i carries; 0 or -errno. */
int sim_conn_open_board(struct sim_server *s, uint32_t pid, size_t agent, unsigned *id);
void sim_conn_close(struct sim_server *s, unsigned id);
/*
 * Serve whatever waits on the MAD sockets now (poll() without waiting):
 * called between batches of datagrams.  Returns how many sockets were
 * ready, or -1 when poll() failed.
 */
int sim_server_serve_mads(struct sim_server *s);

/* board_server.c */
int board_server_open(struct sim_server *s);
void board_server_close(struct sim_server *s);
size_t board_server_pfds(struct sim_server *s, size_t n);
size_t board_server_num_pfds(const struct sim_server *s);
void board_server_handle(struct sim_server *s, uint32_t tag, short revents);
/* Serve every board request waiting from the agents of client's switch
 * (before routing a MAD from client: its posted LFT writes come first). */
void board_server_sync(struct sim_server *s, unsigned client);
/* Hand a MAD for client to agent connection i, which carries its MADs. */
void board_server_deliver(struct sim_server *s, size_t i, const struct fabric_mad *m);

/* pzctl_server.c */
int pzctl_server_open(struct sim_server *s);
void pzctl_server_close(struct sim_server *s);
size_t pzctl_server_pfds(struct sim_server *s, size_t n);
size_t pzctl_server_num_pfds(const struct sim_server *s);
bool pzctl_server_tag(uint32_t tag);
void pzctl_server_handle(struct sim_server *s, uint32_t tag, short revents);

/* dgram_server.c */
int dgram_server_open(struct sim_server *s);
void dgram_server_close(struct sim_server *s);
size_t dgram_server_pfds(struct sim_server *s, size_t n);
size_t dgram_server_num_pfds(const struct sim_server *s);
bool dgram_server_tag(uint32_t tag);
/* Take poll()'s verdict on the datagram sockets among pfds[1..n): accept, close, mark readable. */
void dgram_server_mark(struct sim_server *s, size_t n);
/*
 * Serve the marked connections round-robin, DGRAM_SERVER_BATCH datagrams at
 * a time, with the MAD sockets served between batches; up to
 * SIM_READ_BURST datagrams a connection.
 */
void dgram_server_drain(struct sim_server *s);

/* sim_ctl.c */
void sim_ctl_handle(struct sim_server *s, struct sim_ctl *ctl);

#endif /* PZ_FABRIC_SERVER_INTERNAL_H */
