/* mib_portzero.c - PORTZERO-MIB (placeholder, filled below). */
#include "snmp_internal.h"

int snmp_mib_portzero_register(struct pz_snmp *s)
{
    (void)s;
    return 0;
}
