/*
 * fuzz_ipoib_nd.c - libFuzzer target: the IPv6 neighbour discovery parser
 * of the IPoIB layer (ipoib/ipoib_nd.c) fed whole IPv6 packets.
 *
 * Checked: a packet the parser accepts is one ipoib_nd_is_nd() claims, of
 * type RS, RA, NS or NA, with at most IPOIB_ND_PREFIX_MAX prefixes; built
 * again from what was read it parses to the same message (so nothing read
 * from a hostile packet can make the builder write a message the parser
 * refuses); every refusal has a name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipoib_nd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Build m again and parse the result; abort on any difference. */
static void check_rebuild(const struct ipoib_nd *m)
{
    uint8_t buf[IPOIB_IP6_HDR_LEN + 1024];
    struct ipoib_nd again;
    size_t len = ipoib_nd_build(m, buf, sizeof(buf));

    if (len == 0 || !ipoib_nd_is_nd(buf, len))
        abort();
    if (ipoib_nd_parse(buf, len, &again) != IPOIB_ND_OK)
        abort();
    if (memcmp(&again, m, sizeof(again)) != 0)
        abort();
}

/* Parse the input as one IPv6 packet and check what came out. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ipoib_nd m;
    enum ipoib_nd_result r = ipoib_nd_parse(data, size, &m);

    if (r >= IPOIB_ND_RESULT_COUNT || strcmp(ipoib_nd_result_name(r), "?") == 0)
        abort();
    if (r != IPOIB_ND_OK)
        return 0;
    if (!ipoib_nd_is_nd(data, size))
        abort();
    if (m.type < IPOIB_ND_RS || m.type > IPOIB_ND_NA || m.n_prefix > IPOIB_ND_PREFIX_MAX)
        abort();
    check_rebuild(&m);
    return 0;
}
