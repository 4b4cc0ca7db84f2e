#!/usr/bin/env bash
# Is this machine slow at the kernel boundary or everywhere? Two numbers to put beside a benchmark run:
# the cost of a system call (4 million 1-byte read and write calls through dd) and a plain integer loop in a
# JVM (2 billion iterations, no system calls, no allocation), plus the kernel command line (nested virtualisation
# shows there, e.g. nested_pvm=1).
set -euo pipefail
echo "kernel: $(uname -r)"; echo "cmdline: $(cat /proc/cmdline)"
start=$(date +%s%N)
dd if=/dev/zero of=/dev/null bs=1 count=2000000 2>/dev/null
end=$(date +%s%N)
echo "system call: $(( (end - start) / 4000000 )) ns each (dd, 4,000,000 read + write calls)"
java "$(dirname "$0")/IntegerLoop.java"
java "$(dirname "$0")/IntegerLoop.java"
