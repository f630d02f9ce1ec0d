/*
 * fuzz_config.c - libFuzzer target: portzero.conf parser on arbitrary text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pz_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pz_config cfg;
    char err[160];

    pz_config_defaults(&cfg);
    if (pz_config_parse(&cfg, (const char *)data, size, err, sizeof(err)) == 0) {
        /* A successful parse always leaves a valid configuration. */
        if (cfg.num_ports < 1 || cfg.num_ports > 254 || cfg.lft_cap % 64 || cfg.log_level > 3 ||
            memchr(cfg.node_desc, '\0', sizeof(cfg.node_desc)) == NULL)
            abort();
    } else if (memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0') {
        abort(); /* every failure explains itself */
    }
    return 0;
}
