/*
 * fuzz_snmp.c - arbitrary datagrams into the embedded net-snmp agent
 * (snmp/) through its transport, as the IP stack hands them over: the
 * agent must answer, report or drop, never crash, hang or leak.  The agent
 * serves a 4-port in-memory switch with a v2c community and a v3 user
 * configured, so that parsing reaches the PDU handlers (and the IF-MIB and
 * PORTZERO-MIB tables) for well-formed community messages.  An inform sink
 * is configured too: inputs of odd length come from the sink's
 * address and port, so they take the route of a Response to an inform
 * (into the sink's session) instead of the agent's.  Bit 1 of the length
 * picks the family: IPv6 inputs come from [::1] (rwcommunity6) to the
 * agent's UDP/IPv6 session, or from the IPv6 inform sink [::2]:162.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "board_mem.h"
#include "cong_monitor.h"
#include "pma.h"
#include "pz_snmp.h"
#include "sma.h"

/* What the agent sends: counted, then dropped. */
static int fuzz_send(void *arg, const struct pz_snmp_peer *to, const void *buf, size_t len)
{
    (void)to;
    (void)buf;
    (void)len;
    (*(unsigned long *)arg)++;
    return 0;
}

/* The agent, created on the first input (net-snmp allows one per process). */
static struct pz_snmp *fuzz_agent(void)
{
    static struct pz_snmp *agent;
    static unsigned long sent;
    static char dir[] = "/tmp/fuzz_snmp.XXXXXX";
    struct board_identity id;
    struct board_mem *bm;
    struct pz_snmp_params p = {.send = fuzz_send, .send_arg = &sent, .mgmt_port = 1};
    char conf[256], err[256];
    FILE *f;

    if (agent)
        return agent;
    if (!mkdtemp(dir))
        abort();
    snprintf(conf, sizeof(conf), "%s/snmp.conf", dir);
    f = fopen(conf, "w");
    if (!f)
        abort();
    fputs("rwcommunity fuzz 127.0.0.1\n"
          "createUser fuzzer SHA-256 \"fuzzauthpass\" AES \"fuzzprivpass\"\n"
          "rwuser fuzzer priv\n"
          "rwcommunity6 fuzz ::1\n"
          "informsink 127.0.0.2:162 fuzz\n"
          "informsink udp6:[::2]:162 fuzz\n",
          f);
    fclose(f);
    board_mem_default_switch_identity(&id, 0x1234, 4);
    bm = board_mem_create(&id);
    p.board = board_mem_board(bm);
    for (unsigned port = 1; port <= 4; port++)
        board_mem_set_connected(bm, port, true);
    p.sma = sma_create(p.board);
    p.pma = pma_create(p.board);
    p.config_file = conf;
    p.state_dir = dir;
    agent = pz_snmp_create(&p, err, sizeof(err));
    if (!agent) {
        fprintf(stderr, "fuzz_snmp: %s\n", err);
        abort();
    }
    return agent;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pz_snmp *s = fuzz_agent();
    struct pz_snmp_peer from = {.addr = 0x7F000001, .port = 40000};
    struct pz_snmp_peer sink = {.addr = 0x7F000002, .port = 162};
    struct pz_snmp_peer from6 = {.ipv6 = true, .addr6 = {[15] = 1}, .port = 40000};
    struct pz_snmp_peer sink6 = {.ipv6 = true, .addr6 = {[15] = 2}, .port = 162};

    if (size & 2)
        from = size & 1 ? sink6 : from6;
    else if (size & 1)
        from = sink;
    pz_snmp_input(s, &from, data, size);
    pz_snmp_process(s);
    return 0;
}
