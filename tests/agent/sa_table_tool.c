/*
 * sa_table_tool.c - an SA requester for test_agent_sa_tid.sh, run as a
 * umad2sim client (LD_PRELOAD with libpzumad2sim.so, SIM_HOST) of pzfabric:
 *
 *   sa_table_tool TID ROUNDS DIR ID N all|switch|ca
 *
 * registers an RMPP agent of the SA class and, ROUNDS times, sends the SA an
 * SA GetTable of NodeRecords (every node, the switches, or the CAs: a
 * NodeType component), always with the transaction ID TID + round.  Before
 * each round it waits for the N requesters of the test at a barrier in DIR
 * (files DIR/ROUND.ID, the requester's ID), so that all send the same TID
 * at the same moment.  For each answer it prints one line:
 *   ROUND TID RECORDS SWITCHES CAS
 * (the records of the whole reassembled table, and how many of them are
 * switches and CAs), or "ROUND TID none" when no answer came within the
 * hang guard (10 s), or "ROUND TID status S" for an SA error.
 * Exit status 0 when every round got an answer, 1 otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SA_QKEY 0x80010001
#define SA_HDR_END 56 /* MAD header 24 + RMPP 12 + SA header 20 */
#define ANSWER_MS 10000
#define BARRIER_MS 60000
#define NR_COMP_TYPE (1u << 4) /* NodeRecord component: NodeInfo.NodeType */
#define MAX_MAD (1 << 20)

/* How many requesters reached round's barrier: files "ROUND.ID" in dir; returns the count. */
static int barrier_count(const char *dir, unsigned round)
{
    char prefix[32];
    struct dirent *e;
    DIR *d = opendir(dir);
    int n = 0;

    if (!d)
        return 0;
    snprintf(prefix, sizeof(prefix), "%u.", round);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

/* Wait until N requesters reached round's barrier in DIR; returns 0, or -1 after BARRIER_MS. */
static int barrier(const char *dir, unsigned round, const char *id, int n)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/%u.%s", dir, round, id);
    fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0)
        close(fd);
    for (int ms = 0; ms < BARRIER_MS; ms++) {
        if (barrier_count(dir, round) >= n)
            return 0;
        usleep(1000);
    }
    return -1;
}

/* Fill umad (header + 256 bytes) with a NodeRecord GetTable of tid to sm_lid, selecting
 * node type type (0: every node). */
static void build_request(uint8_t *umad, int sm_lid, uint64_t tid, unsigned type)
{
    uint8_t *mad = umad + umad_size();

    memset(umad, 0, umad_size() + 256);
    umad_set_addr(umad, sm_lid, 1, 0, SA_QKEY);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 2);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_TABLE);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_SA_ATTR_NODERECORD);
    mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 1);
    if (type) {
        mad_set_field64(mad, 0, IB_SA_COMPMASK_F, NR_COMP_TYPE);
        mad_set_field(mad + IB_SA_DATA_OFFS, 0, IB_SA_NR_TYPE_F, type);
    }
}

/* Wait for the answer of tid; prints its line. Returns 0 for an answer, 1 otherwise. */
static int read_answer(int fd, unsigned round, uint64_t tid, uint8_t *buf)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uint8_t *mad = buf + umad_size();
        int len = MAX_MAD, left, rc;
        unsigned recsz, n, sw = 0, ca = 0;

        clock_gettime(CLOCK_MONOTONIC, &t);
        left =
            ANSWER_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            break;
        rc = umad_recv(fd, buf, &len, left);
        if (rc < 0)
            continue;
        if ((uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) != (uint32_t)tid ||
            mad_get_field(mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET_TABLE ||
            !mad_get_field(mad, 0, IB_MAD_RESPONSE_F))
            continue; /* not ours: a stray */
        if (mad_get_field(mad, 0, IB_MAD_STATUS_F)) {
            printf("%u 0x%llx status %u\n", round, (unsigned long long)tid,
                   mad_get_field(mad, 0, IB_MAD_STATUS_F));
            return 1;
        }
        recsz = mad_get_field(mad, 0, IB_SA_ATTROFFS_F) * 8;
        n = recsz && len > SA_HDR_END ? (unsigned)(len - SA_HDR_END) / recsz : 0;
        for (unsigned i = 0; i < n; i++) {
            unsigned type = mad_get_field(mad + SA_HDR_END + (size_t)i * recsz, 0, IB_SA_NR_TYPE_F);
            sw += type == 2;
            ca += type == 1;
        }
        printf("%u 0x%llx %u %u %u\n", round, (unsigned long long)tid, n, sw, ca);
        return 0;
    }
    printf("%u 0x%llx none\n", round, (unsigned long long)tid);
    return 1;
}

int main(int argc, char **argv)
{
    static uint8_t buf[MAX_MAD + 256];
    umad_port_t port;
    unsigned rounds, type;
    uint64_t tid;
    int fd, agent, failed = 0;

    if (argc != 7 ||
        (strcmp(argv[6], "all") && strcmp(argv[6], "switch") && strcmp(argv[6], "ca"))) {
        fprintf(stderr, "usage: sa_table_tool TID ROUNDS DIR ID N all|switch|ca\n");
        return 1;
    }
    tid = (uint32_t)strtoul(argv[1], NULL, 0);
    rounds = (unsigned)strtoul(argv[2], NULL, 0);
    type = !strcmp(argv[6], "switch") ? 2 : !strcmp(argv[6], "ca") ? 1 : 0;
    if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
        (fd = umad_open_port(NULL, 0)) < 0) {
        fprintf(stderr, "sa_table_tool: cannot open the umad port\n");
        return 1;
    }
    agent = umad_register(fd, IB_SA_CLASS, 2, 1, NULL);
    if (agent < 0) {
        fprintf(stderr, "sa_table_tool: cannot register an SA agent\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (unsigned r = 0; r < rounds; r++) {
        if (barrier(argv[3], r, argv[4], atoi(argv[5])) < 0) {
            fprintf(stderr, "sa_table_tool: the other requesters never reached round %u\n", r);
            return 1;
        }
        build_request(buf, (int)port.sm_lid, tid + r, type);
        if (umad_send(fd, agent, buf, 256, 1000, 0) < 0) {
            printf("%u 0x%llx send failed\n", r, (unsigned long long)(tid + r));
            failed = 1;
            continue;
        }
        failed |= read_answer(fd, r, tid + r, buf);
    }
    umad_close_port(fd);
    return failed;
}
