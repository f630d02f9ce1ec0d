/*
 * topo.h - fabric topologies read from ibsim net files and ibnetdiscover
 * output (the two formats overlap; ibsim's net-examples use both).
 *
 * A topology is a list of nodes (switches and CAs), each with its ports and
 * what every port is cabled to.  Node and port GUIDs are assigned the way
 * ibsim assigns them, so the same file gives the same GUIDs in ibsim and in
 * pzfabric:
 *   - switches count up from 0x200000, CAs from 0x100000, one GUID per
 *     switch, num_ports + 1 GUIDs per CA (port p has node GUID + p);
 *   - "switchguid=X" / "caguid=X" (also "hcaguids=X") set the next GUID of
 *     that kind, "switchguid+X" adds X to the last absolute base;
 *   - "sysimgguid=X" and "vendid=X" apply to the next node only, "devid=X"
 *     to every following node.
 * Node names ("S-0008f104...", "Hca1") are names only, as in ibsim.
 */
#ifndef PZ_TOPO_H
#define PZ_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_NAME_MAX 64 /* longest node name, without the NUL */
#define TOPO_DESC_MAX 64 /* NodeDescription bytes */
#define TOPO_MAX_PORTS 254
#define TOPO_SWITCH_GUID_BASE 0x200000u
#define TOPO_CA_GUID_BASE 0x100000u

/* Kind of node; the values are NodeInfo.NodeType. */
enum topo_node_type {
    TOPO_CA = 1,
    TOPO_SWITCH = 2,
};

/* One port of a node and its cable. */
struct topo_port {
    bool connected;
    uint32_t remote_node; /* index into topo.nodes */
    uint8_t remote_port;
    unsigned line;      /* line of the port's record, 0 if none */
    uint8_t width;      /* LinkWidthEnabled bits (w=, width=, annotation), 0 = default */
    uint8_t speed;      /* LinkSpeedEnabled bits (s=, speed=, annotation), 0 = default */
    uint8_t speed_ext;  /* LinkSpeedExtEnabled bits (e=, extspeed=, annotation) */
    bool speed_ext_set; /* speed_ext was given (0 then means none), else the default */
    uint16_t lid;       /* "# lid N lmc M" of a CA port line, 0 = none */
    uint8_t lmc;
};

/* One node. */
struct topo_node {
    enum topo_node_type type;
    char name[TOPO_NAME_MAX + 1]; /* the quoted node id of the header line */
    char desc[TOPO_DESC_MAX + 1]; /* NodeDescription: "# desc", else the name */
    unsigned num_ports;
    uint64_t node_guid;
    uint64_t system_image_guid;
    uint32_t vendor_id; /* valid if has_vendor_id */
    uint16_t device_id; /* valid if has_device_id */
    bool has_vendor_id;
    bool has_device_id;
    int enhanced_port0;  /* 1 "enhanced port 0", -1 "base port 0", 0 not said */
    uint8_t port0_width; /* switch port 0's LinkWidthActive (port0=), 0 = default */
    uint8_t port0_speed; /* switch port 0's LinkSpeedActive (port0=), 0 = default */
    uint16_t lid;        /* "lid N" of a switch header, 0 = none */
    uint8_t lmc;
    unsigned line;           /* line of the header */
    struct topo_port *ports; /* [0..num_ports]; [0] unused for CAs */
};

/* A parsed topology. */
struct topo {
    struct topo_node *nodes;
    size_t num_nodes;
    size_t cap_nodes;
};

/* Room for an error message: "FILE:LINE: what is wrong". */
#define TOPO_ERR_MAX 512

/*
 * Parse the topology file at path.  Returns a new topology, or NULL with a
 * message naming the file and line in err.
 */
struct topo *topo_load(const char *path, char err[TOPO_ERR_MAX]);

/*
 * Parse a topology held in memory (len bytes; need not be NUL terminated).
 * name is used in error messages.  Returns NULL with a message in err.
 */
struct topo *topo_parse(const char *text, size_t len, const char *name, char err[TOPO_ERR_MAX]);

/* Free a topology (NULL is fine). */
void topo_free(struct topo *t);

/* Index of the node named name (or, failing that, described so); -1 if none. */
long topo_find_node(const struct topo *t, const char *name);

/* Number of links (each cable counted once). */
size_t topo_num_links(const struct topo *t);

/* Number of nodes of one type. */
size_t topo_count(const struct topo *t, enum topo_node_type type);

/* GUID of port p of node n (switch: the node GUID for every port). */
uint64_t topo_port_guid(const struct topo_node *n, unsigned port);

#endif /* PZ_TOPO_H */
