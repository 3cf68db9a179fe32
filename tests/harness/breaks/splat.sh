#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job that succeeds but leaves a splat-shaped line in the kernel log: the
# harness must fail the run (tests/harness/breaks.sh).
echo "WARNING: CPU: 0 PID: $$ at roam-harness-break (a deliberate test line)" >/dev/kmsg
echo "job done"
