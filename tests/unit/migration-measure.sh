#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The migration suite's readings (tests/migration/measure.sh), fed what
# virsh event and roam-traffic probe print: downtimes only from
# job-completed events, the closing line's sums and maxima, and an
# incomplete measurement failing rather than reading as a good one.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=../migration/measure.sh
. "$top/tests/migration/measure.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
MIG_EVENTS=$scratch/events
# fails CMD...: CMD fails (its message is not the point here).
fails() { ! "$@" 2>/dev/null; }

printf '%s\n' \
	"2026-12-04 19:40:01.100+0000: event 'lifecycle' for domain 'g1': Suspended Migrated" \
	"2026-12-04 19:40:02.200+0000: event 'job-completed' for domain 'g1':" \
	"	operation: 3" "	downtime: 812" "	time_elapsed: 23000" \
	"2026-12-04 19:40:03.000+0000: event 'tunable' for domain 'g1':" \
	"	downtime: 999" \
	"2026-12-04 19:41:02.200+0000: event 'job-completed' for domain 'g1':" \
	"	time_elapsed: 100" \
	"2026-12-04 19:42:02.200+0000: event 'job-completed' for domain 'g1':" \
	"	downtime: 655" >"$MIG_EVENTS.1"
check_output "downtimes: each job-completed event's, in order, no other event's" \
	"812
655" downtimes 1
check "downtimes fails for a host without an event log" fails downtimes 2

line='probe: tcp_sent=400 tcp_echoed=398 tcp_lost=2 tcp_dup=0 resets=1 tcp_max_gap_ms=1534.6 udp_sent=400 udp_lost=97 udp_max_gap_ms=1201.0'
check_output "field reads a key" 1534.6 field "$line" tcp_max_gap_ms
check_output "field tells tcp_lost from udp_lost" 97 field "$line" udp_lost
quiet='tcp_quiet_ms=12.0 udp_quiet_ms=9.5'
check "streams_answer: both streams answered lately" streams_answer "$line $quiet"
for q in 'tcp_quiet_ms=3000.0 udp_quiet_ms=9.5' 'tcp_quiet_ms=12.0 udp_quiet_ms=-1' \
	'tcp_quiet_ms=12.0'; do
	check "streams_answer refuses a stopped stream or a missing quiet time ($q)" \
		fails streams_answer "$line $q"
done
printf '%s\n' "downtime=812 $line $quiet" \
	"downtime=1001 probe: tcp_sent=410 tcp_echoed=410 tcp_lost=0 tcp_dup=0 resets=0 tcp_max_gap_ms=2010.4 udp_sent=410 udp_lost=120 udp_max_gap_ms=1900.0 $quiet" \
	>"$scratch/results"
check_output "summarize: sums, maxima, the closing line's form" \
	"migrations 2, resets 1, lost 2, max gap 2010 ms, max downtime 1001 ms, udp lost 217 of 810" \
	summarize "$scratch/results"
for q in 'tcp_quiet_ms=3000.0 udp_quiet_ms=9.5' 'tcp_quiet_ms=12.0 udp_quiet_ms=-1' \
	'tcp_quiet_ms=12.0'; do
	{ cat "$scratch/results"; echo "downtime=700 $line $q"; } >"$scratch/stopped"
	check "summarize fails for a window that closed on a stopped stream or lacks a quiet time ($q)" \
		fails summarize "$scratch/stopped"
done
echo "downtime=700 no report: host 2 did not answer" >>"$scratch/results"
check "summarize fails when a migration has no probe report" \
	fails summarize "$scratch/results"
echo "probe: tcp_sent=1 tcp_echoed=1 tcp_lost=0 tcp_dup=0 resets=0 tcp_max_gap_ms=1 udp_sent=1 udp_lost=0 udp_max_gap_ms=1" \
	>"$scratch/nodown"
check "summarize fails when a migration has no downtime" \
	fails summarize "$scratch/nodown"
: >"$scratch/empty"
check "summarize fails when nothing was measured" fails summarize "$scratch/empty"
# gapmap.py: the largest TCP gap of each migration, placed against the
# source's pause and the destination's resume of the timelines.
gapmap=$top/tests/migration/gapmap.py
out=$scratch/out
mkdir -p "$out"
# answers every 10 ms until 1,000 ms, none until 2,350 ms; the pause at
# 980, the resume at 2,300 (libvirt: 1,310 ms)
{
	for t in $(seq 900 10 1000) $(seq 2350 10 2500); do
		echo "t $t.000 $t"
		echo "u $t.500 $t"
	done
} >"$out/trace.redirect"
echo '{"role": "source", "events": [{"what": "guest paused", "t": 980}]}' \
	>"$out/timeline.redirect.host1.json"
echo '{"role": "destination", "downtime_ms": 1310, "events": [{"what": "guest resumed", "t": 2300}, {"what": "first frame to the guest here", "t": 2320}, {"what": "first frame from the guest here", "t": 2340}]}' \
	>"$out/timeline.redirect.host2.json"
check_output "gapmap: the gap's ends against the pause and the resume" \
	"1: downtime 1320 ms (libvirt's 1310 ms); TCP gap 1350 ms, from the pause +20 ms to the resume +50 ms; UDP gap 1350 ms, from the pause +20 ms to the resume +50 ms; first frame to the guest 20 ms after the resume, from it 40 ms after; TCP gap / downtime 1.02" \
	python3 "$gapmap" "$out" redirect
# a MIG_PCAP run's capture of what the guest sent into its new tap on
# host 2: one UDP answer (from port 7000), 2.4 s into the epoch
python3 - "$out/up2.redirect.tapin.5.pcap" <<'PY'
import struct, sys
frame = (b"\x02" * 6 + b"\x52" * 6 + b"\x08\x00" +
         bytes([0x45, 0, 0, 44, 0, 0, 0, 0, 64, 17, 0, 0]) + bytes(8) +
         struct.pack("!HHHH", 7000, 40000, 24, 0) + struct.pack("!QQ", 7, 0))
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 128, 1))
    f.write(struct.pack("<IIII", 2, 400000, len(frame), len(frame)) + frame)
PY
check_output "gapmap: when the guest's first answer entered its tap" \
	"its first answer entered its tap 100 ms after the resume" \
	eval "python3 '$gapmap' '$out' redirect | grep -o 'its first answer entered its tap [0-9]* ms after the resume'"
rm "$out/up2.redirect.tapin.5.pcap"
# QEMU's own stamps: its stop 200 ms before libvirt's pause event, its
# resume 30 ms before libvirt's resume event
sed -i 's/"t": 980}/&, {"what": "QEMU stopped the guest", "t": 780}/' \
	"$out/timeline.redirect.host1.json"
sed -i 's/"t": 2300}/&, {"what": "QEMU resumed the guest", "t": 2270}/' \
	"$out/timeline.redirect.host2.json"
check_output "gapmap: QEMU's pause, from its own stamps" \
	"QEMU's pause 1490 ms, its stop 200 ms before the pause event, its resume 30 ms before the resume event; TCP gap / QEMU's pause 0.91" \
	eval "python3 '$gapmap' '$out' redirect | grep -o \"QEMU's pause .*\""
echo '{"role": "source", "events": [{"what": "guest paused", "t": 5000}, {"what": "migration failed, guest resumed here", "t": 6000}]}' \
	>>"$out/timeline.redirect.host1.json"
check_output "gapmap: a failed migration is no migration" 1 \
	eval "python3 '$gapmap' '$out' redirect | wc -l"
echo 'x 12' >>"$out/trace.redirect"
check_refused "gapmap refuses a malformed trace" \
	"gapmap.py: $out/trace.redirect:55: not a trace line: 'x 12'" \
	python3 "$gapmap" "$out" redirect
head -n 54 "$out/trace.redirect" >"$out/trace.agent"
check_refused "gapmap refuses a missing timeline" \
	"gapmap.py: no timeline of host 1 in $out" \
	python3 "$gapmap" "$out" agent
echo 'not json' >>"$out/timeline.redirect.host2.json"
head -n 54 "$out/trace.redirect" >"$out/trace.good" && mv "$out/trace.good" "$out/trace.redirect"
check_refused "gapmap refuses a malformed timeline record" \
	"gapmap.py: $out/timeline.redirect.host2.json:2: not a timeline record" \
	python3 "$gapmap" "$out" redirect
# report.py (the demo's report): the first migration's datagrams sent
# during the pause, told apart by their round trips, and the baseline's
# run of losses.  Datagrams every 10 ms; with the redirect, the pause
# from 1,000 to 2,300 ms, the datagrams sent then answered from 2,350 ms
# on, and datagram 50 never answered; without the agents, those sent
# from 1,000 to 2,590 ms lost.
report=$top/tests/migration/report.py
rep=$scratch/report
mkdir -p "$rep"
python3 - "$rep" <<'PY'
import json, sys
d = sys.argv[1]
with open(f"{d}/trace.redirect", "w") as f:
    for s in range(600):
        t = s * 10
        came = 2350 + (t - 1000) / 10 if 1000 <= t <= 2300 else t + 2
        if s != 50:
            f.write(f"t {came:.3f} {s} {came - t:.3f}\nu {came + 0.5:.3f} {s} {came + 0.5 - t:.3f}\n")
with open(f"{d}/trace.baseline", "w") as f:
    for s in range(600):
        if not 1000 <= s * 10 < 2600:
            f.write(f"u {s * 10 + 2:.3f} {s} 2.000\nt {s * 10 + 2:.3f} {s} 2.000\n")
for mode in ("redirect", "baseline"):
    with open(f"{d}/results.{mode}", "w") as f:
        f.write("downtime=1300 probe: tcp_lost=0 resets=0 tcp_max_gap_ms=1350.0 udp_lost=0\n")
with open(f"{d}/timeline.redirect.host1.json", "w") as f:
    json.dump({"host": "roam-host1", "role": "source", "events": [
        {"what": "guest paused", "t": 1000},
        {"what": "first frame redirected to the uplink", "t": 1020},
        {"what": "QEMU stopped the guest", "t": 990}]}, f)
with open(f"{d}/timeline.redirect.host2.json", "w") as f:
    json.dump({"host": "roam-host2", "role": "destination", "events": [
        {"what": "guest resumed", "t": 2300}]}, f)
PY
check_output "report: with the redirect, the pause's datagrams all answered after the resume" \
	"First migration, with the redirect: paused 1300 ms, redirected 20 ms after the pause; 131 datagrams sent during the pause, 131 answered after the resume, 0 lost." \
	eval "python3 '$report' '$rep' | grep '^First migration, with the redirect'"
check_output "report: each timeline in time order, QEMU's stop (recorded last) first" \
	"  roam-host1 (source): QEMU stopped the guest +0, guest paused +10, first frame redirected to the uplink +30" \
	eval "python3 '$report' '$rep' | grep '^  roam-host1'"
check_output "report: without the agents, the run of losses" \
	"First migration, without the agents: 160 datagrams lost in a row from the first loss." \
	eval "python3 '$report' '$rep' | grep '^First migration, without'"
# the plot's data: answers to the pause's datagrams (column 3 less
# column 2), and datagram 50's mark when it was sent, 0.5 s before the
# pause
# shellcheck disable=SC2016 # awk's own fields
check_output "report: the plot's queued answers and its lost datagram" \
	"queued 131 lost -1 at -0.50" \
	awk '{ q += $3 - $2 } $4 < 0 { l = $4; at = $1 } END { print "queued", q, "lost", l, "at", at }' \
	"$rep/migration.redirect.dat"
sed 's/ [0-9.]*$//' "$rep/trace.redirect" >"$rep/trace.old"
mv "$rep/trace.old" "$rep/trace.redirect"
check_refused "report refuses a trace without round trips" \
	"report.py: $rep/trace.redirect: no round trips (a trace from an older probe)" \
	python3 "$report" "$rep"
tap_done
