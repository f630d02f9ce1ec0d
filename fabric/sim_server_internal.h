/*
 * sim_server_internal.h - what sim_server.c (sockets, packets) and
 * sim_ctl.c (control messages) share.
 */
#ifndef PZ_SIM_SERVER_INTERNAL_H
#define PZ_SIM_SERVER_INTERNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fabric.h"
#include "sim_proto.h"
#include "sim_server.h"

#define SIM_NAME_MAX 80        /* longest socket base name */
#define SIM_TX_QUEUE_MAX 65536 /* packets held for a client that does not read */
#define SIM_READ_BURST 256     /* packets read from one socket per round */

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
};

/* A board/sim connection from an external agent (portzerod). */
struct sim_agent {
    bool used;
    int fd;
    long node; /* attached switch, or -1 before ATTACH */
};

/* pfd_conn[] tags of the board sockets (client ids are below). */
#define SIM_PFD_BOARD_LISTEN 0xFFFFFFFFu
#define SIM_PFD_AGENT 0x80000000u

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
    int board_fd; /* NAME:board listening socket */
    struct sim_agent *agents;
    size_t num_agents;
};

/* sim_server.c */
int sim_socket_bind(const struct sim_server *s, const char *suffix, unsigned num);
int sim_socket_connect(int fd, const struct sim_server *s, const char *suffix, unsigned num);
int sim_conn_open(struct sim_server *s, uint32_t pid, unsigned *id);
void sim_conn_close(struct sim_server *s, unsigned id);

/* sim_board.c */
int sim_board_open(struct sim_server *s);
void sim_board_close(struct sim_server *s);
size_t sim_board_pfds(struct sim_server *s, size_t n);
size_t sim_board_num_pfds(const struct sim_server *s);
void sim_board_handle(struct sim_server *s, uint32_t tag, short revents);

/* sim_ctl.c */
void sim_ctl_handle(struct sim_server *s, struct sim_ctl *ctl);

#endif /* PZ_SIM_SERVER_INTERNAL_H */
