/*
 * fabric_bed.h - what the fabric's cmocka tests share to build a small
 * fabric by hand: find a node, reach its board, bring a port to Active,
 * program an LFT, read a port's hardware counter.  Every helper asserts
 * success, so a test reads as the steps it takes.
 */
#ifndef PZ_FABRIC_BED_H
#define PZ_FABRIC_BED_H

#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

/*
 * Two 8-port switches S1 and S2 cabled port 3 to port 3, H1 and H2 on S1's
 * ports 1 and 2, H3 and H4 on S2's: the fabric tests' small topology.
 */
extern const char fbed_net_2s4h[];

/*
 * The text of fbed_net_2s4h with s1_more (S1's further port lines) after
 * S1's port 3 and more_nodes (further nodes) at the end: a test's variant
 * of the small topology as one string literal.
 */
#define FBED_NET_2S4H(s1_more, more_nodes)                                                         \
    "Switch 8 \"S1\"\n"                                                                            \
    "[1] \"H1\"[1]\n"                                                                              \
    "[2] \"H2\"[1]\n"                                                                              \
    "[3] \"S2\"[3]\n" s1_more "\n"                                                                 \
    "Switch 8 \"S2\"\n"                                                                            \
    "[1] \"H3\"[1]\n"                                                                              \
    "[2] \"H4\"[1]\n"                                                                              \
    "[3] \"S1\"[3]\n"                                                                              \
    "\n"                                                                                           \
    "Hca 1 \"H1\"\n"                                                                               \
    "[1] \"S1\"[1]\n"                                                                              \
    "\n"                                                                                           \
    "Hca 1 \"H2\"\n"                                                                               \
    "[1] \"S1\"[2]\n"                                                                              \
    "\n"                                                                                           \
    "Hca 1 \"H3\"\n"                                                                               \
    "[1] \"S2\"[1]\n"                                                                              \
    "\n"                                                                                           \
    "Hca 1 \"H4\"\n"                                                                               \
    "[1] \"S2\"[2]\n" more_nodes

/*
 * fbed_net_2s4h's fabric brought up as an SM would (no LFTs): LIDs S1 1,
 * S2 2, H1..H4 11..14, every link Active.
 */
void fbed_2s4h_up(const struct fabric *f);

/* The fabric of the topology text net (asserts that it parses and builds). */
struct fabric *fbed_fabric(const char *net);

/*
 * fbed_net_2s4h's fabric, brought up (fbed_2s4h_up) and routed: block 0 of
 * S1's LFT sends lids[i] to port s1[i], S2's to s2[i], for i < n.
 */
struct fabric *fbed_2s4h_routed(const uint16_t *lids, const uint8_t *s1, const uint8_t *s2,
                                size_t n);

/*
 * A cmocka teardown for a test whose *state is a calloc'd struct with its
 * struct fabric * as first member: destroys the fabric, frees the struct.
 */
int fbed_teardown(void **state);

/* The index of the node named name (asserts it exists). */
size_t fbed_node(const struct fabric *f, const char *name);

/* The (writable) board of the node named name. */
const struct board *fbed_board(const struct fabric *f, const char *name);

/* Bring (name, port) to PortState Active through Armed. */
void fbed_activate(const struct fabric *f, const char *name, unsigned port);

/*
 * Program block 0 of a switch's LFT: lids[i] -> ports[i] for i < n, every
 * other entry dropped; LinearFDBTop at the end of the block.
 */
void fbed_program_lft(const struct fabric *f, const char *name, const uint16_t *lids,
                      const uint8_t *ports, size_t n);

/* A hardware counter of (name, port), by field offset in struct board_port_counters. */
uint64_t fbed_counter(const struct fabric *f, const char *name, unsigned port, size_t offset);

#define FBED_COUNTER(f, name, port, field)                                                         \
    fbed_counter(f, name, port, offsetof(struct board_port_counters, field))

#endif /* PZ_FABRIC_BED_H */
