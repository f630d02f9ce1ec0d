/*
 * test_config.c - portzero.conf parsing: values, comments, every error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pz_config.h"
#include "pzt_main.h"

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

/*
 * The monitor_* settings of cfg: monitor, interval_ms, threshold, low_util,
 * clear, notices and ca_ports, in that order.
 */
static void check_monitor(const struct pz_config *cfg, bool monitor, unsigned interval_ms,
                          uint64_t threshold, unsigned low_util, unsigned clear, bool notices,
                          const char *ca_ports)
{
    assert_int_equal(cfg->monitor, monitor);
    assert_int_equal(cfg->monitor_interval_ms, interval_ms);
    assert_true(cfg->monitor_threshold == threshold);
    assert_int_equal(cfg->monitor_low_util, low_util);
    assert_int_equal(cfg->monitor_clear, clear);
    assert_int_equal(cfg->monitor_notices, notices);
    assert_string_equal(cfg->monitor_ca_ports, ca_ports);
}

/* The monitor keys: defaults, every key, and the values they accept. */
static void test_config_monitor(void **state)
{
    struct pz_config cfg;
    char err[160] = "";

    pz_config_defaults(&cfg);
    check_monitor(&cfg, true, 1000, 100000, 50, 50, true, "");
    assert_int_equal(parse(&cfg,
                           "monitor = off\nmonitor_interval_ms = 100\nmonitor_threshold = 0x10\n"
                           "monitor_low_util = 100\nmonitor_clear = 1\nmonitor_notices = no\n"
                           "monitor_ca_ports = 1-18,20\n",
                           err, sizeof(err)),
                     0);
    check_monitor(&cfg, false, 100, 16, 100, 1, false, "1-18,20");
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

    pz_config_defaults(&cfg);
    assert_int_equal(pz_config_parse(&cfg, "port = 1\0x", 10, err, sizeof(err)), -1);
    assert_string_equal(err, "line 1: NUL byte");
    memset(big, 'a', sizeof(big));
    assert_int_equal(pz_config_parse(&cfg, big, sizeof(big), err, sizeof(err)), -1);
    assert_string_equal(err, "line 1: line too long");
}

/* Print to a memory buffer with print(f) (or pz_config_print(cfg, f) when cfg); returns it. */
static char *print_to_string(const struct pz_config *cfg, bool keys)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    if (keys)
        pz_config_print_keys(f);
    else
        pz_config_print(cfg, f);
    assert_int_equal(fclose(f), 0);
    assert_non_null(buf);
    return buf;
}

/* Whether text has a line starting with prefix. */
static bool has_line(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);

    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, n))
            return true;
    return false;
}

/* Every table key appears in --help's key list (with its syntax and default) and, in order, in
 * --check-config's printout, which parses back to the same configuration. */
static void test_config_table_prints(void **state)
{
    size_t count;
    const struct pz_config_key *keys = pz_config_keys(&count);
    struct pz_config cfg, back;
    char err[160] = "", line[256], syntax[64];
    char *help, *conf;
    const char *p;

    assert_true(count >= 21);
    assert_int_equal(parse(&cfg,
                           "num_ports = 18\nmonitor = off\ndgram = on\nboard = sim\n"
                           "monitor_ca_ports = 1-4,9\nnode_desc = spine 1\n",
                           err, sizeof(err)),
                     0);
    help = print_to_string(NULL, true);
    conf = print_to_string(&cfg, false);
    p = conf;
    for (size_t i = 0; i < count; i++) {
        assert_ptr_equal(pz_config_key_find(keys[i].name), &keys[i]);
        pz_config_key_syntax(&keys[i], syntax, sizeof(syntax));
        snprintf(line, sizeof(line), "  %s = %s (default: ", keys[i].name, syntax);
        if (!has_line(help, line))
            fail_msg("--help lacks '%s'", line);
        snprintf(line, sizeof(line), "%s = ", keys[i].name);
        if (strncmp(p, line, strlen(line)))
            fail_msg("--check-config line %zu: '%.40s', want '%s'", i, p, line);
        p = strchr(p, '\n') + 1;
    }
    assert_string_equal(p, "");
    assert_true(has_line(conf, "num_ports = 18\n"));
    assert_true(has_line(conf, "monitor = off\n"));
    assert_true(has_line(conf, "dgram = on\n"));
    assert_true(has_line(conf, "board = sim\n"));
    assert_true(has_line(conf, "enhanced_port0 = no\n"));
    assert_true(has_line(conf, "node_guid = 0x0002c90300000001\n"));
    assert_true(has_line(help, "  num_ports = 1..254 (default: 36)\n"));
    assert_true(has_line(help, "  lft_cap = 64..49152, step 64 (default: 49152)\n"));
    assert_true(has_line(help, "  dgram = auto|off|on (default: auto)\n"));
    assert_true(has_line(help, "  monitor = on|off (default: on)\n"));
    assert_int_equal(parse(&back, conf, err, sizeof(err)), 0);
    assert_memory_equal(&back, &cfg, sizeof(cfg));
    assert_null(pz_config_key_find("colour"));
    free(help);
    free(conf);
}

/* Every number key's range and step come from its table entry: the ends are accepted, one past
 * them refused with the key named; every choice word is accepted. */
static void test_config_table_ranges(void **state)
{
    size_t count;
    const struct pz_config_key *keys = pz_config_keys(&count);

    for (size_t i = 0; i < count; i++) {
        const struct pz_config_key *k = &keys[i];
        struct pz_config cfg, def;
        char err[160] = "", v[32], want[96];

        pz_config_defaults(&def);
        /* The field's C type fits the key's type. */
        if (k->type == PZ_CONFIG_STRING || k->type == PZ_CONFIG_PORTS || k->type == PZ_CONFIG_PATH)
            assert_int_equal(k->storage, PZ_CONFIG_AS_CHARS);
        else if (k->type == PZ_CONFIG_IPV4_PREFIX || k->type == PZ_CONFIG_IPV4)
            assert_int_equal(k->storage, PZ_CONFIG_AS_IPV4);
        else if (k->type == PZ_CONFIG_IPV6_PREFIX || k->type == PZ_CONFIG_IPV6)
            assert_int_equal(k->storage, PZ_CONFIG_AS_IPV6);
        else
            assert_true(k->storage <= PZ_CONFIG_AS_ULLONG);
        assert_non_null(k->help);
        if (k->type == PZ_CONFIG_CHOICE) {
            for (const struct pz_config_choice *c = k->choices; c->name; c++)
                assert_int_equal(pz_config_set(&cfg, k->name, c->name, err, sizeof(err)), 0);
        }
        if (k->type != PZ_CONFIG_UINT && k->type != PZ_CONFIG_HEX)
            continue;
        pz_config_defaults(&cfg);
        snprintf(v, sizeof(v), "%llu", (unsigned long long)k->min);
        assert_int_equal(pz_config_set(&cfg, k->name, v, err, sizeof(err)), 0);
        snprintf(v, sizeof(v), "0x%llx", (unsigned long long)k->max);
        assert_int_equal(pz_config_set(&cfg, k->name, v, err, sizeof(err)), 0);
        if (k->min > 0) {
            pz_config_defaults(&cfg);
            snprintf(v, sizeof(v), "%llu", (unsigned long long)k->min - 1);
            assert_int_equal(pz_config_set(&cfg, k->name, v, err, sizeof(err)), -1);
            snprintf(want, sizeof(want), "bad value '%s' for '%s'", v, k->name);
            assert_string_equal(err, want);
            assert_memory_equal(&cfg, &def, sizeof(cfg));
        }
        if (k->max < UINT64_MAX) {
            snprintf(v, sizeof(v), "%llu", (unsigned long long)k->max + 1);
            assert_int_equal(pz_config_set(&cfg, k->name, v, err, sizeof(err)), -1);
        }
        if (k->step > 1) {
            snprintf(v, sizeof(v), "%llu", (unsigned long long)k->min + 1);
            assert_int_equal(pz_config_set(&cfg, k->name, v, err, sizeof(err)), -1);
        }
    }
}

/* portzerod's IP-plane keys: an address with prefix, a gateway without, the P_Key, off. */
static void test_config_ip_plane_keys(void **state)
{
    struct pz_config cfg;
    char err[160], out[64];
    const struct pz_config_key *gw = pz_config_key_find("ip_gateway");

    pz_config_defaults(&cfg);
    assert_true(cfg.ip);
    assert_int_equal(cfg.ip_address.addr, 0);
    assert_int_equal(cfg.ipoib_pkey, 0xFFFF);
    assert_int_equal(pz_config_set(&cfg, "ip_address", "10.1.2.3/16", err, sizeof(err)), 0);
    assert_int_equal(cfg.ip_address.addr, 0x0A010203);
    assert_int_equal(cfg.ip_address.prefix_len, 16);
    assert_int_equal(pz_config_set(&cfg, "ip_gateway", "10.1.0.254", err, sizeof(err)), 0);
    assert_int_equal(cfg.ip_gateway.addr, 0x0A0100FE);
    assert_non_null(gw);
    pz_config_key_format(gw, &cfg, out, sizeof(out));
    assert_string_equal(out, "10.1.0.254");
    assert_int_equal(pz_config_set(&cfg, "ip_gateway", "10.1.0.254/24", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip_gateway", "10.1.0.256", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip_gateway", "10.1.0", err, sizeof(err)), -1);
    assert_int_equal(cfg.ip_gateway.addr, 0x0A0100FE); /* unchanged by the refusals */
    assert_int_equal(pz_config_set(&cfg, "ipoib_pkey", "0x8001", err, sizeof(err)), 0);
    assert_int_equal(pz_config_set(&cfg, "ipoib_pkey", "0", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip", "off", err, sizeof(err)), 0);
    assert_false(cfg.ip);
    assert_int_equal(pz_config_set(&cfg, "ctl_socket", "relative/path", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ctl_socket", "/run/pz/ctl", err, sizeof(err)), 0);
}

/* The IPv6 keys: on by default, no address; an address with prefix, a gateway without; refusals. */
static void test_config_ip6_keys(void **state)
{
    static const uint8_t want[16] = {0xfd, 0, 0, 0, 0, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    struct pz_config cfg;
    char err[160], out[64];
    const struct pz_config_key *addr = pz_config_key_find("ip6_address");
    const struct pz_config_key *gw = pz_config_key_find("ip6_gateway");

    pz_config_defaults(&cfg);
    assert_true(cfg.ip6);
    assert_int_equal(cfg.ip6_address.prefix_len, 0);
    assert_int_equal(pz_config_set(&cfg, "ip6", "off", err, sizeof(err)), 0);
    assert_false(cfg.ip6);
    assert_non_null(addr);
    assert_non_null(gw);
    pz_config_key_format(addr, &cfg, out, sizeof(out));
    assert_string_equal(out, "");
    assert_int_equal(pz_config_set(&cfg, "ip6", "on", err, sizeof(err)), 0);
    assert_true(cfg.ip6);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "fd00:0:79::5/64", err, sizeof(err)), 0);
    assert_memory_equal(cfg.ip6_address.addr, want, 16);
    assert_int_equal(cfg.ip6_address.prefix_len, 64);
    pz_config_key_format(addr, &cfg, out, sizeof(out));
    assert_string_equal(out, "fd00:0:79::5/64");
    assert_int_equal(pz_config_set(&cfg, "ip6_gateway", "FE80::1", err, sizeof(err)), 0);
    pz_config_key_format(gw, &cfg, out, sizeof(out));
    assert_string_equal(out, "fe80::1");
    /* Refused, the field unchanged: no prefix, a prefix on the gateway, 129, multicast, ::. */
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "fd00::1", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_gateway", "fe80::1/64", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "fd00::1/129", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "fd00::1/0", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "ff02::1/64", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "::/64", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "fd00::g/64", err, sizeof(err)), -1);
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "10.0.0.1/24", err, sizeof(err)), -1);
    assert_memory_equal(cfg.ip6_address.addr, want, 16);
    /* Empty clears it. */
    assert_int_equal(pz_config_set(&cfg, "ip6_address", "", err, sizeof(err)), 0);
    assert_int_equal(cfg.ip6_address.prefix_len, 0);
}

/* A struct of the kinds of key the IP plane needs, for a table of its own. */
struct ip_conf {
    struct pz_config_ipv4 address;
    char state_dir[32];
    unsigned pkey;
    bool ssh;
};

/* Keys for struct ip_conf: an address with prefix, a path, a hex number, a boolean. */
static const struct pz_config_key ip_keys[] = {
    {.name = "ip_address",
     .type = PZ_CONFIG_IPV4_PREFIX,
     PZ_CONFIG_FIELD(struct ip_conf, address),
     .help = "address"},
    {.name = "state_dir",
     .type = PZ_CONFIG_PATH,
     PZ_CONFIG_FIELD(struct ip_conf, state_dir),
     .help = "dir"},
    {.name = "ipoib_pkey",
     .type = PZ_CONFIG_HEX,
     PZ_CONFIG_FIELD(struct ip_conf, pkey),
     .min = 1,
     .max = 0xFFFF,
     .width = 4,
     .help = "P_Key"},
    {.name = "ssh",
     .type = PZ_CONFIG_CHOICE,
     PZ_CONFIG_FIELD(struct ip_conf, ssh),
     .choices = pz_config_on_off,
     .help = "ssh"},
};

/* The table can say what the IP plane's keys will need: IPv4 with prefix, path, hex. */
static void test_config_table_types(void **state)
{
    static const char *const bad[][2] = {
        {"ip_address", "10.0.0.256/24"},
        {"ip_address", "10.0.0.1"},
        {"ip_address", "10.0.0/8"},
        {"ip_address", "10.0.0.1/33"},
        {"ip_address", "1.2.3.4/"},
        {"ip_address", "1.2.3.4/8x"},
        {"ip_address", "1..2.3/8"},
        {"ip_address", "0001.2.3.4/8"},
        {"state_dir", "relative/dir"},
        {"state_dir", "/a/path/that/does/not/fit/in/32/bytes"},
        {"ipoib_pkey", "0"},
        {"ipoib_pkey", "0x10000"},
        {"ssh", "maybe"},
    };
    struct ip_conf c, before;
    char buf[64];

    memset(&c, 0, sizeof(c));
    assert_int_equal(pz_config_key_set(&ip_keys[0], &c, "10.1.2.3/24"), 0);
    assert_int_equal(c.address.addr, 0x0A010203);
    assert_int_equal(c.address.prefix_len, 24);
    pz_config_key_format(&ip_keys[0], &c, buf, sizeof(buf));
    assert_string_equal(buf, "10.1.2.3/24");
    assert_int_equal(pz_config_key_set(&ip_keys[1], &c, "/var/lib/portzero"), 0);
    pz_config_key_format(&ip_keys[1], &c, buf, sizeof(buf));
    assert_string_equal(buf, "/var/lib/portzero");
    assert_int_equal(pz_config_key_set(&ip_keys[2], &c, "0xffff"), 0);
    assert_int_equal(c.pkey, 0xFFFF);
    pz_config_key_format(&ip_keys[2], &c, buf, sizeof(buf));
    assert_string_equal(buf, "0xffff");
    assert_int_equal(pz_config_key_set(&ip_keys[3], &c, "yes"), 0);
    assert_true(c.ssh);
    pz_config_key_format(&ip_keys[3], &c, buf, sizeof(buf));
    assert_string_equal(buf, "on");
    pz_config_key_syntax(&ip_keys[0], buf, sizeof(buf));
    assert_string_equal(buf, "A.B.C.D/N");
    pz_config_key_syntax(&ip_keys[2], buf, sizeof(buf));
    assert_string_equal(buf, "0x1..0xffff");
    before = c;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const struct pz_config_key *k = NULL;

        for (size_t j = 0; j < sizeof(ip_keys) / sizeof(ip_keys[0]); j++)
            k = strcmp(ip_keys[j].name, bad[i][0]) ? k : &ip_keys[j];
        assert_non_null(k);
        if (pz_config_key_set(k, &c, bad[i][1]) != -1)
            fail_msg("%s = %s accepted", bad[i][0], bad[i][1]);
        assert_memory_equal(&c, &before, sizeof(c));
    }
    /* Empty: no address, no path. */
    assert_int_equal(pz_config_key_set(&ip_keys[0], &c, ""), 0);
    assert_int_equal(c.address.addr, 0);
    pz_config_key_format(&ip_keys[0], &c, buf, sizeof(buf));
    assert_string_equal(buf, "");
    assert_int_equal(pz_config_key_set(&ip_keys[1], &c, ""), 0);
    assert_string_equal(c.state_dir, "");
}

PZT_MAIN(test_config_values, test_config_errors, test_config_binary, test_config_monitor,
         test_config_port_list, test_config_dgram, test_config_node_desc_64,
         test_config_duplicate_keys, test_config_table_prints, test_config_table_ranges,
         test_config_table_types, test_config_ip_plane_keys, test_config_ip6_keys)
