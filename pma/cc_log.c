/*
 * cc_log.c - the CongestionLog: events and the port map the datapath
 * reports, read (and cleared) by the congestion manager.
 *
 * Switch log (LogType 1): LogEventsCounter counts events since the last read
 * (sticking at 0xFFFF), PortMap has a bit for each port that marked packets,
 * and the 15 most recent events follow, oldest first.  A Get clears all
 * three.  A CA log (LogType 2) reports no events: the emulated CAs react to
 * no congestion notifications.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "cc_internal.h"

void cc_log_event(struct cc_agent *cc, uint16_t slid, uint16_t dlid, uint8_t sl, uint32_t timestamp)
{
    struct cc_log_entry *e = &cc->log[cc->log_next];

    cc->stats.log_events++;
    if (cc->log_count == CC_LOG_EVENTS)
        cc->stats.log_events_lost++;
    else
        cc->log_count++;
    e->slid = slid;
    e->dlid = dlid;
    e->sl = sl & 0xF;
    e->timestamp = timestamp;
    cc->log_next = (cc->log_next + 1) % CC_LOG_EVENTS;
    if (cc->log_events_counter < UINT16_MAX)
        cc->log_events_counter++;
}

void cc_log_port_marked(struct cc_agent *cc, unsigned port)
{
    if (port > cc->num_ports || port >= 8 * CC_PORT_MASK_BYTES)
        return;
    cc->port_map[CC_PORT_MASK_BYTES - 1 - port / 8] |= (uint8_t)(1u << (port % 8));
}

/* Write the held events, oldest first, into the switch log data. */
static void cc_log_put_events(const struct cc_agent *cc, uint8_t *log)
{
    unsigned first = (cc->log_next + CC_LOG_EVENTS - cc->log_count) % CC_LOG_EVENTS;

    for (unsigned i = 0; i < cc->log_count; i++) {
        const struct cc_log_entry *e = &cc->log[(first + i) % CC_LOG_EVENTS];
        uint8_t *ev = log + CC_LOG_EVENT_OFFS + i * CC_LOG_EVENT_SIZE;

        mad_set_field(ev, 0, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SLID_F, e->slid);
        mad_set_field(ev, 0, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_DLID_F, e->dlid);
        mad_set_field(ev, 0, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SL_F, e->sl);
        mad_set_field(ev, 0, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_TIMESTAMP_F, e->timestamp);
    }
}

/* Fill a switch CongestionLog and clear the log. */
static void cc_log_switch(struct cc_agent *cc, uint8_t *log)
{
    mad_set_field(log, 0, IB_CC_CONGESTION_LOG_LOGTYPE_F, CC_LOG_TYPE_SWITCH);
    mad_set_field(log, 0, IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F, cc->log_events_counter);
    mad_set_field(log, 0, IB_CC_CONGESTION_LOG_SWITCH_CURRENT_TIME_STAMP_F, cc_timestamp(cc));
    mad_set_array(log, 0, IB_CC_CONGESTION_LOG_SWITCH_PORTMAP_F, cc->port_map);
    cc_log_put_events(cc, log);
    cc->log_events_counter = 0;
    cc->log_count = 0;
    memset(cc->port_map, 0, sizeof(cc->port_map));
}

uint16_t cc_log_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *log = req->out + CC_LOG_DATA_OFFS;

    if (cc->is_switch) {
        cc_log_switch(cc, log);
        return MAD_STATUS_OK;
    }
    mad_set_field(log, 0, IB_CC_CONGESTION_LOG_LOGTYPE_F, CC_LOG_TYPE_CA);
    mad_set_field(log, 0, IB_CC_CONGESTION_LOG_CA_CURRENT_TIMESTAMP_F, cc_timestamp(cc));
    return MAD_STATUS_OK;
}
