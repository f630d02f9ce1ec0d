/*
 * smi_dr.h - directed-route SMP decisions, as small pure functions.
 *
 * Each function looks at (and updates the hop pointer and return path of)
 * one directed-route SMP and returns what the node must do with it.  They
 * know nothing of the SMA; the node is described by struct smi_node.
 */
#ifndef PZ_SMI_DR_H
#define PZ_SMI_DR_H

#include <stdbool.h>
#include <stdint.h>

#define SMI_MAX_HOPS 64
#define SMI_PERMISSIVE_LID 0xFFFF

/* What to do with a directed-route SMP. */
enum smi_action {
    SMI_DISCARD,    /* drop it */
    SMI_LOCAL,      /* give it to this node's SMA */
    SMI_TO_SM,      /* a returning SMP reached its originator on this node */
    SMI_FORWARD,    /* transmit out *port (directed-route hop) */
    SMI_LID_DRDLID, /* transmit LID-routed to DrDLID (trailing LID-routed leg) */
    SMI_LID_DRSLID, /* transmit LID-routed to DrSLID (back along the leading leg) */
    SMI_LID_SOURCE, /* transmit LID-routed to the request's LRH SLID (trailing leg back) */
};

/* The node an SMP is at. */
struct smi_node {
    unsigned num_ports; /* physical ports */
    bool is_switch;
};

/* Name of an action, for logs and test messages. */
const char *smi_action_name(enum smi_action action);

/*
 * A directed-route SMP was received on in_port (D bit clear: outgoing).
 * Updates HopPointer and ReturnPath; on SMI_FORWARD sets *port.
 */
enum smi_action smi_dr_outgoing(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                                unsigned *port);

/* A directed-route SMP with the D bit set (returning) was received. */
enum smi_action smi_dr_returning(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                                 unsigned *port);

/* Dispatch on the D bit to smi_dr_outgoing() or smi_dr_returning(). */
enum smi_action smi_dr_receive(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                               unsigned *port);

/*
 * Route the response this node's SMA built from a request that reached it
 * (HopPointer == HopCount + 1).  Sets the D bit, updates HopPointer; on
 * SMI_FORWARD sets *port.
 */
enum smi_action smi_dr_respond(uint8_t *smp, const struct smi_node *node, unsigned *port);

#endif /* PZ_SMI_DR_H */
