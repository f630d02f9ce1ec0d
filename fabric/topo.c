/*
 * topo.c - the topology model: nodes, cables, lookups and the checks that
 * make a list of port lines into a consistent fabric.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pzf_array.h"
#include "topo_internal.h"

struct topo_node *topo_add_node(struct topo *t, enum topo_node_type type, unsigned num_ports)
{
    struct topo_node *n;

    if (t->num_nodes == t->cap_nodes) {
        struct topo_node *nodes = pzf_array_grow(t->nodes, &t->cap_nodes, sizeof(*nodes), 16);

        if (!nodes)
            return NULL;
        t->nodes = nodes;
    }
    n = &t->nodes[t->num_nodes];
    memset(n, 0, sizeof(*n));
    n->ports = calloc(num_ports + 1, sizeof(*n->ports));
    if (!n->ports)
        return NULL;
    n->type = type;
    n->num_ports = num_ports;
    t->num_nodes++;
    return n;
}

void topo_free(struct topo *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->num_nodes; i++)
        free(t->nodes[i].ports);
    free(t->nodes);
    free(t);
}

/* A node as the sorted indices see it. */
struct topo_key {
    const char *name;
    uint64_t guid;
    uint32_t node;
};

/* qsort/bsearch order by name. */
static int topo_cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct topo_key *)a)->name, ((const struct topo_key *)b)->name);
}

/* qsort order by node GUID. */
static int topo_cmp_guid(const void *a, const void *b)
{
    uint64_t ga = ((const struct topo_key *)a)->guid;
    uint64_t gb = ((const struct topo_key *)b)->guid;

    return ga < gb ? -1 : ga > gb;
}

/* Keys of all nodes sorted by cmp; returns NULL on OOM. */
static struct topo_key *topo_sorted(const struct topo *t, int (*cmp)(const void *, const void *))
{
    struct topo_key *keys = malloc((t->num_nodes ? t->num_nodes : 1) * sizeof(*keys));

    if (!keys)
        return NULL;
    for (size_t i = 0; i < t->num_nodes; i++) {
        keys[i].name = t->nodes[i].name;
        keys[i].guid = t->nodes[i].node_guid;
        keys[i].node = (uint32_t)i;
    }
    qsort(keys, t->num_nodes, sizeof(*keys), cmp);
    return keys;
}

/* Index of the node named name in the name-sorted keys, or -1. */
static long topo_lookup(const struct topo *t, const struct topo_key *by_name, const char *name)
{
    struct topo_key key = {.name = name};
    const struct topo_key *k = bsearch(&key, by_name, t->num_nodes, sizeof(key), topo_cmp_name);

    return k ? (long)k->node : -1;
}

/* Report two nodes that share a name or GUID; returns -1. */
static int topo_duplicate(const struct topo *t, uint32_t a, uint32_t b, const char *what,
                          const char *file, char err[TOPO_ERR_MAX])
{
    const struct topo_node *first = &t->nodes[a < b ? a : b];
    const struct topo_node *second = &t->nodes[a < b ? b : a];

    snprintf(err, TOPO_ERR_MAX, "%s:%u: node \"%s\" has the same %s as \"%s\" (line %u)", file,
             second->line, second->name, what, first->name, first->line);
    return -1;
}

/* Check that node names and node GUIDs are unique; returns 0 or -1. */
static int topo_check_unique(const struct topo *t, const struct topo_key *by_name, const char *file,
                             char err[TOPO_ERR_MAX])
{
    struct topo_key *by_guid;
    int rc = 0;

    for (size_t i = 1; i < t->num_nodes; i++)
        if (!strcmp(by_name[i - 1].name, by_name[i].name))
            return topo_duplicate(t, by_name[i - 1].node, by_name[i].node, "name", file, err);
    by_guid = topo_sorted(t, topo_cmp_guid);
    if (!by_guid) {
        snprintf(err, TOPO_ERR_MAX, "%s: out of memory", file);
        return -1;
    }
    for (size_t i = 1; i < t->num_nodes && rc == 0; i++)
        if (by_guid[i - 1].guid == by_guid[i].guid)
            rc = topo_duplicate(t, by_guid[i - 1].node, by_guid[i].node, "GUID", file, err);
    free(by_guid);
    return rc;
}

/* Attach one cable end to its remote node; returns 0 or -1 with a message. */
static int topo_attach(struct topo *t, const struct topo_key *by_name, const struct topo_cable *c,
                       const char *file, char err[TOPO_ERR_MAX])
{
    struct topo_node *n = &t->nodes[c->node];
    struct topo_port *p = &n->ports[c->port];
    long r = topo_lookup(t, by_name, c->remote);

    if (r < 0) {
        snprintf(err, TOPO_ERR_MAX, "%s:%u: port %u of \"%s\" is cabled to unknown node \"%s\"",
                 file, c->line, c->port, n->name, c->remote);
        return -1;
    }
    if (c->remote_port < 1 || c->remote_port > t->nodes[r].num_ports) {
        snprintf(err, TOPO_ERR_MAX, "%s:%u: node \"%s\" has no port %u (it has %u)", file, c->line,
                 c->remote, c->remote_port, t->nodes[r].num_ports);
        return -1;
    }
    if ((uint32_t)r == c->node && c->remote_port == c->port) {
        snprintf(err, TOPO_ERR_MAX, "%s:%u: port %u of \"%s\" is cabled to itself", file, c->line,
                 c->port, n->name);
        return -1;
    }
    p->connected = true;
    p->remote_node = (uint32_t)r;
    p->remote_port = c->remote_port;
    return 0;
}

/* Check that the remote end of a cable points back; returns 0 or -1. */
static int topo_check_peer(const struct topo *t, uint32_t node, unsigned port, const char *file,
                           char err[TOPO_ERR_MAX])
{
    const struct topo_node *n = &t->nodes[node];
    const struct topo_port *p = &n->ports[port];
    const struct topo_node *r = &t->nodes[p->remote_node];
    const struct topo_port *rp = &r->ports[p->remote_port];

    if (rp->connected && rp->remote_node == node && rp->remote_port == port)
        return 0;
    if (!rp->line)
        snprintf(err, TOPO_ERR_MAX,
                 "%s:%u: \"%s\"[%u] is cabled to \"%s\"[%u], but \"%s\" has no line for port %u",
                 file, p->line, n->name, port, r->name, p->remote_port, r->name, p->remote_port);
    else
        snprintf(err, TOPO_ERR_MAX,
                 "%s:%u: \"%s\"[%u] is cabled to \"%s\"[%u], but line %u cables that port to "
                 "\"%s\"[%u]",
                 file, p->line, n->name, port, r->name, p->remote_port, rp->line,
                 t->nodes[rp->remote_node].name, rp->remote_port);
    return -1;
}

int topo_connect(struct topo *t, const struct topo_cable *cables, size_t num_cables,
                 const char *file, char err[TOPO_ERR_MAX])
{
    struct topo_key *by_name = topo_sorted(t, topo_cmp_name);
    int rc = 0;

    if (!by_name) {
        snprintf(err, TOPO_ERR_MAX, "%s: out of memory", file);
        return -1;
    }
    rc = topo_check_unique(t, by_name, file, err);
    for (size_t i = 0; i < num_cables && rc == 0; i++)
        rc = topo_attach(t, by_name, &cables[i], file, err);
    for (size_t i = 0; i < t->num_nodes && rc == 0; i++)
        for (unsigned p = 1; p <= t->nodes[i].num_ports && rc == 0; p++)
            if (t->nodes[i].ports[p].connected)
                rc = topo_check_peer(t, (uint32_t)i, p, file, err);
    free(by_name);
    return rc;
}

long topo_find_node(const struct topo *t, const char *name)
{
    if (!t || !name)
        return -1;
    for (size_t i = 0; i < t->num_nodes; i++)
        if (!strcmp(t->nodes[i].name, name))
            return (long)i;
    for (size_t i = 0; i < t->num_nodes; i++)
        if (!strcmp(t->nodes[i].desc, name))
            return (long)i;
    return -1;
}

size_t topo_num_links(const struct topo *t)
{
    size_t ends = 0;

    for (size_t i = 0; i < t->num_nodes; i++)
        for (unsigned p = 1; p <= t->nodes[i].num_ports; p++)
            ends += t->nodes[i].ports[p].connected;
    return ends / 2;
}

size_t topo_count(const struct topo *t, enum topo_node_type type)
{
    size_t n = 0;

    for (size_t i = 0; i < t->num_nodes; i++)
        n += t->nodes[i].type == type;
    return n;
}

uint64_t topo_port_guid(const struct topo_node *n, unsigned port)
{
    return n->type == TOPO_SWITCH ? n->node_guid : n->node_guid + port;
}
