/*
 * fuzz_pz_reach.c - libFuzzer target: hostile SA answers to portzerod's
 * reachability glue (traffic/pz_reach.c).  A switch with a LID and an SM
 * sends its Set and two GetTables; the input's first byte picks the
 * request whose TID the answer carries (so the answer reaches the
 * NodeRecord, ServiceRecord or Set handling) and whether its header is
 * made an SA response; the rest is the answer, of any length.  Then the
 * timers and an on-demand probe run over whatever peers resulted.
 * Checked: no read past the input (ASan), no leak, peers never this switch.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "pz_echo.h"
#include "pz_reach.h"
#include "pzt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The requests the glue sent (their TIDs). */
struct fz {
    uint64_t tid[8];
    unsigned n;
};

/* Send callback: remember the TID. */
static int fz_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct fz *z = arg;

    (void)to;
    if (z->n < 8)
        z->tid[z->n++] = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* portzerod's defaults (agent/pz_config.c) */
    static const struct pz_reach_config cfg = {
        .interval_ms = 10000, .timeout_ms = 1000, .lost_after = 3, .refresh_s = 30, .lease_s = 300};
    struct fz z = {.n = 0};
    struct pzt_node *n;
    struct pz_echo *echo;
    struct pz_reach *r;
    uint32_t qpn = 0;
    uint8_t *buf;
    char err[160];
    size_t np = 0;

    if (size < 1)
        return 0;
    n = pzt_switch_new(4);
    if (!n || board_dgram_open(n->board, PZ_ECHO_QKEY_DEFAULT, &qpn) ||
        !(echo = pz_echo_create(n->board, PZ_ECHO_QKEY_DEFAULT))) {
        pzt_node_free(n);
        return 0;
    }
    struct pz_reach_env env = {.board = n->board,
                               .sma = n->sma,
                               .echo = echo,
                               .echo_qpn = qpn,
                               .echo_qkey = PZ_ECHO_QKEY_DEFAULT,
                               .send = fz_send,
                               .send_ctx = &z};
    r = pz_reach_create(&cfg, &env, err, sizeof(err));
    if (!r)
        abort();
    pzt_assign_lid(n, 0x21, 0x05, 18);
    pz_reach_on_timer(r, 1000);
    buf = malloc(size - 1 > 256 ? size - 1 : 256);
    if (!buf)
        abort();
    memset(buf, 0, size - 1 > 256 ? size - 1 : 256);
    memcpy(buf, data + 1, size - 1);
    if (data[0] & 0x80 && size - 1 >= 24) {
        buf[0] = 1;           /* BaseVersion */
        buf[1] = IB_SA_CLASS; /* MgmtClass */
        buf[3] |= 0x80;       /* a response */
    }
    if (z.n && size - 1 >= 24)
        mad_set_field64(buf, 0, IB_MAD_TRID_F, z.tid[(data[0] & 0x7F) % z.n]);
    pz_reach_take_mad(r, buf, size - 1);
    pz_reach_on_timer(r, 2000);
    pz_reach_probe_all(r, 3000);
    pz_reach_on_timer(r, 3000);
    const struct reach_peer *p = pz_reach_peers(r, &np);

    for (size_t i = 0; i < np; i++)
        if (p[i].guid == n->board->id->node_guid)
            abort();
    free(buf);
    pz_reach_destroy(r);
    pz_echo_destroy(echo);
    pzt_node_free(n);
    return 0;
}
