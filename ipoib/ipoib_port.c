/*
 * ipoib_port.c - the endpoint's view of a port (struct ipoib_port) read
 * from the attributes an SMA Get returns: PortInfo and the P_KeyTable.
 * Every field through libibmad.
 */
#include <infiniband/mad.h>

#include "ipoib.h"

#define PORT_STATE_ACTIVE 4
#define PKEY_BLOCK_ENTRIES 32

/* Where the partition pkey stands in one block of P_Keys (network order). */
enum ipoib_pkey_state ipoib_pkey_state_of(const uint8_t block[64], uint16_t pkey)
{
    enum ipoib_pkey_state st = IPOIB_PKEY_ABSENT;

    for (int i = 0; i < PKEY_BLOCK_ENTRIES; i++) {
        uint16_t v = be16_get(block + 2 * i);
        if ((v & 0x7fff) == 0 || (v & 0x7fff) != (pkey & 0x7fff))
            continue;
        if (v & 0x8000)
            return IPOIB_PKEY_FULL;
        st = IPOIB_PKEY_LIMITED;
    }
    return st;
}

/* Fill *out from PortInfo and the first P_Key block; reregister is left as it is. */
void ipoib_port_from_attrs(const uint8_t portinfo[64], const uint8_t pkeys[64], uint64_t port_guid,
                           uint16_t pkey, struct ipoib_port *out)
{
    void *pi = (void *)portinfo;

    out->active = mad_get_field(pi, 0, IB_PORT_STATE_F) == PORT_STATE_ACTIVE;
    out->lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F);
    out->sm_lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
    out->sm_sl = (uint8_t)mad_get_field(pi, 0, IB_PORT_SMSL_F);
    out->gid_prefix = mad_get_field64(pi, 0, IB_PORT_GID_PREFIX_F);
    out->port_guid = port_guid;
    out->pkey_state = ipoib_pkey_state_of(pkeys, pkey);
}
