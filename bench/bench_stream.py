#!/usr/bin/env python3
"""bench_stream.py IN OUT COMMAND... - runs COMMAND with stdin from IN and its
stdout into OUT, and prints "BYTES SECONDS MB/s" timed from the first output
byte to the last, so a login and key exchange before the output do not count
(bench_ssh.sh's bulk figures)."""
import subprocess
import sys
import time


def main():
    src, dst, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    first = None
    total = 0
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        proc = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        while True:
            chunk = proc.stdout.read1(1 << 16)
            if not chunk:
                break
            if first is None:
                first = time.monotonic()
            total += len(chunk)
            fout.write(chunk)
        end = time.monotonic()
        proc.wait()
    secs = end - first if first is not None else 0.0
    print(total, "%.3f" % secs, "%.1f" % (total / secs / 1e6 if secs > 0 else 0.0))


if __name__ == "__main__":
    main()
