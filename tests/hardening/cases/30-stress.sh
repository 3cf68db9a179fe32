# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 900
#
# Stress on the module of this pass: for STRESS_SECONDS (default 300, at
# most 720), on both CPUs, while pktgen's frames cross dp0, everything
# that changes a datapath runs at once; then the module unloads.
#
#   pktgen (CPU 0)                                                counted
#   [gen0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[sink0]
#                                |  (10-13) v0-v3, veths, added, deleted
#                                |  (20-23) i0-i3, internal, added, deleted
#   dps, and dpn inside network namespace stN: made, filled, destroyed
#
# The churns, each pinned to a CPU, each counting its rounds:
#   swap    (CPU 1) flow-churn swap: the flows the frames match (port 1,
#                   UDP; port 1 to 198.51.100.2) deleted and added again;
#   dump    (CPU 0) flow-churn dump: dp0's flows dumped again and again;
#   flows   (CPU 1) an IPv6 flow of port 1 added, modified, dumped, deleted;
#   vports  (CPU 1) a veth and an internal port added and deleted;
#   removal (CPU 0) p2, the port the frames leave by, removed as a device
#                   (ip link del) under the traffic, then made and added
#                   again as port 2;
#   dps     (CPU 0) a datapath with a veth, an internal port and a flow made
#                   and deleted, every other round inside a network
#                   namespace that is deleted with it all inside.
# Pass: every round of flows, vports, removal and dps succeeded and each
# made rounds; swap and dump got every answer they expected; dp0 forwards
# afterwards, with a flow of its own (swap deletes its flows as it ends),
# and holds only its own ports; then the module unloads and loads again.  The pass's clean kernel log (and kmemleak on the debug
# kernel) is the harness's point.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../../bench/pktgen.sh
. ./pktgen.sh
# shellcheck source=../tally.sh
. ./tally.sh

CHURN=$PWD/bin/flow-churn
seconds=${STRESS_SECONDS:-300}

case_cleanup() {
	local k

	pktgen_cleanup
	jobs -p | xargs -r kill 2>/dev/null
	wait
	ovs-dpctl del-dp dps 2>/dev/null
	ip -all netns delete 2>/dev/null
	for k in 0 1 2 3; do
		ip link del "v$k" 2>/dev/null
	done
	ip link del sa 2>/dev/null
	rm -f /tmp/stress.*
}

# rounds NAME FUNC: FUNC again and again until the deadline; writes
# "rounds R failed F" to /tmp/stress.NAME, and FUNC's complaints of the
# first failed round to /tmp/stress.NAME.err.
rounds() {
	local name=$1 func=$2 r=0 f=0

	while [ "$(date +%s)" -lt "$deadline" ]; do
		r=$((r + 1))
		if ! "$func" "$r" >"/tmp/stress.$name.last" 2>&1; then
			f=$((f + 1))
			[ -s "/tmp/stress.$name.err" ] ||
				{ echo "round $r:"; cat "/tmp/stress.$name.last"; } \
					>"/tmp/stress.$name.err"
		fi
	done
	echo "rounds $r failed $f" >"/tmp/stress.$name"
}

# on_cpu CPU NAME FUNC: rounds NAME FUNC in the background, pinned to
# CPU; its PID joins churn_pids.
churn_pids=()
on_cpu() {
	local cpu=$1
	shift

	(taskset -pc "$cpu" "$BASHPID" >/dev/null && rounds "$@") &
	churn_pids+=("$!")
}

flow6() {
	printf 'in_port(1),eth(),eth_type(0x86dd),ipv6(src=2001:db8::%x)' "$1"
}

flows_round() {
	local f

	f=$(flow6 $(($1 % 4)))
	ovs-dpctl add-flow dp0 "$f" 2 &&
		ovs-dpctl mod-flow dp0 "$f" 1 &&
		ovs-dpctl dump-flows dp0 >/dev/null &&
		ovs-dpctl del-flow dp0 "$f"
}

vports_round() {
	local k=$(($1 % 4))

	ovs-dpctl add-if dp0 "v$k,port_no=1$k" &&
		ovs-dpctl add-if dp0 "i$k,type=internal,port_no=2$k" &&
		ovs-dpctl del-if dp0 "v$k" &&
		ovs-dpctl del-if dp0 "i$k"
}

# The datapath lets go of a removed device's port when the device goes;
# the in-tree module does it from a work item, so port 2 may be held a
# moment longer.
removal_round() {
	ip link del p2 &&
		veth_up p2 sink0 &&
		wait_for 50 ovs-dpctl add-if dp0 p2,port_no=2
}

dps_round() {
	local ns=st$1 flow='in_port(1),eth(),eth_type(0x0800),ipv4()'

	if [ $(($1 % 2)) = 0 ]; then
		ovs-dpctl add-dp dps &&
			ovs-dpctl add-if dps sa &&
			ovs-dpctl add-if dps si,type=internal &&
			ovs-dpctl add-flow dps "$flow" 2 &&
			ovs-dpctl del-dp dps
		return
	fi
	ip netns add "$ns" &&
		ip -n "$ns" link add na type veth peer name nb &&
		ip netns exec "$ns" ovs-dpctl add-dp dpn &&
		ip netns exec "$ns" ovs-dpctl add-if dpn na &&
		ip netns exec "$ns" ovs-dpctl add-if dpn ni,type=internal &&
		ip netns exec "$ns" ovs-dpctl add-flow dpn "$flow" 2 &&
		ip netns del "$ns"
}

# counted NAME: the churn's line, "rounds R failed F".
counted() {
	cat "/tmp/stress.$1" 2>/dev/null
}

# churned NAME: the churn made rounds and none failed.
churned() {
	local r f

	read -r _ r _ f <"/tmp/stress.$1" || return 1
	[ "$r" -gt 0 ] && [ "$f" = 0 ] && return 0
	cat "/tmp/stress.$1.err" 2>/dev/null
	return 1
}

rx() {
	cat "/sys/class/net/$1/statistics/rx_packets"
}

check "flow-churn is in the job" test -x "$CHURN"
check "STRESS_SECONDS ($seconds) is from 1 to 720" \
	eval "[[ '$seconds' =~ ^[0-9]+$ ]] && [ '$seconds' -ge 1 ] && [ '$seconds' -le 720 ]"
check "two CPUs to stress" test "$(nproc)" -ge 2
check "the veths" eval "links && veth_up sa sb &&
	for k in 0 1 2 3; do veth_up v\$k w\$k || exit 1; done"
check "dp0 with p1 and p2" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2,port_no=2"
# A gap between frames leaves CPU 0 time for its churns.
check "pktgen sends UDP into p1" pktgen_setup "delay 50000"
pktgen_start
p1_before=$(rx p1)

deadline=$(($(date +%s) + seconds))
t0=$(date +%s)
"$CHURN" swap dp0 "$seconds" 1 >/tmp/stress.swap 2>&1 &
swap_pid=$!
taskset -pc 1 "$swap_pid" >/dev/null
"$CHURN" dump dp0 "$seconds" >/tmp/stress.dump 2>&1 &
dump_pid=$!
taskset -pc 0 "$dump_pid" >/dev/null
on_cpu 1 flows flows_round
on_cpu 1 vports vports_round
on_cpu 0 removal removal_round
on_cpu 0 dps dps_round
wait "$swap_pid"
swap_rc=$?
wait "$dump_pid"
dump_rc=$?
# Not a bare wait: pktgen's writer runs in the background until the stop.
wait "${churn_pids[@]}"
took=$(($(date +%s) - t0))
tap_diag "stress: $took s, on $(nproc) CPUs"

for c in swap dump; do
	sed "s/^/# $c: /" "/tmp/stress.$c"
done
check_eq "swap: every delete and add of the frames' flows answered as expected" \
	0 "$swap_rc"
check "swap: made cycles" grep -Eq '^cycles [1-9]' /tmp/stress.swap
check_eq "dump: every dump answered" 0 "$dump_rc"
check "dump: made dumps" grep -Eq '^dumps [1-9]' /tmp/stress.dump
for c in flows vports removal dps; do
	tap_diag "$c: $(counted "$c")"
done
check "flows: added, modified, dumped, deleted, no round failed" churned flows
check "vports: added and deleted, no round failed" churned vports
check "removal: p2 removed under traffic and added again, no round failed" \
	churned removal
check "dps: made and destroyed, with the network namespace half the time, no round failed" \
	churned dps
check "frames entered p1 all along" test $(($(rx p1) - p1_before)) -ge "$seconds"

# flow-churn swap took its flows with it: one flow for all the frames.
check "a flow from port 1 to port 2" \
	ovs-dpctl add-flow dp0 'in_port(1),eth(),eth_type(0x0800),ipv4()' 2
sink_before=$(rx sink0)
sleep 2
check "dp0 still forwards to port 2" test "$(rx sink0)" -gt "$sink_before"
pktgen_stop
check_output "dp0 holds only its own ports" "0 1 2" \
	eval "ovs-dpctl show dp0 | sed -n 's/^ *port \([0-9]*\):.*/\1/p' | sort -n | xargs"
check_output "no datapath left but dp0" "system@dp0" ovs-dpctl dump-dps
check "dp0 deleted" ovs-dpctl del-dp dp0
check_unload
check "and the module loads again" dp_load "$ROAM_DATAPATH"
tally stress "$took"
