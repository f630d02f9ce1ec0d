/*
 * pz_cli.c - pz-cli: run one command of a switch's CLI through portzerod's
 * control socket (the ctl_socket key), as scripts and tests do without SSH.
 *
 *   pz-cli [-s SOCKET] [-t SECONDS] COMMAND [ARG...]
 *
 * Prints the command's output and exits with its status (0 ok, 1 failed,
 * 2 usage, 3 denied; 4 when the agent cannot be reached or does not answer
 * in time).  SOCKET defaults to $PZ_CTL_SOCKET, then /run/portzero/ctl.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PZ_CLI_UNREACHABLE 4
#define PZ_CLI_DEFAULT_SOCKET "/run/portzero/ctl"
#define PZ_CLI_MAX_TIMEOUT_S 86400 /* -t: a day (its milliseconds fit poll()'s int) */

/* Connect to the agent's control socket; returns the socket or -1 (printed). */
static int pz_cli_connect(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "pz-cli: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        fprintf(stderr, "pz-cli: cannot reach portzerod at %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Join argv into one command line ending in '\n'; returns 0 or -1 (too long). */
static int pz_cli_line(int argc, char **argv, char *buf, size_t n)
{
    size_t len = 0;

    for (int i = 0; i < argc; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? " " : "", argv[i]);

        if (w < 0 || (size_t)w >= n - len)
            return -1;
        len += (size_t)w;
    }
    if (len + 2 > n)
        return -1;
    buf[len++] = '\n';
    buf[len] = '\0';
    return 0;
}

/* Milliseconds left until deadline (CLOCK_MONOTONIC s), at least 0. */
static int pz_cli_ms_left(double deadline)
{
    struct timespec ts;
    double now;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    return now >= deadline ? 0 : (int)((deadline - now) * 1000) + 1;
}

/* Copy the output to stdout until the trailer; returns the exit status. */
static int pz_cli_relay(int fd, double deadline)
{
    char buf[4096], status[16];
    size_t slen = 0;
    int in_trailer = 0;

    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t n;

        if (poll(&p, 1, pz_cli_ms_left(deadline)) <= 0) {
            fprintf(stderr, "pz-cli: no answer in time\n");
            return PZ_CLI_UNREACHABLE;
        }
        n = read(fd, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (in_trailer) {
                if (slen < sizeof(status) - 1)
                    status[slen++] = buf[i];
            } else if (buf[i] == '\0') {
                in_trailer = 1;
            } else {
                putchar(buf[i]);
            }
        }
    }
    fflush(stdout);
    status[slen] = '\0';
    if (!in_trailer || !slen) {
        fprintf(stderr, "pz-cli: the agent closed the connection without a status\n");
        return PZ_CLI_UNREACHABLE;
    }
    return atoi(status);
}

/* Parse a time limit in seconds (0 < t <= PZ_CLI_MAX_TIMEOUT_S) into *t; 0 or -1. */
static int pz_cli_seconds(const char *s, double *t)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > PZ_CLI_MAX_TIMEOUT_S)
        return -1; /* also NaN, "inf", an empty or signed-negative string */
    *t = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = getenv("PZ_CTL_SOCKET");
    double timeout = 120;
    char line[512];
    struct timespec ts;
    int opt, fd, rc;

    while ((opt = getopt(argc, argv, "+s:t:h")) != -1) {
        switch (opt) {
        case 's':
            path = optarg;
            break;
        case 't':
            if (pz_cli_seconds(optarg, &timeout)) {
                fprintf(stderr, "pz-cli: bad -t %s (seconds, more than 0, at most %d)\n", optarg,
                        PZ_CLI_MAX_TIMEOUT_S);
                return 2;
            }
            break;
        default:
            fprintf(stderr, "usage: pz-cli [-s SOCKET] [-t SECONDS] COMMAND [ARG...]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (optind >= argc || pz_cli_line(argc - optind, argv + optind, line, sizeof(line))) {
        fprintf(stderr, "usage: pz-cli [-s SOCKET] [-t SECONDS] COMMAND [ARG...]\n");
        return 2;
    }
    if (!path || !*path)
        path = PZ_CLI_DEFAULT_SOCKET;
    fd = pz_cli_connect(path);
    if (fd < 0)
        return PZ_CLI_UNREACHABLE;
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
        fprintf(stderr, "pz-cli: cannot send the command: %s\n", strerror(errno));
        close(fd);
        return PZ_CLI_UNREACHABLE;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    rc = pz_cli_relay(fd, (double)ts.tv_sec + ts.tv_nsec / 1e9 + timeout);
    close(fd);
    return rc;
}
