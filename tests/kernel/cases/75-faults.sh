# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# Failures the datapath meets only under memory pressure, forced with our
# module's fault injection points (/sys/kernel/debug/roamswitch, kernels
# with CONFIG_FAULT_INJECTION_DEBUG_FS: the debug kernel).  The in-tree
# module has no such points, and neither has ours on the host kernel: the
# case then skips.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                 |                         198.51.100.2
#             bin/flow-churn put, bin/flow-churn dump
#
# Part 1: fail_flow_insert fails every flow's match-table insert, each
# after 10 ms in flight.  While flow-churn dumps the table without pause,
# 300 puts must each get ENOMEM, and no dump may show any of their flows:
# an insert that fails must not have published its flow to dumps (and a
# dump reading a flow whose failed insert cleared its mask would crash).
# Afterwards the table holds no flow and no mask, and with the point off
# the same 300 puts succeed: no UFID was left behind.  Part 2: fail_trunc
# fails the trim of a trunc(100) once; that packet must be dropped, not
# sent whole, and the next one leaves cut to 100 bytes.  Part 3: the
# flow cache names a flow by its dump slot, and an insert takes its slot
# at its first step.  Pings from ns1 go through a flow, which is then
# deleted: the per-CPU cache still names its slot.  With every insert
# failing, the same flow is put again and again, each time in that slot
# for 10 ms, while ns1 pings on: no ping may pass through a flow whose
# insert fails.  The control: with the point off, the flow put once more
# passes them.

# shellcheck source=../netns.sh
. ./netns.sh

CHURN=$PWD/bin/flow-churn
FAULTS=/sys/kernel/debug/roamswitch
dump_pid=

case_cleanup() {
	tcpdump_stop
	[ -z "$dump_pid" ] || kill "$dump_pid" 2>/dev/null
	fault_off fail_flow_insert
	fault_off fail_trunc
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/faults.*
}

# fault_on NAME TIMES: fail every time at point NAME, TIMES times (-1:
# until turned off), silently.
fault_on() {
	local d=$FAULTS/$1

	echo 0 >"$d/verbose" && echo 1 >"$d/interval" &&
		echo "$2" >"$d/times" && echo 100 >"$d/probability"
}

fault_off() {
	[ -w "$FAULTS/$1/probability" ] || return 0
	echo 0 >"$FAULTS/$1/probability"
}

# show DP WHAT: "flows: N" or the masks line of ovs-dpctl show.
show() {
	ovs-dpctl show "$1" | sed -n "s/^ *$2: //p"
}

mountpoint -q /sys/kernel/debug ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The debug kernel has CONFIG_FAULT_INJECTION_DEBUG_FS: there, ours must
# have its points, or the case fails instead of skipping.
if dp_is ours && [ "${ROAM_DEBUG_KERNEL:-0}" = 1 ]; then
	check "our module has its fault points on the debug kernel" test -d "$FAULTS"
fi
if ! dp_is ours || [ ! -d "$FAULTS" ]; then
	tap_ok "fault injection # SKIP no fault points: the in-tree module, or a kernel without CONFIG_FAULT_INJECTION_DEBUG_FS"
	return 0
fi

check "the flow-churn tool is in the job" test -x "$CHURN"
ns_add 1
ns_add 2
ns_neigh 1 2
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

# Part 1.
check "fail_flow_insert on" fault_on fail_flow_insert -1
"$CHURN" dump dp0 8 >/tmp/faults.dump 2>&1 &
dump_pid=$!
check_output "300 puts, every insert failing" \
	"$(printf 'put OK 0\nput ENOMEM 300\nput other 0')" \
	"$CHURN" put dp0 300
wait "$dump_pid"
check_eq "the dumps ran to the end" 0 "$?"
dump_pid=
sed 's/^/# /' /tmp/faults.dump
check "the table was dumped again and again" \
	grep -Eqx 'dumps ([2-9]|[1-9][0-9]+)' /tmp/faults.dump
check_output "no dump showed a flow whose insert failed" \
	"$(printf 'flows 0\nmaskless 0')" grep -E '^(flows|maskless) ' /tmp/faults.dump
check "fail_flow_insert off" fault_off fail_flow_insert
check_output "no flow is left" 0 show dp0 flows
check_output "and no mask" total:0 \
	eval "show dp0 masks | grep -o 'total:[0-9]*'"
check_output "the same puts now succeed" \
	"$(printf 'put OK 300\nput ENOMEM 0\nput other 0')" \
	"$CHURN" put dp0 300
check_output "300 flows" 300 show dp0 flows
check "del-flows" ovs-dpctl del-flows dp0

# Part 2.
check "add trunc(100),2 for ICMP 1->2" add_flows dp0 \
	'in_port(1),eth(),eth_type(0x0800),ipv4(proto=1),icmp()' 'trunc(100),2'
check "fail_trunc on, once" fault_on fail_trunc 1
tcpdump_start 2 /tmp/faults.trunc icmp
check_fails "two 542-byte echo requests, cut short: no reply" \
	nsx 1 ping -n -q -c 2 -i 0.5 -W 1 -s 500 198.51.100.2
tcpdump_stop
check "fail_trunc off" fault_off fail_trunc
check_output "ns2 got one of them, cut to 100 bytes" 1 \
	grep -c 'length 100: ' /tmp/faults.trunc
check_absent "and never one whole" 'length 542: ' /tmp/faults.trunc

# Part 3.
ICMP12='in_port(1),eth(),eth_type(0x0800),ipv4(proto=1),icmp()'
check "del-flows" ovs-dpctl del-flows dp0
check "ns2 knows ns1's address" ns_neigh 2 1
check "ICMP 1->2 to port 2, then ICMP 2->1 to port 1" add_flows dp0 \
	"$ICMP12" 2 'in_port(2),eth(),eth_type(0x0800),ipv4(proto=1),icmp()' 1
check "ns1 pings ns2 through them" nsx 1 ping -n -q -c 3 -i 0.2 -W 2 198.51.100.2
check "the flow for ICMP 1->2 is deleted" ovs-dpctl del-flow dp0 "$ICMP12"
check "fail_flow_insert on" fault_on fail_flow_insert -1
tcpdump_start 2 /tmp/faults.cache icmp
# one ovs-dpctl for every put: 200 inserts in flight one after another
for _ in $(seq 200); do echo "$ICMP12 2"; done | put_flows dp0 >/tmp/faults.puts &
puts_pid=$!
sleep 0.3
nsx 1 ping -n -q -c 100 -i 0.02 -W 1 198.51.100.2 >/tmp/faults.ping 2>&1
wait "$puts_pid"
tcpdump_stop
check "fail_flow_insert off" fault_off fail_flow_insert
tap_diag "while ns1 pinged: $(grep -o '[0-9]* packets transmitted' /tmp/faults.ping)"
check_output "the 200 puts of the flow failed" 200 \
	eval "grep -c '^ovs-dpctl: ' /tmp/faults.puts || true"
check_output "ns2 got no ping through a flow whose insert failed" 0 \
	eval "grep -c 'ICMP echo request' /tmp/faults.cache || true"
check "the flow is put once more" add_flows dp0 "$ICMP12" 2
check "ns1 pings ns2 through it (the control)" \
	nsx 1 ping -n -q -c 3 -i 0.2 -W 2 198.51.100.2
