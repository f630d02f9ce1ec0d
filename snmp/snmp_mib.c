/*
 * snmp_mib.c - what the MIB files share: scalar group and iterated table
 * registration, the iterator of rows 1..n (snmp_mib.h).
 */
#include <stdint.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "snmp_mib.h"

int snmp_mib_register_table(struct pz_snmp *s, const struct snmp_mib_table *t)
{
    netsnmp_handler_registration *reg;
    netsnmp_table_registration_info *ti;
    netsnmp_iterator_info *ii;

    reg = netsnmp_create_handler_registration(t->name, t->handler, t->root, t->root_len, t->modes);
    ti = SNMP_MALLOC_TYPEDEF(netsnmp_table_registration_info);
    ii = SNMP_MALLOC_TYPEDEF(netsnmp_iterator_info);
    if (!reg || !ti || !ii)
        return -1;
    reg->my_reg_void = s;
    netsnmp_table_helper_add_indexes(ti, t->index, 0);
    ti->min_column = t->min_col;
    ti->max_column = t->max_col;
    ii->get_first_data_point = t->first;
    ii->get_next_data_point = t->next;
    if (t->sorted)
        ii->flags = NETSNMP_ITERATOR_FLAG_SORTED;
    ii->table_reginfo = ti;
    ii->myvoid = s;
    return netsnmp_register_table_iterator2(reg, ii) == MIB_REGISTERED_OK ? 0 : -1;
}

int snmp_mib_register_scalars(struct pz_snmp *s, const char *name, const oid *root, size_t len,
                              Netsnmp_Node_Handler *fn, int modes, unsigned last)
{
    netsnmp_handler_registration *reg =
        netsnmp_create_handler_registration(name, fn, root, len, modes);

    if (!reg)
        return -1;
    reg->my_reg_void = s;
    return netsnmp_register_scalar_group(reg, 1, last) == MIB_REGISTERED_OK ? 0 : -1;
}

netsnmp_variable_list *snmp_mib_row_next(void **loop, void **data, netsnmp_variable_list *index,
                                         long n)
{
    long row = (long)(uintptr_t)*loop + 1;

    if (row > n)
        return NULL;
    *loop = (void *)(uintptr_t)row;
    *data = *loop;
    snmp_set_var_typed_value(index, ASN_INTEGER, &row, sizeof(row));
    return index;
}
