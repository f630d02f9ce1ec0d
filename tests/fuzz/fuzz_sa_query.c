/*
 * fuzz_sa_query.c - libFuzzer target: hostile SA answers to the SA answer
 * parser (mad/sa_query.c) and the route check's SA glue and check
 * (traffic/route_sa.c, route_check.c).  The input is one answer of any
 * length (a reassembled RMPP answer may be long); its records are decoded
 * with every decoder, then the same bytes are fed as a NodeRecord,
 * PortInfoRecord (LMCs), LinkRecord and LFTRecord answer into one fabric,
 * which is checked with and without CA routes.  Checked: no read past the
 * input (ASan), no leak, counts that add up (every LID of every LMC range
 * a destination).
 */
#include <stdlib.h>
#include <string.h>

#include "route_check.h"
#include "route_sa.h"
#include "sa_query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every decoder over every record of the answer (they must not read past stride). */
static void decode_all(const struct sa_answer *a)
{
    struct sa_node_record n;
    struct sa_link_record l;
    struct sa_lft_record t;
    struct sa_switch_info_record s;
    struct sa_port_info_record p;

    for (size_t i = 0; i < a->count; i++) {
        const uint8_t *rec = sa_answer_record(a, i);

        sa_node_record_decode(rec, a->stride, &n);
        sa_link_record_decode(rec, a->stride, &l);
        sa_lft_record_decode(rec, a->stride, &t);
        sa_switch_info_record_decode(rec, a->stride, &s);
        sa_port_info_record_decode(rec, a->stride, &p);
    }
}

/* The route check of a fabric; aborts when its counts do not add up. */
static void check(struct rc_fabric *f, bool all)
{
    struct rc_options o = {.all_routes = all, .max_unrouted = 16};
    struct rc_result r;

    if (rc_check(f, &o, &r))
        return;
    if (r.routed > r.pairs || r.ca_routed > r.ca_pairs ||
        r.nunrouted != (r.pairs - r.routed) + (r.ca_pairs - r.ca_routed) || r.nunrouted_kept > 16 ||
        (r.cycle && r.cycle_len == 0))
        abort();
    /* every LID of every range walked: from each other switch, or each switch */
    if (r.switch_lids < r.switches || r.ca_lids < r.endpoints || r.max_lmc > RC_LMC_MAX ||
        r.pairs != r.switch_lids * (r.switches - 1) ||
        (all && r.ca_pairs != r.ca_lids * r.switches))
        abort();
    rc_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t attrs[] = {IB_SA_ATTR_NODERECORD, IB_SA_ATTR_PORTINFORECORD,
                                     IB_SA_ATTR_LINKRECORD, IB_SA_ATTR_LFTRECORD};
    struct sa_answer a;
    struct rc_fabric *f;
    uint8_t *copy;
    const char *why;

    if (sa_answer_parse(data, size, &a, &why) == 0)
        decode_all(&a);
    if (size < SA_HEADER_LEN || size > (1u << 20))
        return 0;
    copy = malloc(size);
    f = rc_fabric_new();
    if (!copy || !f)
        goto out;
    memcpy(copy, data, size);
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        copy[16] = (uint8_t)(attrs[i] >> 8);
        copy[17] = (uint8_t)attrs[i];
        if (sa_answer_parse(copy, size, &a, &why) == 0)
            rc_fabric_add_sa_answer(f, &a, &why);
    }
    check(f, false);
    check(f, true);
out:
    rc_fabric_free(f);
    free(copy);
    return 0;
}
