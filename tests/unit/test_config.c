/*
 * test_config.c - portzero.conf parsing: values, comments, every error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pz_config.h"

/* Parse text into *cfg (starting from defaults); returns the parser's result. */
static int parse(struct pz_config *cfg, const char *text, char *err, size_t errlen)
{
    pz_config_defaults(cfg);
    return pz_config_parse(cfg, text, strlen(text), err, errlen);
}

/* Every key, comments, blank lines, spaces and hex. */
static void test_config_values(void **state)
{
    struct pz_config cfg;
    char err[160] = "";

    (void)state;
    assert_int_equal(parse(&cfg,
                           "# a switch\n\n  ca = mlx5_0  \nport=1\nnode_desc = leaf 3 # rack A\n"
                           "node_guid = 0x0002c903000000ab\nnum_ports = 48\nenhanced_port0 = yes\n"
                           "lft_cap = 0x3000\nmft_cap = 64\nlog_level = 3",
                           err, sizeof(err)),
                     0);
    assert_string_equal(cfg.ca, "mlx5_0");
    assert_int_equal(cfg.port, 1);
    assert_string_equal(cfg.node_desc, "leaf 3");
    assert_true(cfg.node_guid == 0x0002c903000000abull);
    assert_int_equal(cfg.num_ports, 48);
    assert_true(cfg.enhanced_port0);
    assert_int_equal(cfg.lft_cap, 0x3000);
    assert_int_equal(cfg.mft_cap, 64);
    assert_int_equal(cfg.log_level, 3);
}

/* Each bad input is rejected with the line and the reason, defaults kept. */
static void test_config_errors(void **state)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"num_ports = 0\n", "line 1: bad value '0' for 'num_ports'"},
        {"\nnum_ports = 255\n", "line 2: bad value '255' for 'num_ports'"},
        {"num_ports = -1\n", "line 1: bad value '-1' for 'num_ports'"},
        {"num_ports = 12abc\n", "line 1: bad value '12abc' for 'num_ports'"},
        {"lft_cap = 100\n", "line 1: bad value '100' for 'lft_cap'"},
        {"lft_cap = 0xC040\n", "line 1: bad value '0xC040' for 'lft_cap'"},
        {"mft_cap = 33\n", "line 1: bad value '33' for 'mft_cap'"},
        {"enhanced_port0 = maybe\n", "line 1: bad value 'maybe' for 'enhanced_port0'"},
        {"node_guid = 0\n", "line 1: bad value '0' for 'node_guid'"},
        {"node_guid = 0x10000000000000000\n",
         "line 1: bad value '0x10000000000000000' for 'node_guid'"},
        {"colour = blue\n", "line 1: unknown key 'colour'"},
        {"just words\n", "line 1: expected 'key = value'"},
        {"node_desc = " /* 65 bytes: one more than the attribute holds */
         "01234567890123456789012345678901234567890123456789012345678901234\n",
         "line 1: bad value"},
        {"log_level = 4\n", "line 1: bad value '4' for 'log_level'"},
        {"monitor = sometimes\n", "line 1: bad value 'sometimes' for 'monitor'"},
        {"monitor_interval_ms = 99\n", "line 1: bad value '99' for 'monitor_interval_ms'"},
        {"monitor_interval_ms = 0\n", "line 1: bad value '0' for 'monitor_interval_ms'"},
        {"monitor_threshold = 0\n", "line 1: bad value '0' for 'monitor_threshold'"},
        {"monitor_low_util = 0\n", "line 1: bad value '0' for 'monitor_low_util'"},
        {"monitor_low_util = 101\n", "line 1: bad value '101' for 'monitor_low_util'"},
        {"monitor_clear = 0\n", "line 1: bad value '0' for 'monitor_clear'"},
        {"monitor_clear = 150\n", "line 1: bad value '150' for 'monitor_clear'"},
        {"monitor_notices = 2\n", "line 1: bad value '2' for 'monitor_notices'"},
        {"monitor_ca_ports = 0\n", "line 1: bad value '0' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 255\n", "line 1: bad value '255' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 5-3\n", "line 1: bad value '5-3' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 1,\n", "line 1: bad value '1,' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 1-\n", "line 1: bad value '1-' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 1;2\n", "line 1: bad value '1;2' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = 1 2\n", "line 1: bad value '1 2' for 'monitor_ca_ports'"},
        {"monitor_ca_ports = -3\n", "line 1: bad value '-3' for 'monitor_ca_ports'"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct pz_config cfg;
        char err[160] = "";

        assert_int_equal(parse(&cfg, cases[i].text, err, sizeof(err)), -1);
        if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].msg);
        assert_int_equal(cfg.num_ports, 36); /* the default survives */
    }
}

/* node_desc takes the whole 64-byte NodeDescription (no terminator needed), not more. */
static void test_config_node_desc_64(void **state)
{
    static const char desc64[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    struct pz_config cfg;
    char err[160] = "", text[128];

    (void)state;
    assert_int_equal(strlen(desc64), 64);
    snprintf(text, sizeof(text), "node_desc = %s\n", desc64);
    assert_int_equal(parse(&cfg, text, err, sizeof(err)), 0);
    assert_string_equal(cfg.node_desc, desc64);
    pz_config_defaults(&cfg);
    assert_int_equal(pz_config_set(&cfg, "node_desc", desc64, err, sizeof(err)), 0);
    assert_string_equal(cfg.node_desc, desc64);
    snprintf(text, sizeof(text), "node_desc = %sX\n", desc64);
    assert_int_equal(parse(&cfg, text, err, sizeof(err)), -1);
    assert_string_equal(err, "line 1: bad value '"
                             "0123456789abcdef0123456789abcdef"
                             "0123456789abcdef0123456789abcdefX' for 'node_desc'");
}

/* A key set twice in a file is refused, naming both lines; the first value stays. */
static void test_config_duplicate_keys(void **state)
{
    struct pz_config cfg;
    char err[160] = "";

    (void)state;
    assert_int_equal(
        parse(&cfg, "num_ports = 8\n# comment\nlog_level = 1\nnum_ports = 12\n", err, sizeof(err)),
        -1);
    assert_string_equal(err, "line 4: duplicate key 'num_ports' (line 1 sets it too)");
    assert_int_equal(cfg.num_ports, 8);
    /* The same value twice, spaces around the key: still a duplicate. */
    assert_int_equal(
        parse(&cfg, "\nmonitor_ca_ports = 1-4\n  monitor_ca_ports=1-4  \n", err, sizeof(err)), -1);
    assert_string_equal(err, "line 3: duplicate key 'monitor_ca_ports' (line 2 sets it too)");
    /* A bad value set a second time is reported as the bad value it is. */
    assert_int_equal(parse(&cfg, "port = 1\nport = 999\n", err, sizeof(err)), -1);
    assert_string_equal(err, "line 2: bad value '999' for 'port'");
    assert_int_equal(cfg.port, 1);
    /* Every key once: accepted; -o after the file overrides it (pz_config_set). */
    assert_int_equal(parse(&cfg, "num_ports = 8\nnode_desc = a\n", err, sizeof(err)), 0);
    assert_int_equal(pz_config_set(&cfg, "num_ports", "16", err, sizeof(err)), 0);
    assert_int_equal(cfg.num_ports, 16);
    /* Separate files (parses) do not share keys. */
    assert_int_equal(
        pz_config_parse(&cfg, "num_ports = 4\n", strlen("num_ports = 4\n"), err, sizeof(err)), 0);
    assert_int_equal(cfg.num_ports, 4);
}

/* The monitor keys: defaults, every key, and the values they accept. */
static void test_config_monitor(void **state)
{
    struct pz_config cfg;
    char err[160] = "";

    (void)state;
    pz_config_defaults(&cfg);
    assert_true(cfg.monitor);
    assert_int_equal(cfg.monitor_interval_ms, 1000);
    assert_true(cfg.monitor_threshold == 100000);
    assert_int_equal(cfg.monitor_low_util, 50);
    assert_int_equal(cfg.monitor_clear, 50);
    assert_true(cfg.monitor_notices);
    assert_string_equal(cfg.monitor_ca_ports, "");
    assert_int_equal(parse(&cfg,
                           "monitor = off\nmonitor_interval_ms = 100\nmonitor_threshold = 0x10\n"
                           "monitor_low_util = 100\nmonitor_clear = 1\nmonitor_notices = no\n"
                           "monitor_ca_ports = 1-18,20\n",
                           err, sizeof(err)),
                     0);
    assert_false(cfg.monitor);
    assert_int_equal(cfg.monitor_interval_ms, 100);
    assert_true(cfg.monitor_threshold == 16);
    assert_int_equal(cfg.monitor_low_util, 100);
    assert_int_equal(cfg.monitor_clear, 1);
    assert_false(cfg.monitor_notices);
    assert_string_equal(cfg.monitor_ca_ports, "1-18,20");
    /* An empty list goes back to discovery. */
    assert_int_equal(pz_config_set(&cfg, "monitor_ca_ports", "", err, sizeof(err)), 0);
    assert_string_equal(cfg.monitor_ca_ports, "");
    /* A rejected value leaves the old one. */
    assert_int_equal(pz_config_set(&cfg, "monitor_interval_ms", "50", err, sizeof(err)), -1);
    assert_int_equal(cfg.monitor_interval_ms, 100);
}

/* The datagram keys: defaults, on/off/auto, the Q_Key range (high bit refused). */
static void test_config_dgram(void **state)
{
    struct pz_config cfg;
    char err[160] = "";

    (void)state;
    pz_config_defaults(&cfg);
    assert_int_equal(cfg.dgram, -1);
    assert_int_equal(cfg.dgram_qkey, 0x505a0001);
    assert_int_equal(parse(&cfg, "dgram = off\ndgram_qkey = 0x7fffffff\n", err, sizeof(err)), 0);
    assert_int_equal(cfg.dgram, 0);
    assert_int_equal(cfg.dgram_qkey, 0x7fffffff);
    assert_int_equal(pz_config_set(&cfg, "dgram", "on", err, sizeof(err)), 0);
    assert_int_equal(cfg.dgram, 1);
    assert_int_equal(pz_config_set(&cfg, "dgram", "auto", err, sizeof(err)), 0);
    assert_int_equal(cfg.dgram, -1);
    assert_int_equal(pz_config_set(&cfg, "dgram", "maybe", err, sizeof(err)), -1);
    assert_string_equal(err, "bad value 'maybe' for 'dgram'");
    assert_int_equal(cfg.dgram, -1);
    assert_int_equal(pz_config_set(&cfg, "dgram_qkey", "0x80000000", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "dgram_qkey", "-1", err, sizeof(err)), -1);
    assert_int_equal(cfg.dgram_qkey, 0x7fffffff);
    assert_int_equal(pz_config_set(&cfg, "dgram_qkey", "0", err, sizeof(err)), 0);
    assert_int_equal(cfg.dgram_qkey, 0);
}

/* Port lists: ranges, overlaps counted once, the bitmap, every bad form. */
static void test_config_port_list(void **state)
{
    uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8];

    (void)state;
    assert_int_equal(pz_config_port_list("1-18,20", mask), 19);
    assert_true(mask[0] == 0xFE && mask[1] == 0xFF && mask[2] == 0x17);
    for (unsigned i = 3; i < sizeof(mask); i++)
        assert_int_equal(mask[i], 0);
    assert_int_equal(pz_config_port_list("254", mask), 1);
    assert_true(mask[31] == 0x40);
    assert_int_equal(pz_config_port_list("3,3,1-4", mask), 4);
    assert_int_equal(pz_config_port_list("7-7", mask), 1);
    assert_int_equal(pz_config_port_list("", mask), -1);
    assert_int_equal(pz_config_port_list(",1", mask), -1);
    assert_int_equal(pz_config_port_list("1,,2", mask), -1);
    assert_int_equal(pz_config_port_list("0-3", mask), -1);
    assert_int_equal(pz_config_port_list("1-255", mask), -1);
    assert_int_equal(pz_config_port_list("99999999999999999999", mask), -1);
    assert_int_equal(pz_config_port_list("1-2-3", mask), -1);
    assert_int_equal(pz_config_port_list("0x10", mask), -1);
}

/* A NUL byte or an over-long line is an error, not a truncation. */
static void test_config_binary(void **state)
{
    struct pz_config cfg;
    char err[160] = "", big[1024];

    (void)state;
    pz_config_defaults(&cfg);
    assert_int_equal(pz_config_parse(&cfg, "port = 1\0x", 10, err, sizeof(err)), -1);
    assert_string_equal(err, "line 1: NUL byte");
    memset(big, 'a', sizeof(big));
    assert_int_equal(pz_config_parse(&cfg, big, sizeof(big), err, sizeof(err)), -1);
    assert_string_equal(err, "line 1: line too long");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_values),       cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_config_binary),       cmocka_unit_test(test_config_monitor),
        cmocka_unit_test(test_config_port_list),    cmocka_unit_test(test_config_dgram),
        cmocka_unit_test(test_config_node_desc_64), cmocka_unit_test(test_config_duplicate_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
