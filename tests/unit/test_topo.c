/*
 * test_topo.c - the topology parser: ibsim net files, ibnetdiscover output,
 * ibsim's GUID scheme, and clear errors (file:line) on bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo.h"
#include "pzt_main.h"

/* ibsim's net-examples/net.2sw2path4hca, comments shortened. */
static const char net_2sw2path4hca[] = "# Net configuration file example\n"
                                       "#\n"
                                       "\n"
                                       "Switch\t8 \"Switch1\"\n"
                                       "[1]\t\"Hca1\"[1]\n"
                                       "[2]\t\"Hca3\"[1]\n"
                                       "[3]\t\"Switch2\"[3]\n"
                                       "[5]\t\"Switch2\"[5]\n"
                                       "\n"
                                       "Switch 8 \"Switch2\"\n"
                                       "[1]\t\"Hca2\"[1]\n"
                                       "[2]\t\"Hca4\"[1]\n"
                                       "[3]\t\"Switch1\"[3]\n"
                                       "[5]\t\"Switch1\"[5]\n"
                                       "\n"
                                       "Hca\t2 \"Hca1\"\n"
                                       "[1]\t\"Switch1\"[1]\n"
                                       "\n"
                                       "Hca\t2 \"Hca2\"\n"
                                       "[1]\t\"Switch2\"[1]\n"
                                       "\n"
                                       "Hca\t2 \"Hca3\"\n"
                                       "[1]\t\"Switch1\"[2]\n"
                                       "\n"
                                       "Hca \t2 \"Hca4\"\n"
                                       "[1]\t\"Switch2\"[2]\n";

/* What ibnetdiscover printed for that fabric under ibsim (shortened). */
static const char ibnetdiscover_out[] =
    "#\n"
    "# Topology file: generated on Sun Nov 22 03:17:53 2026\n"
    "#\n"
    "# Initiated from node 0000000000100003 port 0000000000100004\n"
    "\n"
    "vendid=0x0\n"
    "devid=0x0\n"
    "sysimgguid=0x200000\n"
    "switchguid=0x200000(200000)\n"
    "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0\n"
    "[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 1 4xSDR\n"
    "[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
    "\n"
    "vendid=0x0\n"
    "devid=0x0\n"
    "sysimgguid=0x200001\n"
    "switchguid=0x200001(200001)\n"
    "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" enhanced port 0 lid 3 lmc 0\n"
    "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
    "[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 2 4xSDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x1003\n"
    "sysimgguid=0x100000\n"
    "caguid=0x100000\n"
    "Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
    "[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 1 lmc 0 \"Switch1\" lid 2 4xSDR\n"
    "\n"
    "vendid=0x0\n"
    "devid=0x0\n"
    "sysimgguid=0x100003\n"
    "caguid=0x100003\n"
    "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
    "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n";

/* Parse text (named "t.net"); err gets the message on failure. */
static struct topo *parse(const char *text, char err[TOPO_ERR_MAX])
{
    return topo_parse(text, strlen(text), "t.net", err);
}

/* Parse text that must parse; fails the test with the parser's message if it does not. */
static struct topo *parse_ok(const char *text)
{
    char err[TOPO_ERR_MAX];
    struct topo *t = parse(text, err);

    if (!t)
        fail_msg("%s", err);
    return t;
}

/* The node called name; fails the test if there is none. */
static const struct topo_node *node(const struct topo *t, const char *name)
{
    long i = topo_find_node(t, name);

    assert_true(i >= 0);
    return &t->nodes[i];
}

/* Assert that (a, pa) and (b, pb) are cabled to each other. */
static void assert_link(const struct topo *t, const char *a, unsigned pa, const char *b,
                        unsigned pb)
{
    const struct topo_node *na = node(t, a), *nb = node(t, b);

    assert_true(na->ports[pa].connected);
    assert_string_equal(t->nodes[na->ports[pa].remote_node].name, b);
    assert_int_equal(na->ports[pa].remote_port, pb);
    assert_true(nb->ports[pb].connected);
    assert_string_equal(t->nodes[nb->ports[pb].remote_node].name, a);
    assert_int_equal(nb->ports[pb].remote_port, pa);
}

/*
 * Assert that parsing text fails with a message starting "t.net:line: " (line
 * 0: "t.net: ", an error of the whole file) and holding what.
 */
static void assert_parse_error(const char *text, unsigned line, const char *what)
{
    char err[TOPO_ERR_MAX], prefix[32];
    struct topo *t = parse(text, err);

    if (t)
        fail_msg("parsed although it should fail with \"%s\"", what);
    if (line)
        snprintf(prefix, sizeof(prefix), "t.net:%u: ", line);
    else
        snprintf(prefix, sizeof(prefix), "t.net: ");
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fail_msg("error \"%s\" is not \"%s...%s\"", err, prefix, what);
}

/* ibsim's example: counts, links, names as descriptions, GUIDs as ibsim assigns them. */
static void test_net_example(void **state)
{
    char err[TOPO_ERR_MAX];
    struct topo *t = parse(net_2sw2path4hca, err);

    assert_non_null(t);
    assert_int_equal(t->num_nodes, 6);
    assert_int_equal(topo_count(t, TOPO_SWITCH), 2);
    assert_int_equal(topo_count(t, TOPO_CA), 4);
    assert_int_equal(topo_num_links(t), 6);
    assert_link(t, "Switch1", 3, "Switch2", 3);
    assert_link(t, "Switch1", 5, "Switch2", 5);
    assert_link(t, "Hca4", 1, "Switch2", 2);
    assert_false(node(t, "Switch1")->ports[4].connected);
    assert_false(node(t, "Hca1")->ports[2].connected);
    /* ibsim: switches from 0x200000 one each, CAs from 0x100000 num_ports + 1 each. */
    assert_int_equal(node(t, "Switch1")->node_guid, 0x200000);
    assert_int_equal(node(t, "Switch2")->node_guid, 0x200001);
    assert_int_equal(node(t, "Hca1")->node_guid, 0x100000);
    assert_int_equal(node(t, "Hca2")->node_guid, 0x100003);
    assert_int_equal(node(t, "Hca3")->node_guid, 0x100006);
    assert_int_equal(node(t, "Hca4")->node_guid, 0x100009);
    assert_int_equal(topo_port_guid(node(t, "Hca2"), 1), 0x100004);
    assert_int_equal(topo_port_guid(node(t, "Switch2"), 5), 0x200001);
    assert_int_equal(node(t, "Hca3")->system_image_guid, 0x100006);
    assert_string_equal(node(t, "Hca3")->desc, "Hca3");
    assert_int_equal(node(t, "Switch1")->num_ports, 8);
    assert_int_equal(node(t, "Switch1")->line, 4);
    assert_int_equal(node(t, "Switch1")->ports[3].line, 7);
    assert_int_equal(t->nodes[0].type, TOPO_SWITCH);
    topo_free(t);
}

/* ibnetdiscover output: GUID lines, descriptions, port GUID groups, LIDs, port 0 kind. */
static void test_ibnetdiscover_format(void **state)
{
    struct topo *t = parse_ok(ibnetdiscover_out);
    const struct topo_node *sw1, *sw2, *h1, *h2;

    sw1 = node(t, "S-0000000000200000");
    sw2 = node(t, "S-0000000000200001");
    h1 = node(t, "H-0000000000100000");
    h2 = node(t, "H-0000000000100003");
    assert_int_equal(topo_num_links(t), 3);
    assert_link(t, "S-0000000000200000", 3, "S-0000000000200001", 3);
    assert_link(t, "H-0000000000100003", 1, "S-0000000000200001", 1);
    assert_string_equal(sw1->desc, "Switch1");
    assert_string_equal(h2->desc, "Hca2");
    assert_int_equal(sw2->node_guid, 0x200001);
    assert_int_equal(h2->node_guid, 0x100003);
    assert_int_equal(topo_port_guid(h1, 1), 0x100001);
    assert_int_equal(h1->system_image_guid, 0x100000);
    assert_true(h1->has_vendor_id);
    assert_int_equal(h1->vendor_id, 0x2c9);
    assert_int_equal(h1->device_id, 0x1003);
    assert_int_equal(sw1->enhanced_port0, -1);
    assert_int_equal(sw2->enhanced_port0, 1);
    assert_int_equal(sw1->lid, 2);
    assert_int_equal(sw2->lid, 3);
    assert_int_equal(h2->ports[1].lid, 4);
    assert_int_equal(h2->ports[1].lmc, 0);
    /* The description finds a node too (as SIM_HOST may name it). */
    assert_ptr_equal(node(t, "Hca2"), h2);
    assert_ptr_equal(node(t, "Switch2"), sw2);
    assert_int_equal(topo_find_node(t, "nobody"), -1);
    topo_free(t);
}

/*
 * ibnetdiscover's link annotations ("lid 3 4xQDR") set the port's width and
 * speed enables as ibsim reads them; they win over w=/s=/e= and width=/speed=.
 */
static void test_link_annotations(void **state)
{
    static const char text[] =
        "width=1\nspeed=1\nextspeed=3\n"
        "Switch 8 \"S-1\" # \"leaf-0\" base port 0 lid 1 lmc 0\n"
        "[1] \"H-1\"[1](101) # \"hca-0\" lid 3 4xQDR\n"
        "[2] \"H-2\"[1](201) # \"hca-1\" lid 4 4xFDR\n"
        "[3] \"H-3\"[1](301) w=1 s=1 # \"hca-2\" lid 5 12xEDR\n"
        "[4] \"H-4\"[1](401) # \"hca-3\" lid 6 1xSDR\n"
        "[5] \"H-5\"[1](501) # \"hca-4\" lid 7 8xDDR\n"
        "[6] \"H-6\"[1](601) # \"lid 9 4xNDR\" lid 8 2xHDR\n"
        "[7] \"H-7\"[1](701) # \"hca-6\" lid 9 3xXDR\n"
        "[8] \"H-8\"[1](801) # \"hca-7\" lid 10 4xFDR10\n"
        "Ca 1 \"H-1\" # \"hca-0\"\n[1](101) \"S-1\"[1] # lid 3 lmc 0 \"leaf-0\" lid 1 4xQDR\n"
        "Ca 1 \"H-2\"\n[1] \"S-1\"[2]\n"
        "Ca 1 \"H-3\"\n[1] \"S-1\"[3]\n"
        "Ca 1 \"H-4\"\n[1] \"S-1\"[4]\n"
        "Ca 1 \"H-5\"\n[1] \"S-1\"[5]\n"
        "Ca 1 \"H-6\"\n[1] \"S-1\"[6]\n"
        "Ca 1 \"H-7\"\n[1] \"S-1\"[7]\n"
        "Ca 1 \"H-8\"\n[1] \"S-1\"[8]\n";
    static const struct {
        unsigned port;
        uint8_t width, speed, speed_ext;
        bool speed_ext_set;
    } want[] = {
        {1, 0x03, 0x7, 0x0, true}, /* 4x: 1x|4x; QDR: SDR..QDR, no extended speed */
        {2, 0x03, 0x7, 0x1, true}, /* FDR */
        {3, 0x0B, 0x7, 0x3, true}, /* 12x: 1x|4x|12x; EDR: FDR|EDR (over w=1 s=1) */
        {4, 0x01, 0x1, 0x0, true}, /* 1xSDR */
        {5, 0x04, 0x3, 0x0, true}, /* 8x; DDR: SDR|DDR */
        {6, 0x10, 0x7, 0x7, true}, /* the "lid" after the last quote: 2xHDR */
        {7, 0x01, 0x1, 0x3, true}, /* 3x, XDR: unknown, the defaults stay */
        {8, 0x03, 0x7, 0x0, true}, /* FDR10: QDR enables (FDR10 is a vendor speed) */
    };
    struct topo *t = parse_ok(text);
    const struct topo_node *sw;

    sw = node(t, "S-1");
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct topo_port *p = &sw->ports[want[i].port];

        assert_int_equal(p->width, want[i].width);
        assert_int_equal(p->speed, want[i].speed);
        assert_int_equal(p->speed_ext, want[i].speed_ext);
        assert_int_equal(p->speed_ext_set, want[i].speed_ext_set);
    }
    assert_int_equal(node(t, "H-1")->ports[1].width, 0x03);
    assert_int_equal(node(t, "H-1")->ports[1].speed, 0x7);
    assert_int_equal(node(t, "H-1")->ports[1].lid, 3);
    assert_int_equal(node(t, "H-2")->ports[1].width, 1); /* no annotation: width=1 */
    topo_free(t);
}

/* "switchguid+N" is relative to the last absolute base; sysimgguid/vendid hold for one node. */
static void test_guid_settings(void **state)
{
    static const char text[] = "switchguid=0x1000\n"
                               "Switch 4 \"a\"\n"
                               "Switch 4 \"b\"\n"
                               "switchguid+0x10\n"
                               "sysimgguid=0x77\n"
                               "vendid=0x1234\n"
                               "devid=0x55\n"
                               "Switch 4 \"c\"\n"
                               "Switch 4 \"d\"\n"
                               "hcaguids=0x500\n"
                               "Ca 2 \"h1\"\n"
                               "Ca 1 \"h2\"\n";
    struct topo *t = parse_ok(text);

    assert_int_equal(node(t, "a")->node_guid, 0x1000);
    assert_int_equal(node(t, "b")->node_guid, 0x1001);
    assert_int_equal(node(t, "c")->node_guid, 0x1010);
    assert_int_equal(node(t, "c")->system_image_guid, 0x77);
    assert_true(node(t, "c")->has_vendor_id);
    assert_int_equal(node(t, "c")->vendor_id, 0x1234);
    assert_int_equal(node(t, "d")->node_guid, 0x1011);
    assert_int_equal(node(t, "d")->system_image_guid, 0x1011);
    assert_false(node(t, "d")->has_vendor_id);
    assert_true(node(t, "d")->has_device_id);
    assert_int_equal(node(t, "d")->device_id, 0x55);
    assert_int_equal(node(t, "h1")->node_guid, 0x500);
    assert_int_equal(node(t, "h2")->node_guid, 0x503);
    assert_int_equal(topo_num_links(t), 0);
    topo_free(t);
}

/* port0=WxSPEED: the management port's active mode for the switches that follow. */
static void test_port0_mode(void **state)
{
    static const char text[] = "Switch 4 \"a\"\n"
                               "port0=1xSDR\n"
                               "Switch 4 \"b\"\n"
                               "port0 = 12xQDR\n"
                               "Switch 4 \"c\"\n"
                               "Ca 1 \"h\"\n";
    struct topo *t = parse_ok(text);

    assert_int_equal(node(t, "a")->port0_width, 0);
    assert_int_equal(node(t, "a")->port0_speed, 0);
    assert_int_equal(node(t, "b")->port0_width, 1);
    assert_int_equal(node(t, "b")->port0_speed, 1);
    assert_int_equal(node(t, "c")->port0_width, 8);
    assert_int_equal(node(t, "c")->port0_speed, 4);
    topo_free(t);
    assert_parse_error("port0=3xSDR\nSwitch 4 \"a\"\n", 1, "1x, 4x, 8x or 12x");
    assert_parse_error("port0=1xFDR\nSwitch 4 \"a\"\n", 1, "SDR, DDR or QDR");
    assert_parse_error("port0=SDR\nSwitch 4 \"a\"\n", 1, "WxSPEED");
    assert_parse_error("port0 1xSDR\nSwitch 4 \"a\"\n", 1, "port0=WxSPEED");
}

/* Comments inside records, CRLF line ends, blanks, options, back-to-back records. */
static void test_layout_tolerance(void **state)
{
    static const char text[] = "  # leading comment\r\n"
                               "Switch 4 \"s\" # \"the switch\" enhanced port 0\r\n"
                               "# a comment inside the record\r\n"
                               "  [1] \"h\"[1]  w=2 s=5\r\n"
                               "[2] \"s\"[3]\r\n"
                               "[3] \"s\"[2]\r\n"
                               "Hca 1 \"h\"\r\n"
                               "[1] \"s\"\r\n";
    struct topo *t = parse_ok(text);
    const struct topo_node *s;

    s = node(t, "s");
    assert_string_equal(s->desc, "the switch");
    assert_int_equal(s->enhanced_port0, 1);
    assert_int_equal(s->ports[1].width, 2);
    assert_int_equal(s->ports[1].speed, 5);
    assert_link(t, "s", 1, "h", 1); /* remote port defaults to 1 */
    assert_link(t, "s", 2, "s", 3); /* a loopback cable between two ports */
    assert_int_equal(topo_num_links(t), 2);
    topo_free(t);
}

/* Unquoted descriptions end at the keywords ibsim knows. */
static void test_unquoted_description(void **state)
{
    static const char text[] = "Switch 2 \"s\" # big switch lid 7 lmc 1\n";
    struct topo *t = parse_ok(text);

    assert_string_equal(t->nodes[0].desc, "big switch");
    assert_int_equal(t->nodes[0].lid, 7);
    assert_int_equal(t->nodes[0].lmc, 1);
    topo_free(t);
}

/* Bad records: every error names the line. */
static void test_errors(void **state)
{
    assert_parse_error("", 0, "no Switch or Hca records");
    assert_parse_error("# only\n# comments\n", 0, "no Switch or Hca records");
    assert_parse_error("Switch 8 \"a\"\nfoo bar\n", 2, "unrecognised line");
    assert_parse_error("Switch 8 \"a\"\n[9] \"b\"[1]\n", 2, "ports 1 to 8, not 9");
    assert_parse_error("Switch 8 \"a\"\n[0] \"b\"[1]\n", 2, "not 0");
    assert_parse_error("Switch 8 \"a\"\n[x] \"b\"[1]\n", 2, "bad port number");
    assert_parse_error("Switch 8 \"a\"\n[1 \"b\"[1]\n", 2, "bad port number");
    assert_parse_error("Switch 8 \"a\n", 1, "no closing quote");
    assert_parse_error("Switch \"a\"\n", 1, "number of ports");
    assert_parse_error("Switch 0 \"a\"\n", 1, "number of ports");
    assert_parse_error("Hca 255 \"a\"\n", 1, "number of ports");
    assert_parse_error("Switch 8 \"\"\n", 1, "empty node name");
    assert_parse_error("Switch 8 a\n", 1, "quoted node name");
    assert_parse_error("Switch 8 \"a\"\n[1] b[1]\n", 2, "quoted remote node name");
    assert_parse_error("Switch 8 \"a\"\n[1] \"b\"[0]\n", 2, "bad remote port");
    assert_parse_error("Switch 8 \"a\"\n[1] \"b\"[1] q=3\n", 2, "unexpected");
    assert_parse_error("Switch 8 \"a\"\n[1] \"b\"[1] w=99\n", 2, "bad value for port option w");
    assert_parse_error("Switch 8 \"a\"\n[1] \"b\"[1]\n[1] \"c\"[1]\n", 3,
                       "already described at line 2");
    assert_parse_error("[1] \"b\"[1]\n", 1, "outside a node record");
    assert_parse_error("Switch 8 \"a\"\n\n[1] \"b\"[1]\n", 3, "outside a node record");
    assert_parse_error("Switch 8 \"a\"\n[1] \"nobody\"[1]\n", 2, "unknown node \"nobody\"");
    assert_parse_error("Switch 8 \"a\"\n[1] \"h\"[2]\nHca 1 \"h\"\n[1] \"a\"[1]\n", 2,
                       "\"h\" has no port 2");
    assert_parse_error("Switch 8 \"a\"\n[1] \"h\"[1]\nHca 1 \"h\"\n", 2,
                       "but \"h\" has no line for port 1");
    assert_parse_error("Switch 8 \"a\"\n[1] \"h\"[1]\n[2] \"h\"[2]\nHca 2 \"h\"\n[1] \"a\"[2]\n"
                       "[2] \"a\"[1]\n",
                       2, "but line 5 cables that port to \"a\"[2]");
    assert_parse_error("Switch 8 \"a\"\n[1] \"a\"[1]\n", 2, "cabled to itself");
    assert_parse_error("Switch 8 \"a\"\nSwitch 8 \"a\"\n", 2, "same name");
    assert_parse_error("caguid=0x10\nHca 1 \"x\"\ncaguid=0x10\nHca 1 \"y\"\n", 4, "same GUID");
    assert_parse_error("switchguid 5\n", 1, "'=' or '+'");
    /* No node or port may have GUID 0. */
    assert_parse_error("switchguid=0x0\nSwitch 8 \"a\"\n", 1, "GUID 0 is not a valid GUID");
    assert_parse_error("caguid=0\n", 1, "GUID 0 is not a valid GUID");
    assert_parse_error("hcaguids=0x0\n", 1, "GUID 0 is not a valid GUID");
    assert_parse_error("switchguid=0x10\nswitchguid+0xfffffffffffffff0\n", 2,
                       "GUID 0 is not a valid GUID");
    assert_parse_error("sysimgguid=0\n", 1, "sysimgguid 0 is not a valid GUID");
    assert_parse_error("caguid=0xfffffffffffffffe\nHca 2 \"h\"\n", 2, "would get GUID 0");
    assert_parse_error("vendid=0x1000000\n", 1, "bad value for vendid");
    assert_parse_error("width=0\n", 1, "width must be");
    assert_parse_error("include \"x\"\n", 1, "not supported");
    assert_parse_error("Rt 2 \"r\"\n", 1, "not supported");
    assert_parse_error("Switch 2 \"s\" # \"d\" lid 70000\n", 1, "\"lid\" needs a number");
    assert_parse_error("Hca 1 \"h\"\n[1] \"s\"[1] # lid 1 lmc 9\n", 2, "\"lmc\" needs a number");
}

/* A NUL byte (a binary file) is an error, not a silent truncation. */
static void test_binary_input(void **state)
{
    static const char text[] = "Switch 8 \"a\"\n\0garbage\n";
    char err[TOPO_ERR_MAX];

    assert_null(topo_parse(text, sizeof(text) - 1, "t.net", err));
    assert_non_null(strstr(err, "t.net:2: NUL byte"));
}

/* A file that does not exist. */
static void test_missing_file(void **state)
{
    char err[TOPO_ERR_MAX];

    assert_null(topo_load("/nonexistent/dir/t.net", err));
    assert_non_null(strstr(err, "/nonexistent/dir/t.net: No such file"));
}

/* A small deterministic generator for the garbage test. */
static uint32_t next_random(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Random bytes and random mutations of valid files never crash the parser. */
static void test_garbage(void **state)
{
    static const char alphabet[] = "SwitchHcaguid=+[]()\"#0123456789xab \t\n\r@lidmcw";
    uint32_t seed = 12345;
    char buf[600], err[TOPO_ERR_MAX];

    for (int round = 0; round < 4000; round++) {
        size_t len;

        if (round % 2) {
            len = next_random(&seed) % sizeof(buf);
            for (size_t i = 0; i < len; i++)
                buf[i] = round % 4 == 1 ? (char)next_random(&seed)
                                        : alphabet[next_random(&seed) % (sizeof(alphabet) - 1)];
        } else {
            const char *base = round % 4 ? ibnetdiscover_out : net_2sw2path4hca;

            len = strlen(base) < sizeof(buf) ? strlen(base) : sizeof(buf);
            memcpy(buf, base, len);
            for (int m = 0; m < 4; m++)
                buf[next_random(&seed) % len] =
                    alphabet[next_random(&seed) % (sizeof(alphabet) - 1)];
        }
        struct topo *t = topo_parse(buf, len, "g.net", err);
        if (t) {
            /* Whatever parsed is consistent: every cable is known at both ends. */
            for (size_t n = 0; n < t->num_nodes; n++)
                for (unsigned p = 1; p <= t->nodes[n].num_ports; p++)
                    if (t->nodes[n].ports[p].connected)
                        assert_true(t->nodes[n].ports[p].remote_node < t->num_nodes);
            topo_free(t);
        } else {
            assert_true(strlen(err) > 0);
        }
    }
}

PZT_MAIN(test_net_example, test_ibnetdiscover_format, test_link_annotations, test_guid_settings,
         test_port0_mode, test_layout_tolerance, test_unquoted_description, test_errors,
         test_binary_input, test_missing_file, test_garbage)
