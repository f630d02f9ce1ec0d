/*
 * fuzz_cli.c - libFuzzer target: the CLI's parser and commands on random
 * command lines (cli_run, as the monitor user or admin) and tab completion
 * (cli_complete) at every cursor position, on a board_mem switch with its
 * SMA and PMA and no IP plane, monitor or SNMP agent.  A command that starts
 * a job (none should without an IP plane) has it freed at once.
 *
 * Input: byte 0 bit 0 = read-only user; the rest is one command line (cut at
 * 600 bytes so lines longer than the CLI's 511 are tried too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_mem.h"
#include "cli.h"
#include "pma.h"
#include "sma.h"

/* Output sink: count the bytes (and touch them, for the sanitizers). */
static void fuzz_sink(void *arg, const char *text, size_t len)
{
    size_t *count = arg;

    for (size_t i = 0; i < len; i++)
        *count += text[i] != 0;
}

/* The switch every input runs on (made once: the CLI only reads it, or resets views). */
struct fuzz_switch {
    struct board_identity id;
    struct board_mem *bm;
    struct sma *sma;
    struct pma *pma;
};

/* The switch, created on first use. */
static struct fuzz_switch *fuzz_switch(void)
{
    static struct fuzz_switch sw;

    if (!sw.bm) {
        board_mem_default_switch_identity(&sw.id, 0x2000, 8);
        sw.bm = board_mem_create(&sw.id);
        sw.sma = sw.bm ? sma_create(board_mem_board(sw.bm)) : NULL;
        sw.pma = sw.bm ? pma_create(board_mem_board(sw.bm)) : NULL;
        if (!sw.sma || !sw.pma)
            abort();
    }
    return &sw;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_switch *sw = fuzz_switch();
    struct cli_env env = {.board = board_mem_board(sw->bm), .sma = sw->sma, .pma = sw->pma};
    size_t count = 0, len = size > 600 ? 600 : size;
    struct cli_out out = {fuzz_sink, &count};
    struct cli_job *job = NULL;
    const char *cands[32];
    char line[601];
    bool read_only;

    if (!size)
        return 0;
    read_only = data[0] & 1;
    memcpy(line, data + 1, len - 1);
    line[len - 1] = '\0';
    if (cli_run(&env, line, read_only, &out, &job) == CLI_RUNNING)
        cli_job_free(job);
    for (size_t cursor = 0; cursor <= strlen(line); cursor++) {
        size_t n = cli_complete(line, cursor, read_only, cands, 32);

        if (n > 32)
            abort();
        for (size_t i = 0; i < n; i++)
            if (!cands[i] || !*cands[i])
                abort();
    }
    return 0;
}
