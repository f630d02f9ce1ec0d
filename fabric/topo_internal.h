/*
 * topo_internal.h - what the topology parser and the topology model share.
 */
#ifndef PZ_TOPO_INTERNAL_H
#define PZ_TOPO_INTERNAL_H

#include "topo.h"

/* A port line as read, before the remote node name is looked up. */
struct topo_cable {
    uint32_t node;
    uint8_t port;
    uint8_t remote_port;
    unsigned line;
    char remote[TOPO_NAME_MAX + 1];
};

/* Append a node with num_ports ports to t; returns it, or NULL on OOM. */
struct topo_node *topo_add_node(struct topo *t, enum topo_node_type type, unsigned num_ports);

/*
 * Look up the remote node of every cable, check that both ends agree and
 * that names and GUIDs are unique, and fill in the ports.  Returns 0, or -1
 * with a message ("file:line: ...") in err.
 */
int topo_connect(struct topo *t, const struct topo_cable *cables, size_t num_cables,
                 const char *file, char err[TOPO_ERR_MAX]);

/*
 * Apply the link annotation of a port line's comment ("... lid 3 4xQDR",
 * topo_link.c) to port's width and speed enables; returns whether it set
 * anything.
 */
bool topo_link_annotation(const char *comment, struct topo_port *port);

#endif /* PZ_TOPO_INTERNAL_H */
