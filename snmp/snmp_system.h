/*
 * snmp_system.h - how the agent names the switch (snmp_system.c): the
 * sysObjectID its notifications carry, sysName's default, its sysORTable
 * rows.  Include after net-snmp's headers.
 */
#ifndef PZ_SNMP_SYSTEM_H
#define PZ_SNMP_SYSTEM_H

#include <stddef.h>

struct pz_snmp;

/*
 * After net-snmp read the configuration (init_snmp): note sysObjectID as
 * configured, make the NodeDescription sysName's default and add IF-MIB
 * and PORTZERO-MIB to sysORTable.  Returns 0 or -1 (out of memory).
 */
int snmp_system_init(struct pz_snmp *s);

/* Forget what snmp_system_init noted (before net-snmp shuts down). */
void snmp_system_free(struct pz_snmp *s);

/* sysObjectID.0 as served: *len sub-identifiers at the returned array. */
const oid *snmp_system_object_id(const struct pz_snmp *s, size_t *len);

#endif /* PZ_SNMP_SYSTEM_H */
