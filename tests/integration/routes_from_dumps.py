#!/usr/bin/env python3
"""routes_from_dumps.py - the route check computed independently of
pz-routecheck, from what the diags print: the switches' LIDs and the cabling
(ibnetdiscover, through tests/integration/lib.sh's disc_switches and
net_links) and every switch's LFT (ibroute, through lft_lines).

    routes_from_dumps.py SWLIDS CALIDS LINKS LFTS [--all] [--lmcs LMCS]
                         [--report JSON]

SWLIDS: "name lid" of every switch; CALIDS: "name lid" of every CA port;
LINKS: "node port remote-node remote-port"; LFTS: "switch lid port";
LMCS: "lid lmc" of ports (ibnetdiscover's "lid N lmc M"): such a port owns
lid .. lid + 2^lmc - 1, each a destination (without it: the base LIDs).
Prints:
    unrouted SRC DST        one line per switch pair without a route
    pairs N / unrouted N / cycle yes|no / dependencies N
    ca_pairs N / ca_routed N  (with --all: switch-to-CA routes, every LID)
and, with --report (pz-routecheck --json output), checks that report:
    report-unrouted same|differs, report-cycle same|differs,
    report-cycle-valid yes|no|none (each printed channel follows the one
    before it on some route, and the last closes the ring).
"""
import json
import sys


def read_pairs(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def main():
    args = sys.argv[1:]
    all_routes = '--all' in args
    report = None
    if '--report' in args:
        report = args[args.index('--report') + 1]
    lmc = {}
    if '--lmcs' in args:
        lmc = {int(lid): int(m) for lid, m in read_pairs(args[args.index('--lmcs') + 1])}
    swlids, calids, links, lfts = args[:4]
    lid_of = {}
    owner = {}
    switches = []
    for name, lid in read_pairs(swlids):
        lid_of[name] = int(lid)
        owner[int(lid)] = name
        switches.append(name)
    cas = []
    for name, lid in read_pairs(calids):
        if int(lid) not in owner:
            owner[int(lid)] = name
            cas.append(name)
            lid_of.setdefault(name, int(lid))
    swset = set(switches)
    ranges = {}  # name -> its LIDs
    for name in switches + cas:
        base = lid_of[name]
        ranges[name] = [base + k for k in range(1 << lmc.get(base, 0))]
        for lid in ranges[name][1:]:
            owner.setdefault(lid, name)
    peer = {}
    for a, pa, b, pb in read_pairs(links):
        peer[(a, int(pa))] = b
    lft = {}
    for s, lid, port in read_pairs(lfts):
        lft[(s, int(lid))] = int(port)

    def walk(src, dlid):
        """The channels (switch, port) of the route, or None without one."""
        at, chans = src, []
        for _ in range(len(switches) + 2):
            if owner.get(dlid) == at:
                return chans
            if at not in swset:
                return None
            port = lft.get((at, dlid))
            if port is None or port == 0 or (at, port) not in peer:
                return None
            nxt = peer[(at, port)]
            if nxt in swset:
                chans.append((at, port, nxt))
            at = nxt
        return None  # a loop

    unrouted = []
    deps = set()
    pairs = ca_pairs = ca_routed = 0
    dests = [(d, lid) for d in switches for lid in ranges[d]]
    if all_routes:
        dests += [(c, lid) for c in cas for lid in ranges[c]]
    for dname, dlid in dests:
        for s in switches:
            if s == dname:
                continue
            chans = walk(s, dlid)
            if dname in swset:
                pairs += 1
                if chans is None:
                    unrouted.append((s, dname))
            else:
                ca_pairs += 1
                ca_routed += chans is not None
            if chans:
                for i in range(len(chans) - 1):
                    deps.add((chans[i], chans[i + 1]))

    # cycle search (iterative, colours)
    adj = {}
    for a, b in deps:
        adj.setdefault(a, []).append(b)
    colour = {}
    cycle = False
    for root in list(adj):
        if cycle or colour.get(root):
            continue
        stack = [(root, iter(adj.get(root, [])))]
        colour[root] = 1
        while stack and not cycle:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt, 0) == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(adj.get(nxt, []))))
            elif colour[nxt] == 1:
                cycle = True

    for s, d in sorted(unrouted):
        print('unrouted', s, d)
    print('pairs', pairs)
    print('unrouted', len(unrouted))
    print('cycle', 'yes' if cycle else 'no')
    print('dependencies', len(deps))
    if all_routes:
        print('ca_pairs', ca_pairs)
        print('ca_routed', ca_routed)
    if report is None:
        return
    with open(report) as f:
        rep = json.load(f)
    got = sorted((u['src']['name'], u['dst']['name'])
                 for u in rep['unrouted_list'] if u['dst']['name'] in swset)
    print('report-unrouted', 'same' if got == sorted(unrouted) else 'differs')
    print('report-cycle', 'same' if rep['cycle'] == cycle else 'differs')
    chans = [(c['from']['name'], c['port'], c['to']['name']) for c in rep['cycle_channels']]
    if not chans:
        print('report-cycle-valid', 'none')
        return
    ok = all((chans[i], chans[(i + 1) % len(chans)]) in deps for i in range(len(chans)))
    print('report-cycle-valid', 'yes' if ok else 'no')


if __name__ == '__main__':
    main()
