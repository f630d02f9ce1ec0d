#!/usr/bin/env python3
"""snmp_raw.py - raw SNMPv2c datagrams for the SNMP test and bench (no pysnmp).

  snmp_raw.py fuzz ADDR COMMUNITY [SEED]
      Sends random datagrams, every truncation of a valid GET and mutated
      copies of it to ADDR:161, then one valid GET of sysDescr.0; prints
      "sent N" and "answer <sysDescr>" (exit 0) or "no answer" (exit 1).
  snmp_raw.py poll ADDR PORT COMMUNITY SECONDS PROCS
      PROCS processes, each one GET of sysUpTime.0 at a time (next one on
      the answer, 1 s timeout) for SECONDS; prints "gets N rate R/s timeouts T".
"""
import multiprocessing
import os
import random
import socket
import sys
import time


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        ln = bytes([n])
    elif n < 0x100:
        ln = bytes([0x81, n])
    else:
        ln = bytes([0x82, n >> 8, n & 0xFF])
    return bytes([tag]) + ln + body


def integer(v):
    b = v.to_bytes(4, "big", signed=True).lstrip(b"\x00") or b"\x00"
    if b[0] & 0x80:
        b = b"\x00" + b
    return tlv(0x02, b)


def oid(dotted):
    parts = [int(x) for x in dotted.strip(".").split(".")]
    out = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        enc = [p & 0x7F]
        p >>= 7
        while p:
            enc.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(enc))
    return tlv(0x06, out)


def get_pdu(community, reqid, oids, pdu_tag=0xA0, nonrep=0, maxrep=0):
    vbs = b"".join(tlv(0x30, oid(o) + b"\x05\x00") for o in oids)
    pdu = tlv(pdu_tag, integer(reqid) + integer(nonrep) + integer(maxrep) + tlv(0x30, vbs))
    return tlv(0x30, integer(1) + tlv(0x04, community.encode()) + pdu)


def fuzz(addr, community, seed):
    rnd = random.Random(seed)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    good = get_pdu(community, 4242, ["1.3.6.1.2.1.1.1.0"])
    bulk = get_pdu(community, 4243, ["1.3.6.1.2.1.2.2.1"], 0xA5, 0, 10000)
    deep = get_pdu(community, 4244, ["1.3.6.1.2.1.1" + ".1" * 200])
    bad = []
    for _ in range(200):  # random bytes, some shaped like a SEQUENCE
        d = os.urandom(rnd.randint(0, 1400))
        if rnd.random() < 0.5 and d:
            d = b"\x30" + d[1:]
        bad.append(d)
    for base in (good, bulk, deep):  # every truncation
        bad += [base[:i] for i in range(len(base))]
    for _ in range(150):  # one to four bytes changed
        d = bytearray(rnd.choice((good, bulk)))
        for _ in range(rnd.randint(1, 4)):
            d[rnd.randrange(len(d))] = rnd.randrange(256)
        bad.append(bytes(d))
    bad += [bulk, deep]
    for d in bad:
        s.sendto(d, (addr, 161))
        time.sleep(0.002)  # the agent's queue is 64 datagrams
    print("sent", len(bad))
    s.settimeout(1.0)
    end = time.time() + 10
    while time.time() < end:  # drain what the mutated requests got back
        s.sendto(good, (addr, 161))
        try:
            while True:
                data = s.recv(65536)
                if b"\x02\x02\x10\x92" in data and b"ortzero" in data:  # reqid 4242
                    print("answer", data[data.find(b"ortzero") - 1 :][:40].decode(errors="replace"))
                    return 0
        except socket.timeout:
            pass
    print("no answer")
    return 1


def poller(addr, port, community, seconds, q):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    n = timeouts = 0
    reqid = os.getpid() << 8
    end = time.time() + seconds
    while time.time() < end:
        reqid = (reqid + 1) & 0x7FFFFFFF
        s.sendto(get_pdu(community, reqid, ["1.3.6.1.2.1.1.3.0"]), (addr, port))
        want = integer(reqid)
        try:
            while want not in s.recv(65536):
                pass
            n += 1
        except socket.timeout:
            timeouts += 1
    q.put((n, timeouts))


def poll(addr, port, community, seconds, procs):
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=poller, args=(addr, port, community, seconds, q))
          for _ in range(procs)]
    t0 = time.time()
    for p in ps:
        p.start()
    res = [q.get() for _ in ps]
    for p in ps:
        p.join()
    wall = time.time() - t0
    n = sum(r[0] for r in res)
    print("gets %d rate %.0f/s timeouts %d" % (n, n / wall, sum(r[1] for r in res)))
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "fuzz":
        sys.exit(fuzz(a[1], a[2], int(a[3]) if len(a) > 3 else 1))
    if len(a) == 6 and a[0] == "poll":
        sys.exit(poll(a[1], int(a[2]), a[3], float(a[4]), int(a[5])))
    sys.exit(__doc__)
