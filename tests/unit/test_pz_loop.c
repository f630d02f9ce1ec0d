/*
 * test_pz_loop.c - portzerod's event loop (agent/pz_loop.c): an urgent
 * descriptor (the MADs) is served before the other descriptors of a pass,
 * and looked at again after each of them, so input that arrives while
 * another callback runs (a MAD during a batch of datagrams) is served before
 * the next callback; an urgent descriptor with nothing waiting is not
 * called; its owner's buffered input (pending) counts as input; with busy
 * polling the loop keeps polling for the window after input, then sleeps.
 */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pz_loop.h"
#include "pzt_main.h"

/* One watched pipe: its name in the log, and what its callback does. */
struct watched {
    char name;
    int fds[2];            /* read end, write end */
    struct watched *wakes; /* written to by the callback (or NULL) */
    bool stops;            /* the callback stops the loop (once nothing is held) */
    int held;              /* pending() says yes this many times */
};

/* What the callbacks did, in order. */
struct record {
    struct pz_loop *loop;
    char log[16];
    size_t n;
};

static struct record rec;

/* pz_loop_fd_fn: log the call, drain the pipe, do what w says. */
static void on_fd(void *arg, int fd)
{
    struct watched *w = arg;
    char buf[16];

    if (rec.n < sizeof(rec.log) - 1)
        rec.log[rec.n++] = w->name;
    while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
        ;
    if (w->held > 0)
        w->held--;
    if (w->wakes)
        assert_int_equal(write(w->wakes->fds[1], "x", 1), 1);
    if (w->stops && !w->held)
        pz_loop_stop(rec.loop);
}

/* pz_loop_pending_fn: whether w's owner still holds input. */
static bool held(void *arg)
{
    const struct watched *w = arg;

    return w->held > 0;
}

/* Open w's pipe (non-blocking) and watch it. */
static void watch(struct watched *w, char name)
{
    w->name = name;
    assert_int_equal(pipe2(w->fds, O_NONBLOCK), 0);
    assert_int_equal(pz_loop_add_fd(rec.loop, w->fds[0], on_fd, w), 0);
}

/* Close w's pipe. */
static void unwatch(struct watched *w)
{
    close(w->fds[0]);
    close(w->fds[1]);
}

/* Watch a, b and m (in that order) and make all three readable. */
static void watch_three(struct watched *a, struct watched *b, struct watched *m)
{
    watch(a, 'A');
    watch(b, 'B');
    watch(m, 'M');
    for (struct watched *w = a; w; w = w == a ? b : w == b ? m : NULL)
        assert_int_equal(write(w->fds[1], "x", 1), 1);
}

/* Close the three pipes of watch_three. */
static void unwatch_three(struct watched *a, struct watched *b, struct watched *m)
{
    unwatch(a);
    unwatch(b);
    unwatch(m);
}

/* A fresh loop and record. */
static int setup(void **state)
{
    (void)state;
    memset(&rec, 0, sizeof(rec));
    rec.loop = pz_loop_create();
    return rec.loop ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pz_loop_destroy(rec.loop);
    return 0;
}

/*
 * Two data pipes and an urgent one, all readable: the urgent one first; the
 * first data callback makes the urgent one readable again (a MAD during a
 * batch), so it is served before the second data callback; after that
 * nothing waits on it and it is not called again.
 */
static void test_urgent_first_and_between(void **state)
{
    struct watched a = {0}, b = {0}, m = {0};

    (void)state;
    watch_three(&a, &b, &m);
    assert_int_equal(pz_loop_set_urgent(rec.loop, m.fds[0]), 0);
    assert_int_equal(pz_loop_set_urgent(rec.loop, 1000), -1); /* not watched */
    a.wakes = &m;
    b.stops = true;
    assert_int_equal(pz_loop_run(rec.loop), 0);
    assert_string_equal(rec.log, "MAMB");
    unwatch_three(&a, &b, &m);
}

/* Without urgent descriptors the order is the registration order. */
static void test_plain_order(void **state)
{
    struct watched a = {0}, b = {0}, m = {0};

    (void)state;
    watch_three(&a, &b, &m);
    a.wakes = &m;
    m.stops = true;
    assert_int_equal(pz_loop_run(rec.loop), 0);
    assert_string_equal(rec.log, "ABM");
    unwatch_three(&a, &b, &m);
}

/*
 * An urgent descriptor whose owner holds input (pending) but whose pipe is
 * empty is called first and again after the data callback while it holds.
 */
static void test_urgent_pending(void **state)
{
    struct watched a = {0}, m = {0};

    (void)state;
    watch(&a, 'A');
    watch(&m, 'M');
    assert_int_equal(pz_loop_set_pending(rec.loop, m.fds[0], held), 0);
    assert_int_equal(pz_loop_set_urgent(rec.loop, m.fds[0]), 0);
    m.held = 2; /* two callbacks' worth buffered */
    m.stops = true;
    assert_int_equal(write(a.fds[1], "x", 1), 1);
    assert_int_equal(pz_loop_run(rec.loop), 0);
    assert_string_equal(rec.log, "MAM");
    assert_int_equal(m.held, 0);
    unwatch(&a);
    unwatch(&m);
}

/* A deadline source that logs when the loop looks at it (every pass). */
struct probe {
    uint64_t start, deadline;
    unsigned early, late; /* passes within the busy window, and after it */
    uint64_t window;
};

/* pz_loop_deadline_fn: count the pass (in or after the window); the deadline. */
static uint64_t probe_next(void *arg)
{
    struct probe *p = arg;
    uint64_t t = pz_loop_now_ns() - p->start;

    if (t < p->window)
        p->early++;
    else if (t > p->window + 10000000u && t < p->deadline - p->start)
        p->late++;
    return p->deadline;
}

/* pz_loop_timer_fn: the deadline passed; stop. */
static void probe_run(void *arg, uint64_t now)
{
    (void)arg;
    (void)now;
    pz_loop_stop(rec.loop);
}

/*
 * One input at the start, a deadline 300 ms later; returns the probe after
 * the loop stopped at it, with busy polling of busy_ns (0: none).
 */
static struct probe run_probe(uint64_t busy_ns)
{
    struct watched a = {0};
    struct probe p = {.window = 100000000u};

    watch(&a, 'A');
    pz_loop_set_busy_poll(rec.loop, busy_ns);
    p.start = pz_loop_now_ns();
    p.deadline = p.start + 300000000u;
    assert_int_equal(pz_loop_add_timer(rec.loop, probe_next, probe_run, &p), 0);
    assert_int_equal(write(a.fds[1], "x", 1), 1);
    assert_int_equal(pz_loop_run(rec.loop), 0);
    assert_string_equal(rec.log, "A");
    unwatch(&a);
    return p;
}

/*
 * busy_poll 100 ms: after the input the loop passes again and again for the
 * window (it yields between passes, so a loaded machine still gives it some:
 * more than the 3 looks of a loop that sleeps at once), then sleeps until the
 * deadline.  A pass looks at the deadline twice (the wait, the timers), so
 * the window's last pass and the pass that goes to sleep look at most 3
 * times after 110 ms, when a loaded machine preempted them past it (once in
 * 10 runs under stress-ng --cpu 2); a loop that went on polling looks dozens
 * of times in the 190 ms left.
 */
static void test_busy_poll_window(void **state)
{
    struct probe p;

    (void)state;
    p = run_probe(100000000u);
    assert_true(p.early > 3);
    assert_true(p.late <= 3);
}

/*
 * Without busy polling the loop sleeps at once: three looks at the deadline
 * before it (the input's pass: the wait and the timers; the pass that goes to
 * sleep), early or, preempted, late, and no more.
 */
static void test_no_busy_poll_sleeps(void **state)
{
    struct probe p;

    (void)state;
    p = run_probe(0);
    assert_true(p.early + p.late <= 3);
}

PZT_MAIN_SETUP(setup, teardown, test_urgent_first_and_between, test_plain_order,
               test_urgent_pending, test_busy_poll_window, test_no_busy_poll_sleeps)
