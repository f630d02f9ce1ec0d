/*
 * pz_loop.h - portzerod's event loop: registered descriptors and deadlines.
 *
 * Each service registers the descriptors it waits on (a callback when one
 * polls readable) and a deadline source (a function saying when it next has
 * timed work, and one doing it).  The loop sleeps in one poll() until a
 * descriptor is ready or the earliest deadline passes.  Every descriptor it
 * polls is an ordinary one: umad2sim's fake umad descriptor never reaches it
 * (mad_io gives an eventfd instead), so the wait is exact.  Single-threaded:
 * every callback runs on the thread that calls pz_loop_run().
 */
#ifndef PZ_LOOP_H
#define PZ_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#define PZ_LOOP_MAX_FDS 32
#define PZ_LOOP_MAX_TIMERS 16

struct pz_loop;

/* A descriptor polled readable (or in error): do the work, never block. */
typedef void (*pz_loop_fd_fn)(void *arg, int fd);
/* When the source next has timed work (CLOCK_MONOTONIC ns), UINT64_MAX for none. */
typedef uint64_t (*pz_loop_deadline_fn)(void *arg);
/* The deadline passed: do the timed work at now (ns). */
typedef void (*pz_loop_timer_fn)(void *arg, uint64_t now);

/* A new, empty loop; NULL without memory. */
struct pz_loop *pz_loop_create(void);

/* Free the loop (not what is registered). */
void pz_loop_destroy(struct pz_loop *l);

/* Watch fd for input; returns 0, or -1 when the table is full or fd < 0. */
int pz_loop_add_fd(struct pz_loop *l, int fd, pz_loop_fd_fn fn, void *arg);

/* Whether input waits in a buffer of the descriptor's owner (readable or not). */
typedef bool (*pz_loop_pending_fn)(void *arg);

/*
 * Say that fd's owner may hold input of its own (MADs received while it
 * waited for something else): before each sleep the loop asks pending(arg)
 * (arg: the one fd was added with), and when it says yes the loop does not
 * sleep and calls fd's callback as if fd were readable.  Returns 0, or -1
 * when fd is not watched.
 */
int pz_loop_set_pending(struct pz_loop *l, int fd, pz_loop_pending_fn pending);

/*
 * Make fd urgent (the MADs: VL15 is never stuck behind data): in each pass
 * its callback runs before the others', and after each other callback the
 * loop looks at it again without sleeping (and asks its pending function),
 * so its input waits behind one other callback's batch at most.  Returns 0,
 * or -1 when fd is not watched.
 */
int pz_loop_set_urgent(struct pz_loop *l, int fd);

/* Stop watching fd (safe from inside a callback). */
void pz_loop_remove_fd(struct pz_loop *l, int fd);

/* Register a deadline source; returns 0 or -1 when the table is full. */
int pz_loop_add_timer(struct pz_loop *l, pz_loop_deadline_fn next, pz_loop_timer_fn run, void *arg);

/* Remove every deadline source registered with arg (not from inside a timer callback). */
void pz_loop_remove_timers(struct pz_loop *l, void *arg);

/*
 * Busy polling: after input, keep polling without sleeping for ns before
 * sleeping again (0, the default: sleep at once).  Trades a core for the
 * wake-up a request would otherwise cost, as Linux's net.core.busy_poll does.
 */
void pz_loop_set_busy_poll(struct pz_loop *l, uint64_t ns);

/* Run until pz_loop_stop(); returns 0, or -1 when poll() fails. */
int pz_loop_run(struct pz_loop *l);

/* Make pz_loop_run() return after the current callback. */
void pz_loop_stop(struct pz_loop *l);

/* The loop's clock: CLOCK_MONOTONIC in ns. */
uint64_t pz_loop_now_ns(void);

struct cli_session_loop;

/* l as the CLI's job host watches its jobs' descriptors (cli/cli_session.h). */
void pz_loop_for_cli(struct pz_loop *l, struct cli_session_loop *out);

#endif
