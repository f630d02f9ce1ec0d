/*
 * smp_set.c - send one LID-routed Set(NodeDescription) SMP with a given
 * M_Key and print the NodeDescription of the answer.  For test_mkey.sh:
 * no infiniband-diags tool sends a Set without first a Get with the same
 * key (ibportstate reads before it writes), so under M_Key protection
 * level 2 a wrong key never gets as far as a Set with them.  Run it through
 * libumad2sim.so like the diags.
 *
 * usage: smp_set [-y M_KEY] [-t TIMEOUT_MS] LID DESCRIPTION
 * exit status: 0 answered, 1 no answer (timeout, error status), 2 usage
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

static int usage(void)
{
    fprintf(stderr, "usage: smp_set [-y M_KEY] [-t TIMEOUT_MS] LID DESCRIPTION\n");
    return 2;
}

int main(int argc, char **argv)
{
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
    uint8_t data[IB_SMP_DATA_SIZE] = {0};
    struct ibmad_port *port;
    ib_portid_t dest = {0};
    uint64_t mkey = 0;
    int timeout = 1000, opt, lid;
    char *end;

    while ((opt = getopt(argc, argv, "y:t:")) != -1) {
        switch (opt) {
        case 'y':
            mkey = strtoull(optarg, &end, 0);
            if (*end)
                return usage();
            break;
        case 't':
            timeout = atoi(optarg);
            break;
        default:
            return usage();
        }
    }
    if (argc - optind != 2)
        return usage();
    lid = (int)strtol(argv[optind], &end, 0);
    if (*end || lid <= 0 || lid >= 0xC000)
        return usage();
    memcpy(data, argv[optind + 1], strnlen(argv[optind + 1], IB_SMP_DATA_SIZE));

    port = mad_rpc_open_port(NULL, 0, classes, 2);
    if (!port) {
        fprintf(stderr, "smp_set: cannot open the local port\n");
        return 1;
    }
    smp_mkey_set(port, mkey);
    mad_rpc_set_timeout(port, timeout);
    mad_rpc_set_retries(port, 1);
    ib_portid_set(&dest, lid, 0, 0);
    if (!smp_set_via(data, &dest, IB_ATTR_NODE_DESC, 0, 0, port)) {
        fprintf(stderr, "smp_set: no answer from LID %d (M_Key 0x%016" PRIx64 ")\n", lid, mkey);
        mad_rpc_close_port(port);
        return 1;
    }
    printf("%.*s\n", IB_SMP_DATA_SIZE, (const char *)data);
    mad_rpc_close_port(port);
    return 0;
}
