#!/usr/bin/python3
"""ssh_pwguess.py - a password client (paramiko) for the back-off tests and
the flood benchmark.  Host keys are not checked (the tests' servers are their
own).

  ssh_pwguess.py seq SRC HOST PORT USER PASSWORD...
      one password attempt per PASSWORD in order, each on a new connection
      from source address SRC ("-": any); prints "ok", "refused" or "closed"
      (the server hung up) per attempt, and stops after anything but
      "refused".
  ssh_pwguess.py abandon SRC HOST PORT USER PASSWORD SECONDS
      one password attempt that gives up after SECONDS without a verdict
      and hangs up; prints "abandoned" (or the verdict, if one came first).
  ssh_pwguess.py flood SRC HOST PORT USER SECONDS GUESSERS
      GUESSERS threads guessing wrong passwords for SECONDS, one attempt
      per connection; prints
      "attempts N refused N ok N errors N".
"""
import socket
import sys
import threading
import time

import paramiko


def connect(src, host, port, timeout=30, auth_timeout=600):
    """A started paramiko transport from src (or any address) to host:port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    if src != "-":
        sock.bind((src, 0))
    sock.connect((host, port))
    t = paramiko.Transport(sock)
    t.banner_timeout = timeout
    t.auth_timeout = auth_timeout  # the back-off may hold a verdict for long
    t.start_client(timeout=timeout)
    return t


def attempt(t, user, password):
    """One password attempt: "ok", "refused" or "closed"."""
    try:
        t.auth_password(user, password)
        return "ok"
    except paramiko.AuthenticationException:
        return "refused" if t.is_active() else "closed"
    except (paramiko.SSHException, OSError, EOFError):
        return "closed"


def seq(src, host, port, user, passwords):
    """Prints one verdict per password, each on a connection of its own."""
    for pw in passwords:
        t = connect(src, host, port)
        try:
            r = attempt(t, user, pw)
        finally:
            t.close()
        print(r, flush=True)
        if r != "refused":
            break


def flood(src, host, port, user, seconds, guessers):
    """Guessers threads of wrong passwords until the deadline; prints the counts."""
    counts = {"attempts": 0, "refused": 0, "ok": 0, "errors": 0}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def count(key):
        with lock:
            counts[key] += 1

    def guesser(n):
        i = 0
        while time.monotonic() < end:
            try:
                t = connect(src, host, port, timeout=10,
                            auth_timeout=max(1.0, end - time.monotonic() + 2))
            except (paramiko.SSHException, OSError, EOFError):
                count("errors")
                time.sleep(0.2)
                continue
            try:
                i += 1
                count("attempts")
                r = attempt(t, user, "guess-%d-%d" % (n, i))
                count("errors" if r == "closed" else r)
            finally:
                t.close()

    threads = [threading.Thread(target=guesser, args=(n,), daemon=True)
               for n in range(guessers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 60)
    print("attempts %(attempts)d refused %(refused)d ok %(ok)d errors %(errors)d" % counts,
          flush=True)


def abandon(src, host, port, user, password, seconds):
    """A password attempt left after seconds: the connection closes before the verdict."""
    t = connect(src, host, port, auth_timeout=seconds)
    try:
        t.auth_password(user, password)
        r = "ok"
    except paramiko.AuthenticationException as e:  # paramiko's own timeout says so
        r = "abandoned" if "timeout" in str(e).lower() else "refused"
    except (paramiko.SSHException, OSError, EOFError):
        r = "closed"
    finally:
        t.close()
    print(r, flush=True)


def main():
    a = sys.argv[1:]
    if len(a) >= 6 and a[0] == "seq":
        seq(a[1], a[2], int(a[3]), a[4], a[5:])
    elif len(a) == 7 and a[0] == "abandon":
        abandon(a[1], a[2], int(a[3]), a[4], a[5], float(a[6]))
    elif len(a) == 7 and a[0] == "flood":
        flood(a[1], a[2], int(a[3]), a[4], float(a[5]), int(a[6]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
