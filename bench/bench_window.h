/*
 * bench_window.h - the request loop the end-to-end bench clients share:
 * keep up to `window` requests outstanding on one umad agent for a while,
 * count the good answers, print "answered seconds rate errors".
 */
#ifndef PZ_BENCH_WINDOW_H
#define PZ_BENCH_WINDOW_H

#include <stdint.h>

#define BENCH_MAD 256
#define BENCH_MAX_WINDOW 64

/* What one client sends and accepts. */
struct bench_window_client {
    const char *name; /* for messages */
    int mgmt_class;   /* umad_register() class and version */
    int class_version;
    int dlid, dqp; /* umad_set_addr(): 0xFFFF and 0 for directed route */
    uint32_t qkey;
    /* Build request number seq (1, 2, ...) with TID tid into mad. */
    void (*build)(void *arg, uint8_t *mad, uint64_t tid, unsigned long seq);
    /* Whether an answer is good (status 0 and what was asked for). */
    int (*good)(void *arg, const uint8_t *mad);
    void *arg;
};

/*
 * A client named name of class mgmt_class (version 1) with its build and
 * good functions and their arg; DLID, QP and Q_Key still 0.
 */
struct bench_window_client bench_client(const char *name, int mgmt_class,
                                        void (*build)(void *arg, uint8_t *mad, uint64_t tid,
                                                      unsigned long seq),
                                        int (*good)(void *arg, const uint8_t *mad), void *arg);

/* bench_client of directed-route SMPs (SMI direct class, permissive DLID, QP0). */
struct bench_window_client bench_dr_client(const char *name,
                                           void (*build)(void *arg, uint8_t *mad, uint64_t tid,
                                                         unsigned long seq),
                                           int (*good)(void *arg, const uint8_t *mad), void *arg);

/*
 * Open the first umad port, run the loop for seconds with window
 * outstanding, print the result line on stdout.  Returns the process exit
 * status: 0, 1 (no umad port, or errors and no answer).
 */
int bench_window_run(const struct bench_window_client *c, double seconds, int window);

/*
 * Parse a directed route "0,1,19" (initial path, hop 0 first) into path[1..].
 * Returns the hop count, or -1 if it is malformed or longer than 63 hops.
 */
int bench_parse_path(const char *s, uint8_t *path);

#endif /* PZ_BENCH_WINDOW_H */
