/*
 * pz_tcp.h - a TCP port of the switch's lwIP stack whose connections are
 * served on the agent loop (the SSH server on 22).
 *
 * lwIP's callbacks (in lwIP's thread, which receives TCP; on the agent
 * loop's thread only for a segment that found lwIP's mailbox full) accept
 * connections and copy what arrives into each connection's receive ring;
 * the agent loop reads the rings, writes with copies under the core lock,
 * and opens the receive window only by what it has read (pz_tcp_read), so
 * a slow service slows its peer instead of buffering without bound.  One
 * eventfd per port wakes the loop for every event (a connection, data,
 * send space, a close): the loop then accepts and tries every connection.
 */
#ifndef PZ_TCP_H
#define PZ_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pz_tcp_port;
struct pz_tcp_conn;

/*
 * Listen on port with at most max_conns connections at once, except that a
 * newcomer from an address that holds none yet is taken up to twice that
 * (the service decides whom to drop: a flood from one address cannot keep
 * another out); NULL + err.
 */
struct pz_tcp_port *pz_tcp_listen(uint16_t port, unsigned max_conns, char *err, size_t errlen);

/* The descriptor that polls readable after any event of the port's connections. */
int pz_tcp_port_fd(const struct pz_tcp_port *l);

/* Clear the descriptor (call before serving the port's connections). */
void pz_tcp_port_clear(struct pz_tcp_port *l);

/* The next accepted connection not yet taken, or NULL. */
struct pz_tcp_conn *pz_tcp_accept(struct pz_tcp_port *l);

/* The peer of a connection (host order; the address 0 for an IPv6 peer). */
void pz_tcp_peer(const struct pz_tcp_conn *c, uint32_t *addr, uint16_t *port);

/* The peer's address as text ("10.0.0.1", "fd00::1"), either family; valid while c is. */
const char *pz_tcp_peer_text(const struct pz_tcp_conn *c);

/*
 * Read up to cap bytes: their count, 0 when nothing waits, -1 when the peer
 * closed (or reset) and everything it sent was read.
 */
int pz_tcp_read(struct pz_tcp_conn *c, void *buf, size_t cap);

/* Bytes pz_tcp_write would take now (0 once the connection is gone). */
size_t pz_tcp_send_space(struct pz_tcp_conn *c);

/* Write up to len bytes (copied); returns how many it took, or -1 when the connection is gone. */
int pz_tcp_write(struct pz_tcp_conn *c, const void *buf, size_t len);

/*
 * Acknowledge now what arrived since the last call, unless a write already
 * carried the ACK: call it after serving the connection (reading and
 * answering what it could), so the peer does not wait for lwIP's delayed
 * ACK (up to 250 ms) when the service has nothing to send back.
 */
void pz_tcp_ack(struct pz_tcp_conn *c);

/* Whether everything written was acknowledged by the peer. */
bool pz_tcp_drained(struct pz_tcp_conn *c);

/* Close (FIN after what was written) and free the connection. */
void pz_tcp_close(struct pz_tcp_conn *c);

/* Abort (RST) and free the connection. */
void pz_tcp_abort(struct pz_tcp_conn *c);

/* Stop listening and abort every connection not yet freed (the caller frees its own first). */
void pz_tcp_unlisten(struct pz_tcp_port *l);

#endif
