/*
 * fuzz_dftree_notice.c - libFuzzer target: hostile MADs to the repath
 * notice parser (dftree/dftree_notice.c), which pzfabric's hosts and
 * pz-dftree run on what they receive.  The input is a MAD of any length
 * (copied, so a read past it is ASan's); a notice that parses is built
 * again and answered, and must parse to the same fields.
 */
#include <stdlib.h>
#include <string.h>

#include "dftree_notice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *mad = malloc(size ? size : 1);
    uint8_t again[DFTREE_MAD_SIZE];
    struct dftree_notice n, m;
    const char *why = NULL;

    if (!mad)
        return 0;
    memcpy(mad, data, size);
    if (dftree_notice_parse(mad, size, &n, &why) == 0) {
        dftree_notice_build(again, &n);
        if (dftree_notice_parse(again, sizeof(again), &m, &why) || m.hot_lid != n.hot_lid ||
            m.trap != n.trap || m.issuer_lid != n.issuer_lid || m.vendor_id != n.vendor_id ||
            m.device_id != n.device_id || m.tid != n.tid)
            abort();
        dftree_notice_answer(again, DFTREE_STATUS_INVALID);
        if (dftree_notice_parse(again, sizeof(again), &m, &why) || m.method != 0x86 ||
            m.status != DFTREE_STATUS_INVALID)
            abort();
        (void)dftree_trap_name(n.trap);
    } else if (!why) {
        abort(); /* a refusal names its reason */
    }
    free(mad);
    return 0;
}
