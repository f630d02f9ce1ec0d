/*
 * test_cli.c - the CLI's InfiniBand show commands on a board_mem switch:
 * show interfaces ib (PortInfo as smpquery prints it, the peer's LID),
 * show interfaces ib PORT counters, show congestion, show lft, their json
 * forms (exact text), clear counters, show log, show snmp without an agent,
 * help, and the JSON writer's string escaping (control characters, and
 * bytes that are not well-formed UTF-8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "cli.h"
#include "cli_json.h"
#include "pma.h"
#include "node.h"
#include "pz_log.h"
#include "pzt.h"
#include "pzt_main.h"

#define MS 1000000ull

/* A 4-port switch (the node/ object on a pzt board) and the captured output. */
struct fx {
    struct pzt_node *n;
    struct node *node;
    struct cli_env env;
    char text[16384];
    size_t len;
};

/* The capturing sink. */
static void fx_write(void *arg, const char *text, size_t len)
{
    struct fx *f = arg;

    assert_true(f->len + len < sizeof(f->text));
    memcpy(f->text + f->len, text, len);
    f->len += len;
    f->text[f->len] = '\0';
}

/* Route lid out of port in the LFT (a SubnSet of its block). */
static void fx_route(struct fx *f, unsigned lid, unsigned port)
{
    uint8_t d[64];

    assert_int_equal(pzt_get(f->n, IB_ATTR_LINEARFORWTBL, lid / 64, d), 0);
    d[lid % 64] = (uint8_t)port;
    assert_int_equal(pzt_set(f->n, IB_ATTR_LINEARFORWTBL, lid / 64, d, NULL), 0);
}

/*
 * Ports 1-3 cabled (Init, LinkUp), 4 not; port 1 faces a CA, the others
 * switches; LinearFDBTop 9 with LIDs 5 and 6 out of port 1, 7 out of 2.
 */
static struct fx *fx_new(void)
{
    struct fx *f = test_calloc(1, sizeof(*f));
    struct node_config cfg;
    char err[160] = "";
    uint8_t si[64];

    f->n = pzt_switch_new(4);
    assert_non_null(f->n);
    node_default_config(&cfg);
    cfg.monitor = true;
    f->node = node_create(f->n->board, &cfg, NULL, err, sizeof(err));
    assert_non_null(f->node);
    for (unsigned p = 1; p <= 4; p++)
        node_set_peer(f->node, p, p == 1 ? CONG_PEER_CA : CONG_PEER_SWITCH);
    sma_destroy(f->n->sma); /* the pzt helpers talk to the node's SMA */
    f->n->sma = node_sma(f->node);
    for (unsigned p = 1; p <= 3; p++)
        board_mem_set_connected(f->n->bm, p, true);
    pzt_assign_lid(f->n, 3, 1, 18);

    assert_int_equal(pzt_get(f->n, IB_ATTR_SWITCH_INFO, 0, si), 0);
    mad_set_field(si, 0, IB_SW_LINEAR_FDB_TOP_F, 9);
    assert_int_equal(pzt_set(f->n, IB_ATTR_SWITCH_INFO, 0, si, NULL), 0);
    fx_route(f, 3, 0);
    fx_route(f, 5, 1);
    fx_route(f, 6, 1);
    fx_route(f, 7, 2);

    f->env = (struct cli_env){.board = f->n->board,
                              .sma = f->n->sma,
                              .pma = node_pma(f->node),
                              .mon = node_cong(f->node),
                              .log_recent = pz_log_recent_cli};
    return f;
}

static void fx_free(struct fx *f)
{
    f->n->sma = NULL; /* the node's */
    node_destroy(f->node);
    pzt_node_free(f->n);
    test_free(f);
}

/* Run a command line (read_only as given); returns its status, output in f->text. */
static int fx_run(struct fx *f, const char *line, bool read_only)
{
    struct cli_out out = {fx_write, f};
    struct cli_job *job;
    int rc;

    f->len = 0;
    f->text[0] = '\0';
    rc = cli_run(&f->env, line, read_only, &out, &job);
    assert_null(job);
    return rc;
}

/* The line of f->text that starts with prefix, or NULL. */
static const char *fx_line(struct fx *f, const char *prefix)
{
    for (const char *l = f->text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, prefix, strlen(prefix)))
            return l;
    return NULL;
}

/* Assert that the line starting with prefix reads exactly line. */
static void fx_expect_line(struct fx *f, const char *prefix, const char *line)
{
    const char *l = fx_line(f, prefix);

    assert_non_null(l);
    assert_memory_equal(l, line, strlen(line));
    assert_true(l[strlen(line)] == '\n');
}

/* show interfaces ib: one aligned line per port, smpquery's names, the CA's LID. */
static void test_show_interfaces(void **state)
{
    struct fx *f = fx_new();

    assert_int_equal(fx_run(f, "show interfaces ib", true), CLI_OK);
    fx_expect_line(f, "Port",
                   "Port State        Phys state           Width Speed         "
                   "Peer LID MTU");
    fx_expect_line(f, "1 ",
                   "1    Initialize   LinkUp               4X    25.78125 Gbps "
                   "5        4096");
    fx_expect_line(f, "2 ",
                   "2    Initialize   LinkUp               4X    25.78125 Gbps          "
                   "4096");
    fx_expect_line(f, "4 ",
                   "4    Down         Polling              -     -                      "
                   "4096");
    assert_int_equal(fx_run(f, "sh int ib 2", true), CLI_OK);
    assert_null(fx_line(f, "1 "));
    assert_non_null(fx_line(f, "2    Initialize"));
    assert_int_equal(fx_run(f, "show interfaces ib 9", true), CLI_USAGE);
    assert_int_equal(fx_run(f, "show interfaces ib 1 bogus", true), CLI_USAGE);
    fx_free(f);
}

/* The width and MTU an SM programs show up as the SM set them. */
static void test_show_interfaces_after_set(void **state)
{
    struct fx *f = fx_new();
    uint8_t pi[64];

    assert_int_equal(pzt_get(f->n, IB_ATTR_PORT_INFO, 2, pi), 0);
    mad_set_field(pi, 0, IB_PORT_NEIGHBOR_MTU_F, 4);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 0);      /* no change */
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 3); /* Disabled */
    assert_int_equal(pzt_set(f->n, IB_ATTR_PORT_INFO, 2, pi, NULL), 0);
    pzt_poll_all(f->n, NULL);
    assert_int_equal(fx_run(f, "show interfaces ib 2", true), CLI_OK);
    assert_non_null(fx_line(f, "2    Down         Disabled"));
    assert_non_null(strstr(f->text, " 2048\n"));
    fx_free(f);
}

/* show interfaces ib json: one object, exact text. */
static void test_show_interfaces_json(void **state)
{
    struct fx *f = fx_new();

    assert_int_equal(fx_run(f, "show interfaces ib 1 json", true), CLI_OK);
    assert_string_equal(f->text, "{\"ports\":[{\"port\":1,\"state\":\"Initialize\","
                                 "\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":"
                                 "\"25.78125 Gbps\",\"peer_lid\":5,\"mtu\":4096}]}\n");
    assert_int_equal(fx_run(f, "show interfaces ib 3 json", true), CLI_OK);
    assert_non_null(strstr(f->text, "\"peer_lid\":null"));
    fx_free(f);
}

/* Counters: perfquery's names, the PMA's 64-bit values (beyond 32 bits). */
static void test_show_counters(void **state)
{
    struct fx *f = fx_new();
    struct board_port_counters *c = board_mem_counters(f->n->bm, 2);

    board_mem_counter_add(f->n->bm, &c->xmit_data, 5000000000ull);
    board_mem_counter_add(f->n->bm, &c->symbol_errors, 7);
    board_mem_counter_add(f->n->bm, &c->xmit_wait, 42);
    assert_int_equal(fx_run(f, "show interfaces ib 2 counters", true), CLI_OK);
    fx_expect_line(f, "PortXmitData", "PortXmitData                     5000000000");
    fx_expect_line(f, "SymbolErrorCounter", "SymbolErrorCounter               7");
    fx_expect_line(f, "PortXmitWait", "PortXmitWait                     42");
    fx_expect_line(f, "PortRcvData", "PortRcvData                      0");
    assert_non_null(fx_line(f, "PortMulticastRcvPkts"));
    assert_int_equal(fx_run(f, "show interfaces ib 2 counters json", true), CLI_OK);
    assert_non_null(strstr(f->text, "{\"port\":2,\"counters\":{\"SymbolErrorCounter\":7,"));
    assert_non_null(strstr(f->text, "\"PortXmitData\":5000000000,\"PortRcvData\":0,"));
    assert_memory_equal(f->text + f->len - 3, "}}\n", 3);
    fx_free(f);
}

/* show lft: programmed entries up to LinearFDBTop; one LID with its drop. */
static void test_show_lft(void **state)
{
    struct fx *f = fx_new();

    assert_int_equal(fx_run(f, "show lft", true), CLI_OK);
    assert_string_equal(f->text, "LinearFDBTop 9\nLID    Port\n3      0\n5      1\n6      1\n"
                                 "7      2\n");
    assert_int_equal(fx_run(f, "show lft 8", true), CLI_OK);
    assert_string_equal(f->text, "LinearFDBTop 9\nLID    Port\n8      drop\n");
    assert_int_equal(fx_run(f, "show lft json", true), CLI_OK);
    assert_string_equal(f->text, "{\"linear_fdb_top\":9,\"entries\":[{\"lid\":3,\"port\":0},"
                                 "{\"lid\":5,\"port\":1},{\"lid\":6,\"port\":1},"
                                 "{\"lid\":7,\"port\":2}]}\n");
    assert_int_equal(fx_run(f, "show lft 8 json", true), CLI_OK);
    assert_string_equal(f->text,
                        "{\"linear_fdb_top\":9,\"entries\":[{\"lid\":8,\"port\":null}]}\n");
    assert_int_equal(fx_run(f, "show lft x", true), CLI_USAGE);
    fx_free(f);
}

/* Sample the monitor after ms of board time. */
static void fx_sample(struct fx *f, uint64_t ms)
{
    struct mad_addr to;
    uint8_t out[256];

    board_mem_advance_ns(f->n->bm, ms * MS);
    while (node_poll(f->node, &to, out) == MAD_SEND)
        ; /* the SMA's traps: nobody listens */
}

/* show congestion: the hot-spot on the CA port, with its ticks per second. */
static void test_show_congestion(void **state)
{
    struct fx *f = fx_new();
    struct board_port_counters *c = board_mem_counters(f->n->bm, 1);

    fx_sample(f, 1000);
    board_mem_counter_add(f->n->bm, &c->xmit_wait, 300000);
    fx_sample(f, 1000);
    fx_sample(f, 0);
    board_mem_advance_ns(f->n->bm, 3000 * MS);
    assert_int_equal(fx_run(f, "show congestion", true), CLI_OK);
    assert_non_null(fx_line(f, "Port Class      Peer"));
    assert_non_null(fx_line(f, "1    hot-spot   ca               300000      0.0%"));
    assert_non_null(fx_line(f, "2    normal     switch"));
    assert_non_null(strstr(fx_line(f, "1 "), " 3s\n"));
    assert_int_equal(fx_run(f, "show congestion 1 json", true), CLI_OK);
    assert_non_null(strstr(f->text, "\"ports\":[{\"port\":1,\"class\":\"hot-spot\",\"peer\":"
                                    "\"ca\",\"valid\":true,\"congestion_ticks_per_s\":300000,"));
    assert_non_null(strstr(f->text, "\"since_s\":3,"));
    f->env.mon = NULL;
    assert_int_equal(fx_run(f, "show congestion json", true), CLI_OK);
    assert_string_equal(f->text, "{\"monitor\":\"off\"}\n");
    fx_free(f);
}

/* show version and show system as json; anything else after them is refused. */
static void test_show_system_json(void **state)
{
    struct fx *f = fx_new();

    assert_int_equal(fx_run(f, "show version json", true), CLI_OK);
    assert_memory_equal(f->text, "{\"name\":\"portzero\",\"version\":\"", 30);
    assert_int_equal(fx_run(f, "show system json", true), CLI_OK);
    assert_non_null(strstr(f->text, "\"ports\":4,\"lid\":3,\"master_sm_lid\":1,"));
    assert_int_equal(fx_run(f, "show system jsonx", true), CLI_USAGE);
    fx_free(f);
}

/* route check [all] [json] and show route check [json]: each word once, in that order
 * (the usage is checked before the agent's route check is looked for: none here). */
static void test_route_check_words(void **state)
{
    struct fx *f = fx_new();
    static const char *const bad[] = {
        "route check all all",  "route check json json",
        "route check json all", "route check all json json",
        "route check x",        "show route check json json",
        "show route check all", "show route check json json json",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(fx_run(f, bad[i], true), CLI_USAGE);
        assert_non_null(strstr(f->text, "% usage: "));
    }
    assert_int_equal(fx_run(f, "route check all json", true), CLI_FAILED);
    assert_int_equal(fx_run(f, "route check json", true), CLI_FAILED);
    assert_int_equal(fx_run(f, "show route check json", true), CLI_FAILED);
    fx_free(f);
}

/* The JSON writer escapes quotes, backslashes and control characters. */
/* clear counters: the views start again from 0 (what perfquery reads), the 64-bit
 * counters SNMP reads do not move; admin only; a bad port is a usage error. */
static void test_clear_counters(void **state)
{
    struct fx *f = fx_new();
    struct board_port_counters *c = board_mem_counters(f->n->bm, 2);
    struct pma_counters total;
    struct pma_stats st;

    board_mem_counter_add(f->n->bm, &c->xmit_data, 1000);
    board_mem_counter_add(f->n->bm, &c->symbol_errors, 3);
    assert_int_equal(fx_run(f, "clear counters 2", true), CLI_DENIED);
    assert_int_equal(fx_run(f, "clear counters 9", false), CLI_USAGE);
    assert_int_equal(fx_run(f, "clear counters 2", false), CLI_OK);
    assert_string_equal(f->text, "Counters cleared on port 2\n");
    board_mem_counter_add(f->n->bm, &c->xmit_data, 40);
    assert_int_equal(fx_run(f, "show interfaces ib 2 counters", true), CLI_OK);
    fx_expect_line(f, "PortXmitData", "PortXmitData                     40");
    fx_expect_line(f, "SymbolErrorCounter", "SymbolErrorCounter               0");
    assert_int_equal(pma_port_counters64(node_pma(f->node), 2, &total), 0);
    assert_int_equal(total.total.xmit_data, 1040);
    assert_int_equal(total.total.symbol_errors, 3);
    pma_get_stats(node_pma(f->node), &st);
    assert_int_equal(st.counter_resets, 1);
    assert_int_equal(fx_run(f, "clear counters", false), CLI_OK);
    assert_string_equal(f->text, "Counters cleared on every port\n");
    assert_int_equal(fx_run(f, "show interfaces ib 2 counters json", true), CLI_OK);
    assert_non_null(strstr(f->text, "\"PortXmitData\":0,"));
    fx_free(f);
}

/* show log: the ring's lines, oldest first, a count, json; help lists the new commands. */
static void test_show_log_and_help(void **state)
{
    struct fx *f = fx_new();

    pz_log(PZ_LOG_ERROR, "first \"quoted\" line");
    pz_log(PZ_LOG_ERROR, "second line");
    assert_int_equal(fx_run(f, "show log 2", true), CLI_OK);
    assert_non_null(strstr(f->text, " error first \"quoted\" line\n"));
    assert_non_null(strstr(f->text, " error second line\n"));
    assert_true(strstr(f->text, "first") < strstr(f->text, "second"));
    assert_int_equal(fx_run(f, "show log 1 json", true), CLI_OK);
    assert_non_null(strstr(f->text, "{\"log\":[{\"time\":\""));
    assert_non_null(strstr(f->text, "\"level\":\"error\",\"text\":\"second line\"}]}\n"));
    assert_null(strstr(f->text, "first"));
    assert_int_equal(fx_run(f, "show log 0", true), CLI_USAGE);
    assert_int_equal(fx_run(f, "show snmp", true), CLI_OK);
    assert_string_equal(f->text, "SNMP agent: off (no snmp_config)\n");
    assert_int_equal(fx_run(f, "show snmp json", true), CLI_OK);
    assert_string_equal(f->text, "{\"agent\":false}\n");
    assert_int_equal(fx_run(f, "help", true), CLI_OK);
    assert_non_null(strstr(f->text, "  show log "));
    assert_non_null(strstr(f->text, "  show snmp "));
    assert_null(strstr(f->text, "  clear counters ")); /* the monitor user's list */
    assert_int_equal(fx_run(f, "?", false), CLI_OK);
    assert_non_null(strstr(f->text, "  show ip            [json]"));
    assert_non_null(strstr(f->text, "  clear counters "));
    fx_free(f);
}

/*
 * An incomplete command ("show", "sh int") says so and lists how it goes
 * on, the user's commands only; help WORD... lists those commands alone.
 */
static void test_incomplete_and_help_words(void **state)
{
    struct fx *f = fx_new();

    (void)state;
    assert_int_equal(fx_run(f, "show", true), CLI_USAGE);
    assert_non_null(strstr(f->text, "% incomplete command: show; it goes on as one of:\n"));
    assert_non_null(strstr(f->text, "  show version "));
    assert_non_null(strstr(f->text, "  show route check "));
    assert_null(strstr(f->text, "  help "));
    assert_int_equal(fx_run(f, "sh int", true), CLI_USAGE);
    assert_non_null(strstr(f->text, "% incomplete command: sh int;"));
    assert_non_null(strstr(f->text, "  show interfaces ib "));
    assert_null(strstr(f->text, "  show version "));
    assert_int_equal(fx_run(f, "clear", true), CLI_USAGE); /* the monitor user has none */
    assert_non_null(strstr(f->text, "% unknown command: clear"));
    assert_int_equal(fx_run(f, "clear", false), CLI_USAGE);
    assert_non_null(strstr(f->text, "  clear counters "));
    assert_int_equal(fx_run(f, "bogus words here and more", true), CLI_USAGE);
    assert_non_null(strstr(f->text, "% unknown command: bogus"));
    assert_int_equal(fx_run(f, "help show snmp", true), CLI_OK);
    assert_non_null(strstr(f->text, "  show snmp "));
    assert_null(strstr(f->text, "  show ip "));
    assert_int_equal(fx_run(f, "help nothing", true), CLI_USAGE);
    assert_string_equal(f->text, "% no command begins with those words\n");
    fx_free(f);
}

/* Tab completion: next words by prefix, the user's commands only. */
static void test_complete(void **state)
{
    const char *c[32];
    size_t n;

    n = cli_complete("sh", 2, true, c, 32);
    assert_int_equal(n, 1);
    assert_string_equal(c[0], "show");
    n = cli_complete("show int", 8, true, c, 32);
    assert_int_equal(n, 1);
    assert_string_equal(c[0], "interfaces");
    n = cli_complete("show interfaces ", 16, true, c, 32);
    assert_int_equal(n, 1);
    assert_string_equal(c[0], "ib");
    n = cli_complete("c", 1, true, c, 32);
    assert_int_equal(n, 0); /* clear counters is not the monitor's */
    n = cli_complete("c", 1, false, c, 32);
    assert_int_equal(n, 1);
    assert_string_equal(c[0], "clear");
    n = cli_complete("show s", 6, true, c, 32);
    assert_int_equal(n, 2); /* system, snmp */
    n = cli_complete("", 0, false, c, 32);
    assert_true(n >= 5);
    n = cli_complete("show version ", 13, true, c, 32);
    assert_int_equal(n, 0);
}

static void test_json_escaping(void **state)
{
    struct fx *f = test_calloc(1, sizeof(*f));
    struct cli_out out = {fx_write, f};
    struct cli_json j;

    cli_json_begin(&j, &out);
    cli_json_str(&j, "a\"b", "x\\y\n\t\x01z");
    cli_json_fixed(&j, "u", 249, 1);
    cli_json_bool(&j, "t", true);
    cli_json_array(&j, "e");
    cli_json_close_array(&j);
    cli_json_end(&j);
    assert_string_equal(f->text,
                        "{\"a\\\"b\":\"x\\\\y\\n\\t\\u0001z\",\"u\":24.9,\"t\":true,\"e\":[]}\n");
    test_free(f);
}

/* One string through the JSON writer; returns the document written. */
static const char *json_of(struct fx *f, const char *val)
{
    struct cli_out out = {fx_write, f};
    struct cli_json j;

    f->len = 0;
    f->text[0] = '\0';
    cli_json_begin(&j, &out);
    cli_json_str(&j, "s", val);
    cli_json_end(&j);
    return f->text;
}

/*
 * Non-ASCII text: well-formed UTF-8 (2, 3 and 4 bytes, the edges of each
 * range) passes unchanged; any byte outside a well-formed sequence
 * (Latin-1 text, a stray continuation, a cut sequence, overlong forms,
 * surrogates, past U+10FFFF, 0xfe/0xff) is written as \u00XX.
 */
static void test_json_utf8(void **state)
{
    static const struct {
        const char *name, *in, *out;
    } cases[] = {
        {"2-byte", "caf\xc3\xa9", "caf\xc3\xa9"},
        {"3-byte", "\xe2\x82\xac 1", "\xe2\x82\xac 1"},
        {"4-byte", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},
        {"U+0800", "\xe0\xa0\x80", "\xe0\xa0\x80"},
        {"U+D7FF", "\xed\x9f\xbf", "\xed\x9f\xbf"},
        {"U+10FFFF", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},
        {"DEL", "a\x7f", "a\x7f"},
        {"latin-1",
         "Sw\xe9"
         "dish",
         "Sw\\u00e9dish"},
        {"stray continuation", "a\x80z", "a\\u0080z"},
        {"cut at end", "a\xc3", "a\\u00c3"},
        {"cut 3-byte", "\xe2\x82z", "\\u00e2\\u0082z"},
        {"overlong 2", "\xc0\xaf", "\\u00c0\\u00af"},
        {"overlong 3", "\xe0\x80\xaf", "\\u00e0\\u0080\\u00af"},
        {"overlong 4", "\xf0\x80\x80\xaf", "\\u00f0\\u0080\\u0080\\u00af"},
        {"surrogate", "\xed\xa0\x80", "\\u00ed\\u00a0\\u0080"},
        {"past U+10FFFF", "\xf4\x90\x80\x80", "\\u00f4\\u0090\\u0080\\u0080"},
        {"fe ff", "\xfe\xff", "\\u00fe\\u00ff"},
        {"valid after invalid", "\xff\xc3\xa9\"", "\\u00ff\xc3\xa9\\\""},
    };
    struct fx *f = test_calloc(1, sizeof(*f));
    char want[128];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(want, sizeof(want), "{\"s\":\"%s\"}\n", cases[i].out);
        if (strcmp(json_of(f, cases[i].in), want))
            fail_msg("case %s: got %s want %s", cases[i].name, f->text, want);
    }
    test_free(f);
}

PZT_MAIN(test_show_interfaces, test_show_interfaces_after_set, test_show_interfaces_json,
         test_show_counters, test_show_lft, test_show_congestion, test_show_system_json,
         test_clear_counters, test_show_log_and_help, test_incomplete_and_help_words, test_complete,
         test_json_escaping, test_json_utf8, test_route_check_words)
