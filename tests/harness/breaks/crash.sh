#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job whose host's kernel crashes (sysrq c): under --guest --retry-crash
# the harness runs it twice, then fails (tests/harness/breaks.sh).  With
# the argument "ours", the crash's console first names a roamswitch frame,
# which the harness must not retry.
echo "job start"
[ "${1:-}" != ours ] ||
	echo "roam-harness-break: a deliberate line naming a frame [openvswitch]" >/dev/kmsg
echo c >/proc/sysrq-trigger
sleep 60
echo "job survived its crash"
