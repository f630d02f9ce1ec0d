/*
 * pz_loop.c - the event loop (see pz_loop.h).
 */
#include "pz_loop.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "cli_session.h"

/* The longest single sleep, so a deadline source that changed its mind is seen. */
#define PZ_LOOP_MAX_WAIT_MS 1000

struct pz_loop_fd {
    int fd; /* -1: free slot */
    pz_loop_fd_fn fn;
    void *arg;
    pz_loop_pending_fn pending; /* or NULL */
    bool urgent;                /* pz_loop_set_urgent: served first and between the others */
};

struct pz_loop_timer {
    pz_loop_deadline_fn next;
    pz_loop_timer_fn run;
    void *arg;
};

struct pz_loop {
    struct pz_loop_fd fds[PZ_LOOP_MAX_FDS];
    unsigned nfds; /* slots in use or freed, from the start */
    struct pz_loop_timer timers[PZ_LOOP_MAX_TIMERS];
    unsigned ntimers;
    uint64_t busy_poll_ns;  /* pz_loop_set_busy_poll */
    uint64_t last_input_ns; /* when poll() last found input */
    bool stop;
};

uint64_t pz_loop_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct pz_loop *pz_loop_create(void)
{
    return calloc(1, sizeof(struct pz_loop));
}

void pz_loop_destroy(struct pz_loop *l)
{
    free(l);
}

int pz_loop_add_fd(struct pz_loop *l, int fd, pz_loop_fd_fn fn, void *arg)
{
    unsigned i;

    if (fd < 0)
        return -1;
    for (i = 0; i < l->nfds && l->fds[i].fd >= 0; i++)
        ;
    if (i == PZ_LOOP_MAX_FDS)
        return -1;
    l->fds[i] = (struct pz_loop_fd){.fd = fd, .fn = fn, .arg = arg};
    if (i == l->nfds)
        l->nfds++;
    return 0;
}

/* The slot of registered descriptor fd; returns it, or NULL if fd is not registered. */
static struct pz_loop_fd *pz_loop_find_fd(struct pz_loop *l, int fd)
{
    for (unsigned i = 0; i < l->nfds; i++)
        if (l->fds[i].fd == fd && fd >= 0)
            return &l->fds[i];
    return NULL;
}

int pz_loop_set_pending(struct pz_loop *l, int fd, pz_loop_pending_fn pending)
{
    struct pz_loop_fd *e = pz_loop_find_fd(l, fd);

    if (!e)
        return -1;
    e->pending = pending;
    return 0;
}

int pz_loop_set_urgent(struct pz_loop *l, int fd)
{
    struct pz_loop_fd *e = pz_loop_find_fd(l, fd);

    if (!e)
        return -1;
    e->urgent = true;
    return 0;
}

void pz_loop_remove_fd(struct pz_loop *l, int fd)
{
    for (unsigned i = 0; i < l->nfds; i++)
        if (l->fds[i].fd == fd)
            l->fds[i].fd = -1;
}

int pz_loop_add_timer(struct pz_loop *l, pz_loop_deadline_fn next, pz_loop_timer_fn run, void *arg)
{
    if (l->ntimers == PZ_LOOP_MAX_TIMERS)
        return -1;
    l->timers[l->ntimers++] = (struct pz_loop_timer){.next = next, .run = run, .arg = arg};
    return 0;
}

void pz_loop_remove_timers(struct pz_loop *l, void *arg)
{
    unsigned j = 0;

    for (unsigned i = 0; i < l->ntimers; i++)
        if (l->timers[i].arg != arg)
            l->timers[j++] = l->timers[i];
    l->ntimers = j;
}

void pz_loop_stop(struct pz_loop *l)
{
    l->stop = true;
}

/* The earliest deadline of every source (ns), UINT64_MAX for none. */
static uint64_t pz_loop_earliest(const struct pz_loop *l)
{
    uint64_t next = UINT64_MAX;

    for (unsigned i = 0; i < l->ntimers; i++) {
        uint64_t t = l->timers[i].next(l->timers[i].arg);

        if (t < next)
            next = t;
    }
    return next;
}

/* Milliseconds poll() may sleep until deadline, rounded up, at most PZ_LOOP_MAX_WAIT_MS. */
static int pz_loop_wait_ms(uint64_t deadline, uint64_t now)
{
    uint64_t ms;

    if (deadline <= now)
        return 0;
    ms = (deadline - now + 999999) / 1000000;
    return ms > PZ_LOOP_MAX_WAIT_MS ? PZ_LOOP_MAX_WAIT_MS : (int)ms;
}

void pz_loop_set_busy_poll(struct pz_loop *l, uint64_t ns)
{
    l->busy_poll_ns = ns;
}

/* How long the next poll() may sleep, in ms: 0 while busy polling after input. */
static int pz_loop_timeout_ms(const struct pz_loop *l)
{
    uint64_t now = pz_loop_now_ns();

    if (l->busy_poll_ns && now - l->last_input_ns < l->busy_poll_ns)
        return 0;
    return pz_loop_wait_ms(pz_loop_earliest(l), now);
}

/* Call the timer of every source whose deadline has passed. */
static void pz_loop_run_timers(struct pz_loop *l)
{
    uint64_t now = pz_loop_now_ns();

    for (unsigned i = 0; i < l->ntimers && !l->stop; i++)
        if (l->timers[i].next(l->timers[i].arg) <= now)
            l->timers[i].run(l->timers[i].arg, now);
}

/* Whether slot i is an urgent descriptor whose owner holds input of its own. */
static bool pz_loop_urgent_held(const struct pz_loop *l, unsigned i)
{
    return l->fds[i].fd >= 0 && l->fds[i].urgent && l->fds[i].pending &&
           l->fds[i].pending(l->fds[i].arg);
}

/*
 * Between two other callbacks: look at the urgent descriptors again (poll()
 * without waiting, and their owners' buffers) and call those with input.
 */
static void pz_loop_serve_urgent(struct pz_loop *l)
{
    struct pollfd pfd[PZ_LOOP_MAX_FDS];
    unsigned slot[PZ_LOOP_MAX_FDS], n = 0;

    for (unsigned i = 0; i < l->nfds; i++) {
        if (l->fds[i].fd < 0 || !l->fds[i].urgent)
            continue;
        pfd[n] = (struct pollfd){.fd = l->fds[i].fd, .events = POLLIN};
        slot[n++] = i;
    }
    if (!n)
        return;
    poll(pfd, n, 0);
    for (unsigned k = 0; k < n && !l->stop; k++) {
        unsigned i = slot[k];

        if (l->fds[i].fd != pfd[k].fd)
            continue; /* removed by an earlier callback */
        if (pfd[k].revents || pz_loop_urgent_held(l, i))
            l->fds[i].fn(l->fds[i].arg, pfd[k].fd);
    }
}

/* Whether poll() marked slot i (pfd[i] mirrors fds[i]) and it still holds that descriptor. */
static bool pz_loop_marked(const struct pz_loop *l, const struct pollfd *pfd, unsigned i)
{
    /* A callback may have removed (or replaced) a later slot's descriptor. */
    return pfd[i].fd >= 0 && pfd[i].revents && l->fds[i].fd == pfd[i].fd;
}

/*
 * Call the callback of every descriptor poll() marked: the urgent ones (the
 * MADs) first, then the others, with the urgent ones looked at again after
 * each, so a MAD waits behind one batch of datagrams at most.
 */
static void pz_loop_run_fds(struct pz_loop *l, const struct pollfd *pfd, unsigned n)
{
    for (unsigned i = 0; i < n && !l->stop; i++)
        if (l->fds[i].urgent && pz_loop_marked(l, pfd, i))
            l->fds[i].fn(l->fds[i].arg, pfd[i].fd);
    for (unsigned i = 0; i < n && !l->stop; i++) {
        if (l->fds[i].urgent || !pz_loop_marked(l, pfd, i))
            continue;
        l->fds[i].fn(l->fds[i].arg, pfd[i].fd);
        pz_loop_serve_urgent(l);
    }
}

int pz_loop_run(struct pz_loop *l)
{
    struct pollfd pfd[PZ_LOOP_MAX_FDS];
    bool held[PZ_LOOP_MAX_FDS]; /* the owner holds input (pz_loop_set_pending) */

    l->stop = false;
    while (!l->stop) {
        unsigned n = l->nfds;
        bool pending = false;

        for (unsigned i = 0; i < n; i++) {
            pfd[i] = (struct pollfd){.fd = l->fds[i].fd, .events = POLLIN};
            held[i] = l->fds[i].fd >= 0 && l->fds[i].pending && l->fds[i].pending(l->fds[i].arg);
            pending |= held[i];
        }
        int timeout = pending ? 0 : pz_loop_timeout_ms(l);
        int rc = poll(pfd, n, timeout);

        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc > 0 && l->busy_poll_ns)
            l->last_input_ns = pz_loop_now_ns();
        else if (rc == 0 && timeout == 0 && !pending && l->busy_poll_ns)
            sched_yield(); /* busy polling: whoever else is runnable here goes first */
        for (unsigned i = 0; i < n && pending; i++)
            if (held[i] && pfd[i].fd >= 0)
                pfd[i].revents |= POLLIN; /* buffered input: as if readable */
        if (rc > 0 || pending)
            pz_loop_run_fds(l, pfd, n);
        pz_loop_run_timers(l);
    }
    return 0;
}

/* cli_session_loop's add_fd on a pz_loop. */
static int pz_loop_cli_add_fd(void *loop, int fd, cli_fd_fn fn, void *arg)
{
    return pz_loop_add_fd(loop, fd, fn, arg);
}

/* cli_session_loop's remove_fd on a pz_loop. */
static void pz_loop_cli_remove_fd(void *loop, int fd)
{
    pz_loop_remove_fd(loop, fd);
}

void pz_loop_for_cli(struct pz_loop *l, struct cli_session_loop *out)
{
    *out = (struct cli_session_loop){
        .add_fd = pz_loop_cli_add_fd, .remove_fd = pz_loop_cli_remove_fd, .loop = l};
}
