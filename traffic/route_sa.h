/*
 * route_sa.h - the route check's input from SA answers: NodeRecords become
 * switches (port-0 LID) and CA ports, LinkRecords links,
 * LinearForwardingTableRecords LFT blocks, PortInfoRecords (read after the
 * NodeRecords) the LMCs of CA ports and switch ports 0.  Pure glue between mad/sa_query
 * (the records) and route_check (the fabric), used by pz-routecheck and by
 * portzerod alike.
 */
#ifndef PZ_ROUTE_SA_H
#define PZ_ROUTE_SA_H

#include "route_check.h"
#include "sa_query.h"

/*
 * Add every record of a parsed answer (NodeRecord, LinkRecord, LFTRecord
 * or PortInfoRecord; other attributes are refused) to the fabric.  Returns
 * the number of records added, or -1 with a reason in *why (an SA error
 * status, a truncated answer, records too short, no memory).  A
 * PortInfoRecord answer with an error status or no records is not an
 * error: it returns 0 and the fabric notes that the LMCs are unknown
 * (rc_fabric_set_lmc_known); one with records notes them known.
 */
long rc_fabric_add_sa_answer(struct rc_fabric *f, const struct sa_answer *a, const char **why);

#endif
