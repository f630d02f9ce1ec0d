#!/usr/bin/env python3
"""ssh_rawclient.py - a hostile SSH client for the tests: speaks the clear
(pre-NEWKEYS) binary packet protocol of RFC 4253 by hand so it can send
what no real client sends.  One scenario per run; prints what the server did
last ("disconnect REASON", "got MSGTYPE", or "closed") and exits 0.

Usage: ssh_rawclient.py PORT SCENARIO
"""
import os
import socket
import struct
import sys
import time

CLIENT_KEX = ["curve25519-sha256"]
GOOD = {
    "kex": "curve25519-sha256",
    "hostkey": "ssh-ed25519",
    "cipher": "chacha20-poly1305@openssh.com",
    "mac": "hmac-sha2-256-etm@openssh.com",
}


def sstr(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack(">I", len(b)) + b


def packet(payload):
    """Frames a payload in the clear: block 8, at least 4 bytes of padding."""
    pad = 8 - (5 + len(payload)) % 8
    if pad < 4:
        pad += 8
    return struct.pack(">IB", 1 + len(payload) + pad, pad) + payload + os.urandom(pad)


def kexinit(kex=None, hostkey=None, cipher=None, mac=None, strict=False):
    kex = kex or GOOD["kex"]
    if strict:
        kex += ",kex-strict-c-v00@openssh.com"
    lists = [kex, hostkey or GOOD["hostkey"], cipher or GOOD["cipher"], cipher or GOOD["cipher"],
             mac or GOOD["mac"], mac or GOOD["mac"], "none", "none", "", ""]
    return bytes([20]) + os.urandom(16) + b"".join(sstr(x) for x in lists) + b"\0" + b"\0" * 4


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def send(self, data):
        try:
            self.s.sendall(data)
        except OSError:
            pass

    def _fill(self, n):
        while len(self.buf) < n:
            try:
                d = self.s.recv(65536)
            except OSError:
                d = b""
            if not d:
                return False
            self.buf += d
        return True

    def version(self):
        while b"\n" not in self.buf:
            if not self._fill(len(self.buf) + 1):
                return None
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read_packet(self):
        if not self._fill(4):
            return None
        plen = struct.unpack(">I", self.buf[:4])[0]
        if not self._fill(4 + plen):
            return None
        pad = self.buf[4]
        payload = self.buf[5:4 + plen - pad]
        self.buf = self.buf[4 + plen:]
        return payload

    def outcome(self, want=None):
        """Reads packets until DISCONNECT, a wanted type, or the end."""
        while True:
            p = self.read_packet()
            if p is None:
                return "closed"
            if p[0] == 1:
                return "disconnect %d" % struct.unpack(">I", p[1:5])[0]
            if want is not None and p[0] == want:
                return "got %d" % want


def main():
    port, scenario = int(sys.argv[1]), sys.argv[2]
    c = Conn(port)
    if scenario in ("badversion", "ctrlversion", "longversion"):
        c.send({"badversion": b"HELLO THERE\r\n",
                "ctrlversion": b"SSH-2.0-evil\x1b[31m\r\n",
                "longversion": b"SSH-2.0-" + b"x" * 300 + b"\r\n"}[scenario])
        c.version()
        print(c.outcome())
        return
    c.send(b"SSH-2.0-rawclient\r\n")
    c.version()
    c.read_packet()  # the server's KEXINIT
    if scenario == "garbage":
        c.send(os.urandom(4096))
    elif scenario == "hugelen":
        c.send(b"\xff\xff\xff\xff" + os.urandom(64))
    elif scenario == "zerolen":
        c.send(b"\0\0\0\0" + os.urandom(64))
    elif scenario == "badpad":
        c.send(struct.pack(">IB", 12, 200) + b"\x02" + os.urandom(10))
    elif scenario == "truncated":
        c.send(packet(kexinit())[:20])
        time.sleep(0.2)
        print("closed")
        return
    elif scenario == "big_ignore":
        # a 35000-byte IGNORE, then a normal exchange: the server must answer ECDH_INIT
        c.send(packet(bytes([2]) + sstr(os.urandom(35000 - 16))))
        c.send(packet(kexinit()))
        c.send(packet(bytes([30]) + sstr(os.urandom(32))))
        print(c.outcome(want=31))
        return
    elif scenario == "nonstrict_out_of_order":
        c.send(packet(kexinit()))
        c.send(packet(bytes([5]) + sstr("ssh-userauth")))
    elif scenario == "strict_not_first":
        c.send(packet(bytes([2]) + sstr("x")))
        c.send(packet(kexinit(strict=True)))
    elif scenario == "strict_ignore_during":
        c.send(packet(kexinit(strict=True)))
        c.send(packet(bytes([2]) + sstr("x")))
    elif scenario == "newkeys_early":
        c.send(packet(kexinit()))
        c.send(packet(bytes([21])))
    elif scenario == "bad_ecdh":
        c.send(packet(kexinit()))
        c.send(packet(bytes([30]) + sstr(b"\0" * 32)))
    elif scenario == "only_cbc":
        c.send(packet(kexinit(cipher="aes128-cbc,3des-cbc")))
    elif scenario == "only_sha1":
        c.send(packet(kexinit(cipher="aes128-ctr", mac="hmac-sha1,hmac-sha1-etm@openssh.com")))
    elif scenario == "only_ssh_rsa":
        c.send(packet(kexinit(hostkey="ssh-rsa,ssh-dss")))
    elif scenario == "only_dh_group":
        c.send(packet(kexinit(kex="diffie-hellman-group14-sha1,diffie-hellman-group1-sha1")))
    elif scenario == "grace":
        pass  # say nothing more: the login grace time must end it
    else:
        print("unknown scenario", file=sys.stderr)
        sys.exit(2)
    print(c.outcome())


if __name__ == "__main__":
    main()
