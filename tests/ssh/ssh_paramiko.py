#!/usr/bin/python3
"""ssh_paramiko.py - logs in with paramiko's SSHClient (what Netmiko and
Ansible's paramiko transport use), the way they do, and runs one command.

paramiko sends SERVICE_REQUEST "ssh-userauth" again before every
authentication attempt, so a second attempt on the connection is what this
checks: keys tried in order (the first refused), or a refused key and then
the password.

Usage: ssh_paramiko.py HOST PORT KNOWN_HOSTS USER COMMAND keys KEYFILE...
       ssh_paramiko.py HOST PORT KNOWN_HOSTS USER COMMAND key+password KEYFILE PASSWORD
Prints "status N" and the command's output ("out TEXT", one a line); an
error as "error TYPE: TEXT" with exit status 1.
"""
import sys

import paramiko


def main():
    host, port, known_hosts, user, command, mode = sys.argv[1:7]
    rest = sys.argv[7:]
    client = paramiko.SSHClient()
    client.load_host_keys(known_hosts)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    kwargs = dict(hostname=host, port=int(port), username=user, look_for_keys=False,
                  allow_agent=False, timeout=30, banner_timeout=30, auth_timeout=30)
    if mode == "keys":
        kwargs["key_filename"] = rest
    elif mode == "key+password":
        kwargs["key_filename"] = rest[0]
        kwargs["password"] = rest[1]
    else:
        sys.exit("unknown mode " + mode)
    try:
        client.connect(**kwargs)
        _, stdout, _ = client.exec_command(command, timeout=30)
        out = stdout.read().decode()
        status = stdout.channel.recv_exit_status()
    except Exception as e:  # the test prints what went wrong
        print("error %s: %s" % (type(e).__name__, e))
        sys.exit(1)
    finally:
        client.close()
    print("status %d" % status)
    for line in out.splitlines():
        print("out " + line)


if __name__ == "__main__":
    main()
