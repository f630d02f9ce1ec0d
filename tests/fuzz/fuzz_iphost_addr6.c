/*
 * fuzz_iphost_addr6.c - libFuzzer target: pz-iphost's reader of rtnetlink
 * address dumps (tools/iphost_addr6.c), fed one received buffer.
 *
 * Checked: no read outside the buffer (ASan), at most max addresses taken
 * and nothing written past them, the step one of the three.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "iphost_addr6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX 4

/* Parse the input (copied to an aligned buffer of its own size) as ifindex 2, seq 7. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ipoib6_addr out[FUZZ_MAX + 1];
    unsigned count = 0;
    void *buf = aligned_alloc(NLMSG_ALIGNTO, size ? (size + NLMSG_ALIGNTO - 1) & ~(size_t)3 : 4);
    enum iphost_addr6_step step;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(out, 0xa5, sizeof(out));
    step = iphost_addr6_parse(2, 7, buf, size, out, FUZZ_MAX, &count);
    if (step != IPHOST_ADDR6_MORE && step != IPHOST_ADDR6_DONE && step != IPHOST_ADDR6_ERROR)
        abort();
    if (count > FUZZ_MAX)
        abort();
    if (out[FUZZ_MAX].prefix_len != 0xa5) /* the slot past max is untouched */
        abort();
    free(buf);
    return 0;
}
