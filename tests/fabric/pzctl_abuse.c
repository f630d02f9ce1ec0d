/*
 * pzctl_abuse.c - a misbehaving operator on pzfabric's control socket
 * "<name>:pzctl", for test_fabric_ctl.sh:
 *
 *   pzctl_abuse SOCKNAME
 *
 * Sends malformed requests (binary garbage, NUL bytes, an overlong request,
 * too many arguments, blanks only, huge numbers), opens more connections
 * than pzfabric serves at once, and floods requests without reading the
 * replies; each malformed request must get an "error: " reply.  Finally a
 * fresh connection's "status" must still be answered with "ok".  Prints one
 * line per check; exit status 0 if all passed, 1 otherwise.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pzctl_proto.h"

#define CONNS 80  /* more than pzfabric serves at once */
#define SERVED 64 /* what its README promises to serve at once */
#define FLOOD 5000
#define REPLY_WAIT_MS 5000

/* Connect to "<name>:pzctl" (without waiting if flags has SOCK_NONBLOCK); returns the socket or -1.
 */
static int pzctl_connect_flags(const char *name, int flags)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int len = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s:%s", name, PZCTL_SUFFIX);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | flags, 0);

    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Connect to "<name>:pzctl", waiting for the server if needed; returns the socket or -1. */
static int pzctl_connect(const char *name)
{
    return pzctl_connect_flags(name, 0);
}

/* Send len bytes as one request and read the reply into buf; returns its length or -1. */
static long ask(int fd, const void *req, size_t len, char *buf, size_t cap)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    ssize_t n;

    if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
        return -1;
    if (poll(&pfd, 1, REPLY_WAIT_MS) != 1)
        return -1;
    n = recv(fd, buf, cap - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return (long)n;
}

/* Print and count one check. */
static void check(int *failures, const char *name, int ok)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", name);
    *failures += !ok;
}

/* Whether request req (len bytes) gets a reply starting with want. */
static int answered(int fd, const void *req, size_t len, const char *want)
{
    static const size_t cap = PZCTL_REPLY_MAX + 1;
    char *buf = malloc(cap);
    int ok = buf && ask(fd, req, len, buf, cap) >= 0 && !strncmp(buf, want, strlen(want));

    free(buf);
    return ok;
}

/* The malformed requests, each on the connection fd. */
static void malformed(int fd, int *failures)
{
    static const char garbage[] = {'\x01', '\xff', '\x7f', 'l', 'i', 'n', 'k', '\x80'};
    static const char with_nul[] = "status\0junk";
    char *big = malloc(3 * PZCTL_REQUEST_MAX);
    char many[256] = "status";

    for (int i = 0; i < 20; i++)
        strcat(many, "\nx");
    check(failures, "binary garbage: error reply",
          answered(fd, garbage, sizeof(garbage), PZCTL_REPLY_ERROR));
    check(failures, "NUL byte: error reply",
          answered(fd, with_nul, sizeof(with_nul) - 1, PZCTL_REPLY_ERROR));
    check(failures, "blanks only: error reply", answered(fd, " \t \n", 4, PZCTL_REPLY_ERROR));
    check(failures, "too many arguments: error reply",
          answered(fd, many, strlen(many), PZCTL_REPLY_ERROR));
    check(failures, "port 99999999999999999999: error reply",
          answered(fd, "counters Switch1 99999999999999999999", 37, PZCTL_REPLY_ERROR));
    check(failures, "port -1: error reply",
          answered(fd, "link-down Switch1 -1", 20, PZCTL_REPLY_ERROR));
    check(failures, "drop-rate 1e2: error reply",
          answered(fd, "drop-rate 1e2", 13, PZCTL_REPLY_ERROR));
    check(failures, "drop-rate seed 0: error reply",
          answered(fd, "drop-rate 1 0", 13, PZCTL_REPLY_ERROR));
    if (big) {
        memset(big, 'a', 3 * PZCTL_REQUEST_MAX);
        check(failures, "overlong request: error reply",
              answered(fd, big, 3 * PZCTL_REQUEST_MAX, PZCTL_REPLY_ERROR));
    }
    free(big);
    check(failures, "same connection still answers status", answered(fd, "status", 6, "ok\n"));
}

/* More connections than served: the extra ones are closed, the server keeps going. */
static void many_connections(const char *name, int *failures)
{
    int fds[CONNS], open = 0;

    for (int i = 0; i < CONNS; i++) {
        fds[i] = pzctl_connect(name);
        open += fds[i] >= 0;
    }
    check(failures, "80 connections at once: connect works", open == CONNS);
    for (int i = 0; i < CONNS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/*
 * SERVED connections opened at once without waiting (as a client with a
 * connect timeout does) and held open: every one of them is answered.
 */
static void served_connections(const char *name, int *failures)
{
    int fds[SERVED], open = 0, ok = 0;
    char what[80];

    for (int i = 0; i < SERVED; i++) {
        fds[i] = pzctl_connect_flags(name, SOCK_NONBLOCK);
        open += fds[i] >= 0;
    }
    for (int i = 0; i < SERVED; i++)
        ok += fds[i] >= 0 && answered(fds[i], "status", 6, "ok\n");
    snprintf(what, sizeof(what), "%d connections at once: %d connected, %d answered", SERVED, open,
             ok);
    check(failures, what, open == SERVED && ok == SERVED);
    for (int i = 0; i < SERVED; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Requests without reading replies until the socket is full or FLOOD are sent. */
static void flood(const char *name)
{
    int fd = pzctl_connect(name);

    if (fd < 0)
        return;
    for (int i = 0; i < FLOOD; i++)
        if (send(fd, "status", 6, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            break;
    close(fd);
}

int main(int argc, char **argv)
{
    int failures = 0, fd;

    if (argc != 2) {
        fprintf(stderr, "usage: pzctl_abuse SOCKNAME\n");
        return 2;
    }
    fd = pzctl_connect(argv[1]);
    if (fd < 0) {
        fprintf(stderr, "pzctl_abuse: cannot connect: %s\n", strerror(errno));
        return 1;
    }
    malformed(fd, &failures);
    close(fd);
    served_connections(argv[1], &failures);
    many_connections(argv[1], &failures);
    flood(argv[1]);
    fd = pzctl_connect(argv[1]);
    check(&failures, "a fresh connection gets status after all that",
          fd >= 0 && answered(fd, "status", 6, "ok\n"));
    if (fd >= 0)
        close(fd);
    return failures ? 1 : 0;
}
