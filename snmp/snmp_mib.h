/*
 * snmp_mib.h - what the MIB files share: registering a scalar group and a
 * table read through net-snmp's iterator helper, and the iterator of rows
 * numbered 1..n.  Include after net-snmp's headers.
 */
#ifndef PZ_SNMP_MIB_H
#define PZ_SNMP_MIB_H

#include <stdbool.h>
#include <stddef.h>

struct pz_snmp;

/* A table read through net-snmp's iterator helper, with one index. */
struct snmp_mib_table {
    const char *name;
    const oid *root;
    size_t root_len;
    Netsnmp_Node_Handler *handler;
    int modes;        /* HANDLER_CAN_RONLY or HANDLER_CAN_RWRITE */
    u_char index;     /* the index's type: ASN_INTEGER, ASN_UNSIGNED */
    bool sorted;      /* rows come in index order: a GETNEXT stops at the row after the asked one */
    unsigned min_col; /* the columns handled */
    unsigned max_col;
    Netsnmp_First_Data_Point *first;
    Netsnmp_Next_Data_Point *next;
};

/* Register table t, s the handler's and the iterator's context; returns 0 or -1. */
int snmp_mib_register_table(struct pz_snmp *s, const struct snmp_mib_table *t);

/*
 * Register the scalar group root.1 .. root.last answered by fn (modes:
 * HANDLER_CAN_RONLY or HANDLER_CAN_RWRITE), s the handler's context;
 * returns 0 or -1.
 */
int snmp_mib_register_scalars(struct pz_snmp *s, const char *name, const oid *root, size_t len,
                              Netsnmp_Node_Handler *fn, int modes, unsigned last);

/*
 * Iterator step over rows 1..n with an INTEGER index, whose loop and data
 * contexts are the row number: sets index to the row after *loop (NULL:
 * before the first).  Returns index, or NULL after the last row.
 */
netsnmp_variable_list *snmp_mib_row_next(void **loop, void **data, netsnmp_variable_list *index,
                                         long n);

#endif
