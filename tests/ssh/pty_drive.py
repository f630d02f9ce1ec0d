#!/usr/bin/env python3
"""pty_drive.py - runs a command (the OpenSSH client) on a pseudo-terminal
the way an operator's terminal would: waits for the prompt, types lines
(with their own editing keys), resizes the terminal (the kernel sends
SIGWINCH; ssh sends window-change), and reports the exit status.

Usage: pty_drive.py TRANSCRIPT COLS ROWS -- COMMAND...
Script on stdin, one step a line:
  expect TEXT      wait (10 s) for TEXT in the output since the last expect
  send TEXT        type TEXT (Python escapes: \\r, \\t, \\x1b...)
  resize C R       set the terminal size
Prints "exit N" at the end ("exit timeout" if COMMAND is still running
PTY_DRIVE_EXIT_WAIT seconds, default 10, after the last step: then it is
killed); the whole output goes to TRANSCRIPT.
"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    transcript, cols, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    cmd = sys.argv[sys.argv.index("--") + 1:]
    steps = sys.stdin.read().splitlines()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    set_size(fd, cols, rows)
    out = b""
    mark = 0

    def read_some(timeout):
        nonlocal out
        r, _, _ = select.select([fd], [], [], timeout)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            out += data
            return bool(data)
        return True

    ok = True
    for step in steps:
        if not step.strip():
            continue
        verb, _, arg = step.partition(" ")
        if verb == "expect":
            want = arg.encode()
            deadline = time.time() + 10
            while want not in out[mark:] and time.time() < deadline:
                if not read_some(0.2):
                    break
            if want not in out[mark:]:
                print("timeout waiting for %r" % arg)
                ok = False
                break
            mark = out.index(want, mark) + len(want)
        elif verb == "send":
            os.write(fd, arg.encode().decode("unicode_escape").encode("latin-1"))
        elif verb == "resize":
            c, r = arg.split()
            set_size(fd, int(c), int(r))
    deadline = time.time() + float(os.environ.get("PTY_DRIVE_EXIT_WAIT", "10"))
    status = None
    while time.time() < deadline:
        read_some(0.1)
        wpid, st = os.waitpid(pid, os.WNOHANG)
        if wpid == pid:
            status = os.waitstatus_to_exitcode(st)
            break
    while read_some(0.05) and len(out) < 1 << 20:
        r, _, _ = select.select([fd], [], [], 0)
        if not r:
            break
    with open(transcript, "wb") as f:
        f.write(out)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print("exit timeout")
        sys.exit(1)
    print("exit %d" % status)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
