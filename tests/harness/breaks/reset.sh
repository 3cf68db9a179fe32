#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job whose host resets itself (sysrq b) by the means given as its
# argument, a value of /sys/kernel/reboot/type: "triple" faults the CPU,
# which QEMU logs, and under --guest --retry-crash the harness runs the
# job again; "kbd" resets through the keyboard controller, no fault, and
# the harness must not (tests/harness/breaks.sh).
echo "job start"
echo "$1" >/sys/kernel/reboot/type
echo b >/proc/sysrq-trigger
sleep 60
echo "job survived its reset"
