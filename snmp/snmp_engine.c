/*
 * snmp_engine.c - the net-snmp agent's life: start-up with our
 * configuration and state directory only, the work loop the caller runs,
 * shut-down.
 *
 * Files net-snmp touches: the configuration file the caller names (read
 * as an snmpd.conf, "optional config"), and <state_dir>/portzero-snmp.conf,
 * its persistent file (engineID, engineBoots, users created over SNMP,
 * ifAlias values), rewritten through a temporary file in the same
 * directory.  The default search path (/etc/snmp, /usr/share/snmp, ~/.snmp)
 * is replaced by an empty one, SNMPCONFPATH and SNMP_PERSISTENT_FILE are
 * dropped from the environment (they would override both) and no MIB file
 * is loaded (MIBS empty: the agent serves numeric OIDs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "snmp_internal.h"
#include "snmp_port.h"
#include "snmp_system.h"

/*
 * MIB modules of libnetsnmpmibs the agent uses: SNMPv2-MIB system, snmp
 * group and sysORTable, the SNMP engine, USM, VACM, the notification
 * and target tables (trapsess, trap2sink), setSerialNo.  Declared here
 * because Debian's libsnmp-dev installs the modules without their headers.
 */
void init_system_mib(void);
void init_sysORTable(void);
void init_snmp_mib(void);
void init_vacm_vars(void);
void init_vacm_context(void);
void init_usmUser(void);
void init_usmStats(void);
void init_snmpEngine(void);
void init_snmpMPDStats(void);
void init_snmpNotifyTable(void);
void init_snmpNotifyFilterProfileTable(void);
void init_snmpNotifyFilterTable(void);
void init_snmpTargetAddrEntry(void);
void init_snmpTargetParamsEntry(void);
void init_target_counters(void);
void init_setSerialNo(void);

/* sysDescr and sysObjectID of portzero (PORTZERO-MIB pzProducts.1). */
#define PZ_SNMP_SYSDESCR "portzero InfiniBand switch management agent"

/*
 * sysServices (RFC 3418): 2 (datalink/subnetwork: the switch forwards
 * InfiniBand packets) + 8 (end-to-end: the management CPU is an IP host) +
 * 64 (applications: SNMP, SSH).  Without a value net-snmp answers
 * noSuchInstance for this mandatory object of the system group.
 */
#define PZ_SNMP_SYSSERVICES 74

uint32_t snmp_uptime(void)
{
    return (uint32_t)netsnmp_get_agent_uptime();
}

/*
 * Whether path is a regular file we can open: net-snmp takes it as its
 * "optional config", a comma-separated list of files it opens and reads
 * line by line; a directory opens and reads as empty, so it started the
 * agent with no access configured and no error.
 */
static bool snmp_engine_readable(const char *path)
{
    struct stat st;
    FILE *f;

    if (strchr(path, ',') || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    f = fopen(path, "r");
    if (!f)
        return false;
    fclose(f);
    return true;
}

/* Point net-snmp's files at ours only; returns 0 or -1 with err set. */
static int snmp_engine_paths(const struct pz_snmp_params *p, char *err, size_t errlen)
{
    struct stat st;

    if (!p->state_dir || p->state_dir[0] != '/' || stat(p->state_dir, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "snmp: state directory '%s' is not an absolute directory",
                 p->state_dir ? p->state_dir : "(none)");
        return -1;
    }
    if (p->config_file && !snmp_engine_readable(p->config_file)) {
        snprintf(err, errlen, "snmp: cannot read config file '%s'", p->config_file);
        return -1;
    }
    unsetenv("SNMPCONFPATH");
    unsetenv("SNMP_PERSISTENT_FILE");
    setenv("MIBS", "", 1);
    setenv("MIBDIRS", p->state_dir, 1); /* not ~/.snmp/mibs: the agent needs no MIB file */
    netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_CONFIGURATION_DIR, "");
    netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR, p->state_dir);
    if (p->config_file)
        netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_OPTIONALCONFIG, p->config_file);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_LOAD_HOST_FILES, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 0);
    return 0;
}

/* The agent's role and what it must not start (kernel listeners, subagents). */
static void snmp_engine_role(void)
{
    /* add_to_init_list tokenizes its argument in place. */
    char skip[] = "-smux,agentx";

    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 0);
    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_ROOT_ACCESS, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_MASTER, 0);
    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
                           NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS, 1);
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS, "none");
    /* SNMPv1 traps' agent-addr: numeric, or net-snmp probes the kernel's interfaces. */
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_TRAP_ADDR, "0.0.0.0");
    add_to_init_list(skip);
}

/*
 * agentaddress lines append their addresses to the "none" the agent's
 * ports start as (snmp_engine_role), and init_master_agent() stops at
 * "none": the lines were ignored without a word.  Say so, once for all of
 * them: the agent serves only the caller's transport (UDP 161 of the IP
 * plane).
 */
static void snmp_engine_no_agentaddress(void)
{
    const char *ports = netsnmp_ds_get_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS);

    if (!ports || strncmp(ports, "none,", 5) != 0)
        return;
    snmp_log(LOG_ERR,
             "portzero: agentaddress %s refused: the agent serves UDP 161 of the switch's "
             "IP plane only\n",
             ports + 5);
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS, "none");
}

/*
 * Give token the value unless the configuration file has a line of it:
 * net-snmp processes remembered lines after the files, so a remembered
 * default overrode the operator's line.
 */
static void snmp_engine_default(const char *token, const char *value)
{
    const char *conf = netsnmp_ds_get_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_OPTIONALCONFIG);
    char line[160];

    if (conf && snmp_conf_sets(conf, token))
        return;
    snprintf(line, sizeof(line), "%s %s", token, value);
    netsnmp_config_remember(line);
}

/* The standard MIB modules, and sysDescr/sysObjectID/sysServices unless the config sets them. */
static void snmp_engine_modules(void)
{
    char value[64];

    snmp_engine_default("sysDescr", PZ_SNMP_SYSDESCR);
    snprintf(value, sizeof(value), ".1.3.6.1.4.1.%u.2.1", PZ_SNMP_ENTERPRISE);
    snmp_engine_default("sysObjectID", value);
    snprintf(value, sizeof(value), "%d", PZ_SNMP_SYSSERVICES);
    snmp_engine_default("sysServices", value);
    init_system_mib();
    init_sysORTable();
    init_snmp_mib();
    init_vacm_vars();
    init_vacm_context();
    init_usmUser();
    init_usmStats();
    init_snmpEngine();
    init_snmpMPDStats();
    init_snmpNotifyTable();
    init_snmpNotifyFilterProfileTable();
    init_snmpNotifyFilterTable();
    init_snmpTargetAddrEntry();
    init_snmpTargetParamsEntry();
    init_target_counters();
    init_setSerialNo();
}

/*
 * createUser, parsed by net-snmp (usm_parse_create_usmUser), its user then
 * made readOnly when the line is the configuration file's.  net-snmp
 * stores nonVolatile users in the persistent file and reads them back at
 * the next start before the configuration: a user whose createUser line
 * was removed from snmp_config kept authenticating with its old keys.  A
 * readOnly user is not stored (the configuration creates it again at every
 * start) and cannot be changed over SNMP; users created through
 * usmUserTable, or by a createUser line in the persistent file, stay
 * nonVolatile and persist.
 */
static void snmp_engine_create_user(const char *token, char *line)
{
    const char *conf = netsnmp_ds_get_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_OPTIONALCONFIG);
    char name[SNMP_MAXBUF_SMALL];
    bool configured = snmp_conf_user_configured(conf, line, name, sizeof(name));
    struct usmUser *u;

    usm_parse_create_usmUser(token, line);
    for (u = usm_get_userList(); u && configured; u = u->next)
        if (u->name && !strcmp(u->name, name))
            u->userStorageType = ST_READONLY;
}

/* Our own MIBs; 0 or -1 with err set. */
static int snmp_engine_own_mibs(struct pz_snmp *s, char *err, size_t errlen)
{
    if (snmp_mib_if_register(s) != 0 || snmp_mib_portzero_register(s) != 0 ||
        snmp_mib_routes_register(s) != 0) {
        snprintf(err, errlen, "snmp: registering the MIB handlers failed");
        return -1;
    }
    snmp_persist_register(s);
    return 0;
}

/*
 * Cap the size of every answer at the caller's max_message.  net-snmp
 * limits an SNMPv3 answer by the transport's msgMaxSize, but a v1/v2c one
 * only by this global (default 2^31 - 1): an answer longer than the
 * caller can send was built, then refused by the send, and the manager got
 * nothing instead of tooBig (or a GETBULK answer cut to fit).  A smaller
 * value from the configuration (sendMessageMaxSize) stays.
 */
static void snmp_engine_msg_max(const struct pz_snmp *s)
{
    int cur = netsnmp_ds_get_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MSG_SEND_MAX);

    if (cur <= 0 || (size_t)cur > s->p.max_message)
        netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MSG_SEND_MAX,
                           (int)s->p.max_message);
}

/* Allocate the instance and its per-interface rows; NULL on OOM. */
static struct pz_snmp *snmp_engine_alloc(const struct pz_snmp_params *p)
{
    struct pz_snmp *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->p = *p;
    if (!s->p.max_message)
        s->p.max_message = 8192;
    s->num_ports = p->board->id->num_ports;
    s->num_if = s->num_ports + 1;
    s->if_rows = calloc(s->num_if, sizeof(*s->if_rows));
    s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->efd6 = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (!s->if_rows || s->efd < 0 || s->efd6 < 0 || snmp_port_init(s) != 0 ||
        pthread_mutex_init(&s->lock, NULL) != 0) {
        if (s->efd >= 0)
            close(s->efd);
        if (s->efd6 >= 0)
            close(s->efd6);
        free(s->snaps);
        free(s->if_rows);
        free(s);
        return NULL;
    }
    return s;
}

/*
 * The agent session's check of every received datagram, before it is
 * parsed; returns 1 (parse it).  netsnmp_register_agent_nsap() would install
 * netsnmp_agent_check_packet(), which in Debian's net-snmp (built with
 * libwrap) calls hosts_ctl() for every datagram: it opens and reads
 * /etc/hosts.allow and /etc/hosts.deny each time, 10-25 % of the agent's
 * CPU per request.  A switch has no tcp-wrappers policy: who may read or
 * write is USM and VACM's answer (the configuration's users, communities
 * and views), so this check keeps only what the library's does besides
 * libwrap, counting snmpInPkts.
 */
static int snmp_engine_check_packet(netsnmp_session *sess, netsnmp_transport *t, void *addr,
                                    int addr_len)
{
    (void)sess;
    (void)t;
    (void)addr;
    (void)addr_len;
    snmp_increment_statistic(STAT_SNMPINPKTS);
    return 1;
}

/*
 * Open the agent's session on transport t as netsnmp_register_agent_nsap()
 * does (net-snmp's public snmp_add), with the check above instead of
 * libwrap's.  net-snmp closes it with its other sessions (snmp_shutdown).
 * Returns 0 or -1.
 */
static int snmp_engine_listen(netsnmp_transport *t)
{
    netsnmp_session sess;

    snmp_sess_init(&sess);
    sess.version = SNMP_DEFAULT_VERSION;
    sess.callback = handle_snmp_packet;
    sess.authenticator = NULL;
    sess.flags = netsnmp_ds_get_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_FLAGS);
    sess.isAuthoritative = SNMP_SESS_AUTHORITATIVE;
    t->flags |= NETSNMP_TRANSPORT_FLAG_OPENED;
    return snmp_add(&sess, t, snmp_engine_check_packet, netsnmp_agent_check_parse) ? 0 : -1;
}

struct pz_snmp *pz_snmp_create(const struct pz_snmp_params *params, char *err, size_t errlen)
{
    struct pz_snmp *s;
    netsnmp_transport *t;

    if (!params->send || !params->board || !params->sma || !params->pma) {
        snprintf(err, errlen, "snmp: send callback, board, SMA and PMA are required");
        return NULL;
    }
    if (snmp_engine_paths(params, err, errlen) != 0)
        return NULL;
    s = snmp_engine_alloc(params);
    if (!s) {
        snprintf(err, errlen, "snmp: out of memory");
        return NULL;
    }
    if (snmp_transport_register(s) != 0) {
        snprintf(err, errlen, "snmp: an SNMP agent already runs in this process");
        close(s->efd);
        close(s->efd6);
        free(s->snaps);
        free(s->if_rows);
        free(s);
        return NULL;
    }
    snmp_engine_role();
    init_agent(PZ_SNMP_APP);
    /* Replaces the handler init_agent registered (init_usmConf). */
    register_config_handler(PZ_SNMP_APP, "createUser", snmp_engine_create_user, NULL,
                            "username [-e ENGINEID] (MD5|SHA|SHA-512|SHA-384|SHA-256|SHA-224) "
                            "authpassphrase [(DES|AES) [privpassphrase]]");
    snmp_engine_modules();
    if (snmp_engine_own_mibs(s, err, errlen) != 0)
        goto fail;
    init_snmp(PZ_SNMP_APP);
    if (snmp_system_init(s) != 0 || snmp_notify_register(s) != 0) {
        snprintf(err, errlen, "snmp: out of memory");
        goto fail;
    }
    snmp_engine_msg_max(s);
    snmp_engine_no_agentaddress();
    init_master_agent();
    /* A session of each family: net-snmp's access rules go by the session's domain. */
    for (int ipv6 = 0; ipv6 < 2; ipv6++) {
        t = snmp_transport_open_server(s, ipv6);
        if (!t || snmp_engine_listen(t) != 0) {
            snprintf(err, errlen, "snmp: cannot register the agent transport");
            goto fail;
        }
        *(ipv6 ? &s->server6 : &s->server) = t;
    }
    /* The incremented engineBoots is on disk before the first answer. */
    snmp_store(PZ_SNMP_APP);
    snmp_notify_scan(s, false);
    if (!s->p.defer_cold_start)
        pz_snmp_cold_start(s);
    return s;
fail:
    pz_snmp_destroy(s);
    return NULL;
}

void pz_snmp_cold_start(struct pz_snmp *s)
{
    if (!s || s->cold_sent)
        return;
    s->cold_sent = true;
    send_easy_trap(SNMP_TRAP_COLDSTART, 0);
}

void pz_snmp_destroy(struct pz_snmp *s)
{
    if (!s)
        return;
    snmp_notify_unregister(s);
    /* snmp_shutdown stores the persistent state (the ifAlias callback included) first. */
    snmp_shutdown(PZ_SNMP_APP);
    shutdown_agent();
    snmp_system_free(s);
    snmp_persist_unregister(s);
    snmp_transport_forget(s);
    snmp_queue_drain(s);
    snmp_sink_free(s);
    snmp_hold_free(s);
    close(s->efd);
    close(s->efd6);
    pthread_mutex_destroy(&s->lock);
    free(s->reach);
    free(s->snaps);
    free(s->if_rows);
    free(s);
}

/*
 * Answer every queued datagram through net-snmp's session read: the
 * agent's queues (the IPv4 session reads efd's, the IPv6 one efd6's), and
 * Responses to informs queued for their sinks' sessions.
 * A sink's datagrams that no session reads (its transport was freed without
 * being closed) are dropped, so the loop ends.
 */
static void snmp_engine_read(struct pz_snmp *s)
{
    netsnmp_large_fd_set fds;
    uint64_t n;
    unsigned pending, pending6, sinks;

    /* Read the eventfd only when it was written (pz_snmp_input_now does not). */
    pthread_mutex_lock(&s->lock);
    if (s->signalled && read(s->efd, &n, sizeof(n)) < 0)
        n = 0; /* already clear */
    s->signalled = false;
    pthread_mutex_unlock(&s->lock);
    for (;;) {
        netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
        pthread_mutex_lock(&s->lock);
        pending = s->rx[0].count;
        pending6 = s->rx[1].count;
        pthread_mutex_unlock(&s->lock);
        if (pending)
            netsnmp_large_fd_setfd(s->efd, &fds);
        if (pending6)
            netsnmp_large_fd_setfd(s->efd6, &fds);
        sinks = snmp_sink_fds(s, &fds);
        if (pending || pending6 || sinks) {
            snmp_port_invalidate(s); /* each request reads the ports afresh */
            snmp_read2(&fds);
        }
        netsnmp_large_fd_set_cleanup(&fds);
        if (!pending && !pending6 && !sinks)
            break;
        if (sinks && snmp_sink_queued(s) >= sinks)
            snmp_sink_drop_all(s);
    }
}

/* How often at most the link/hot-spot scan runs (and at least: the 1 s timeout). */
#define SNMP_SCAN_NS 100000000ull

/*
 * The link/hot-spot scan, at most every SNMP_SCAN_NS: a poller's requests
 * must not each pay for a look at every port (37 rows on a 36-port switch).
 */
static void snmp_engine_scan(struct pz_snmp *s)
{
    uint64_t now = board_now_ns(s->p.board);

    if (s->scan_ns && now - s->scan_ns < SNMP_SCAN_NS)
        return;
    s->scan_ns = now;
    snmp_notify_scan(s, true);
}

void pz_snmp_process(struct pz_snmp *s)
{
    snmp_engine_read(s);
    snmp_timeout();
    run_alarms();
    netsnmp_check_outstanding_agent_requests();
    snmp_engine_scan(s);
    snmp_hold_flush(s);
    snmp_store_if_needed();
}

/* The smaller of ms and tv (in ms, rounded up, not below 0). */
static long snmp_engine_earlier(long ms, const struct timeval *tv)
{
    long due = tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000;

    if (due < 0)
        due = 0;
    return due < ms ? due : ms;
}

/*
 * When net-snmp next retransmits an outstanding request (an inform) into
 * tv; false when none is outstanding.  snmp_select_info2() also sets the
 * sessions' descriptors, which are ignored (pz_snmp_fd covers them).
 */
static bool snmp_engine_retry_due(struct timeval *tv)
{
    netsnmp_large_fd_set fds;
    int numfds = 0, block = 1;

    netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
    tv->tv_sec = 0;
    tv->tv_usec = 0;
    snmp_select_info2(&numfds, &fds, tv, &block);
    netsnmp_large_fd_set_cleanup(&fds);
    return !block;
}

int pz_snmp_timeout_ms(const struct pz_snmp *s)
{
    struct timeval tv;
    long ms = 1000;

    /* Held notifications: try their path again soon. */
    if (snmp_hold_count(s))
        ms = PZ_SNMP_HOLD_RETRY_MS;
    /* Returns the alarm's registration number, 0 when no alarm is set. */
    if (get_next_alarm_delay_time(&tv) != 0)
        ms = snmp_engine_earlier(ms, &tv);
    /* Outstanding informs: when the next one is due for a retry. */
    if (snmp_engine_retry_due(&tv))
        ms = snmp_engine_earlier(ms, &tv);
    return (int)ms;
}

void pz_snmp_set_mgmt_if(struct pz_snmp *s, const struct pz_snmp_mgmt_if *mif)
{
    const struct pz_snmp_mgmt_if *o = &s->mgmt;

    if (mif->in_octets < o->in_octets || mif->out_octets < o->out_octets ||
        mif->in_ucast_pkts < o->in_ucast_pkts || mif->out_ucast_pkts < o->out_ucast_pkts)
        s->mgmt_discontinuity = snmp_uptime();
    if (mif->ipv4 != o->ipv4) {
        char addr[16];

        snprintf(addr, sizeof(addr), "%u.%u.%u.%u", mif->ipv4 >> 24, (mif->ipv4 >> 16) & 0xFF,
                 (mif->ipv4 >> 8) & 0xFF, mif->ipv4 & 0xFF);
        netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_TRAP_ADDR, addr);
    }
    s->mgmt = *mif;
}

int pz_snmp_set_reach(struct pz_snmp *s, const struct pz_snmp_reach *peers, size_t n)
{
    struct pz_snmp_reach *copy = NULL;

    if (n) {
        copy = calloc(n, sizeof(*copy));
        if (!copy)
            return -ENOMEM;
        memcpy(copy, peers, n * sizeof(*copy));
    }
    for (size_t i = 0; i < n; i++) {
        bool known = false;

        for (size_t j = 0; j < s->num_reach; j++) {
            if (s->reach[j].lid != copy[i].lid)
                continue;
            known = true;
            if (s->reach[j].reachable != copy[i].reachable || s->reach[j].lost != copy[i].lost)
                snmp_notify_reach(s, &copy[i]);
        }
        /* a peer whose first verdict is unreachable has lost reachability too */
        if (!known && !copy[i].reachable)
            snmp_notify_reach(s, &copy[i]);
    }
    free(s->reach);
    s->reach = copy;
    s->num_reach = n;
    return 0;
}

void pz_snmp_get_stats(const struct pz_snmp *s, struct pz_snmp_stats *st)
{
    pthread_mutex_lock((pthread_mutex_t *)&s->lock);
    *st = s->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
}
