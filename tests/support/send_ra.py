#!/usr/bin/python3
"""send_ra.py - send one IPv6 Router Advertisement from an interface.

    send_ra.py IFNAME PREFIX/LEN [LIFETIME]

Sends an RA to ff02::1 on IFNAME from its link-local address (the kernel
picks it), hop limit 255, router lifetime LIFETIME s (default 0: not a
default router), with one prefix information option for PREFIX/LEN, flags
on-link and autonomous (SLAAC), valid 3600 s, preferred 1800 s.  The kernel
computes the ICMPv6 checksum of a raw ICMPv6 socket.  Standard library only:
no router daemon is packaged for the tests.
"""
import ipaddress
import socket
import struct
import sys


def main():
    ifname, prefix = sys.argv[1], ipaddress.IPv6Network(sys.argv[2], strict=False)
    lifetime = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    index = socket.if_nametoindex(ifname)
    # RA: type 134, code 0, checksum 0, cur hop limit 64, flags 0, router
    # lifetime, reachable time 0, retrans timer 0.
    ra = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, lifetime, 0, 0)
    # Prefix information: type 3, length 4, prefix length, flags L|A, valid, preferred, reserved.
    ra += struct.pack("!BBBBIII", 3, 4, prefix.prefixlen, 0xC0, 3600, 1800, 0)
    ra += prefix.network_address.packed
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
    s.sendto(ra, ("ff02::1", 0, 0, index))
    s.close()


if __name__ == "__main__":
    main()
