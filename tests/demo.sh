#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh (./roam demo): what roamswitch is for.  Two test hosts on our
# datapath, a nested guest on VLAN 10 with live TCP and UDP streams from
# a peer on the other host, migrated there and back by a plain `virsh
# migrate --live`: once with roam-migrate-agent on both hosts and the
# redirect in our datapath, once without the agents (the migration
# suite's scenario, one round trip each, tests/migration: cases
# 25-redirect and 30-baseline).  Then a short report: each migration's
# timeline, its gap, loss and downtime beside the baseline's, and a plot
# of the stream's per-10 ms delivery across the first migration, the
# pause and the redirect marked, the datagrams queued at the destination
# drawn apart (tests/migration/report.py, gnuplot).
#   tests/demo.sh [launch.sh options, e.g. --debug-kernel]
# Results in $ROAM_DEMO_OUT (default $ROAM_CACHE/demo): the report, the
# plot (migration.png), the suite's log and the hosts' raw measurements.
# Exit status: non-zero if the scenario or the report failed.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

apt_install gnuplot-nox python3
out=${ROAM_DEMO_OUT:-$ROAM_CACHE/demo}
rm -rf "$out"
mkdir -p "$out"
step "two hosts, a guest with live streams, migrated there and back with the agents and the redirect, then without (8 to 15 minutes; log: $out/suite.log)"
rc=0
# progress: the migrations as they happen, and the closing lines
"$ROAM_TOP/tests/migration/suite.sh" --pass ours --timeout 2400 --out "$out" \
	--env MIG_TRIPS=1 "$@" -- 00-start 25-redirect 30-baseline 90-teardown 2>&1 |
	tee "$out/suite.log" |
	sed -nu -e 's/^host1| ok [0-9]* - \[ours\] \[\(redirect\|baseline\)\] \(migration [0-9]*, .*\)/   \1: \2/p' \
		-e 's/^host1| not ok [0-9]* - /   FAILED: /p' \
		-e '/^migrations [0-9]/p' || rc=$?
[ "$rc" -eq 0 ] || die "the scenario failed (exit $rc): see $out/suite.log"
step "report"
python3 "$ROAM_TOP/tests/migration/report.py" "$out" | tee "$out/report.txt"
gnuplot "$out/migration.gp" || die "gnuplot could not draw $out/migration.png"
echo "roam: demo done; the plot is $out/migration.png"
