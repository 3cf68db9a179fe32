# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# A port whose device swaps its qdisc (kernel/txhold.h): a stream goes
# through the datapath to p2 while the host adds and removes p2's ingress
# qdisc, as ovs-vswitchd does to set a port's policing, and changes its
# txqueuelen.  Each swap leaves p2 without a qdisc for a moment, and
# dev_queue_xmit() drops what comes then.  Our datapath holds those
# frames and sends them after: every datagram arrives, in order, and p2
# counts no drop.  The in-tree module loses them; its count is printed,
# not judged (it depends on where the swaps fall).  Then p2's port is
# removed, and later p2 deleted, while swaps run under a stream: what
# the port holds then goes with it, counted as p2's tx_dropped.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1  sender                   tc qdisc add/del  198.51.100.2
#                                          ip link txqueuelen receiver

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	[ -z "${receiver:-}" ] || kill "$receiver" 2>/dev/null
	[ -z "${stream:-}" ] || stream_stop
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/qswap.*
	[ -z "${backlog:-}" ] || sysctl -qw net.core.netdev_max_backlog="$backlog"
}

# swaps N: N times, p2's ingress qdisc added and removed, then its
# txqueuelen changed, 30 ms apart: 3 qdisc swaps a round.
swaps() {
	local i

	for ((i = 0; i < $1; i++)); do
		tc qdisc add dev p2 ingress && sleep 0.03 &&
			tc qdisc del dev p2 ingress && sleep 0.03 &&
			ip link set p2 txqueuelen $((1000 + i % 2)) && sleep 0.03 ||
			return 1
	done
}

# out_of_order: each pair of datagrams that arrived the wrong way round.
out_of_order() {
	awk '{ for (i = 2; i <= NF; i++) if ($i < $(i - 1)) print $(i - 1), $i }' \
		/tmp/qswap.got
}

# p2_tx_dropped: what p2 counted as dropped on transmit: the hold's drops
# and veth's, which include those at the peer's full backlog.
p2_tx_dropped() {
	cat /sys/class/net/p2/statistics/tx_dropped
}

# backlog_dropped: frames every CPU's backlog turned away, full
# (/proc/net/softnet_stat's second column): where a veth's drops at its
# peer are seen apart from the hold's.
backlog_dropped() {
	local n=0 drops

	while read -r _ drops _; do
		n=$((n + 0x$drops))
	done </proc/net/softnet_stat
	echo "$n"
}

# send_stream PORT PER_MS STOP: ns1 sends PER_MS datagrams a millisecond to
# ns2's PORT, each starting with its sequence number, until the file STOP
# exists; then prints how many it sent.  One CPU for it, so for the whole
# path: frames from two CPUs may overtake each other in the per-CPU
# backlogs veth hands them to.
send_stream() {
	rm -f "$3"
	nsx 1 taskset -c 0 python3 -c '
import os, socket, struct, sys, time
port, per_ms, stop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n = 0
while not os.path.exists(stop):
    for _ in range(per_ms):
        s.sendto(struct.pack("!I", n) + bytes(28), ("198.51.100.2", port))
        n += 1
    time.sleep(0.001)
print(n)
' "$@"
}

# stream_start, stream_stop: 8 datagrams a millisecond to ns2, so that
# most swaps, each a fraction of a millisecond without a qdisc, have
# frames to hold.
stream_start() {
	send_stream 9001 8 /tmp/qswap.stream-stop >/dev/null &
	stream=$!
	sleep 0.3
}

stream_stop() {
	touch /tmp/qswap.stream-stop
	wait "$stream"
	stream=
}

# swaps_file N: /tmp/qswap.batch, N txqueuelen changes of p2 (each a
# qdisc swap) for `ip -batch`, which takes RTNL and gives it back for
# each.
swaps_file() {
	local i

	for ((i = 0; i < $1; i++)); do
		echo "link set p2 txqueuelen $((1100 + i % 2))"
	done >/tmp/qswap.batch
}

# swaps_batch N: N swaps back to back.
swaps_batch() {
	swaps_file "$1" && ip -batch /tmp/qswap.batch
}

# during_swaps CMD...: CMD while a batch of swaps runs, which stops with
# CMD; returns CMD's status.
during_swaps() {
	local batch rc=0

	swaps_file 500 || return 1
	ip -batch /tmp/qswap.batch 2>/dev/null &
	batch=$!
	sleep 0.2
	"$@" || rc=$?
	kill "$batch" 2>/dev/null
	wait "$batch"
	return "$rc"
}

# readd_p2: p2 back in dp0, as port 2, where the flow sends.
readd_p2() {
	ovs-dpctl add-if dp0 p2 && [ "$(port_no dp0 p2)" = 2 ]
}

# removed_holding TRIES: p2's port removed amid swaps until p2 counts a
# drop, at most TRIES times (the removal may come after the timer sent on
# what the last swap held); each try but the first puts p2 back as port
# 2.  Says how it went in /tmp/qswap.removal.
removed_holding() {
	local i before

	for ((i = 1; i <= $1; i++)); do
		[ "$i" -eq 1 ] || readd_p2 || return 1
		before=$(p2_tx_dropped)
		during_swaps ovs-dpctl del-if dp0 p2 || return 1
		echo "$i of $1 tries, $(($(p2_tx_dropped) - before)) dropped at the last" \
			>/tmp/qswap.removal
		[ "$(p2_tx_dropped)" -eq "$before" ] || return 0
	done
	return 1
}

rm -f /tmp/qswap.*
# What the hold sends on when a swap ends goes at once into its CPU's
# backlog (netif_rx() from p2 to ns2), which the stream fills too.  On
# the debug kernel beside other hosts a swap may last most of a second,
# the hold grows toward its bound (p2's txqueuelen, 1,000), and the
# default backlog of 1,000 may overflow: room for two holds, so that any
# loss left is the hold's.
backlog=$(sysctl -n net.core.netdev_max_backlog)
check "a CPU's backlog takes two full holds" \
	sysctl -qw net.core.netdev_max_backlog=2048
ns_add 1
ns_add 2
check "add-dp dp0 with p1 and p2" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
nsx 1 ip neigh replace 198.51.100.2 lladdr 02:00:00:00:00:02 dev eth0
check "a flow from p1 to p2 for IPv4" add_flows dp0 \
	'in_port(1),eth(),eth_type(0x0800),ipv4()' 2

# The receiver prints the sequence numbers it got, in arrival order,
# once 3 s pass without a datagram.
nsx 2 python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind(("198.51.100.2", 9000))
open("/tmp/qswap.ready", "w").close()
s.settimeout(30)
got = []
try:
    while True:
        got.append(struct.unpack("!I", s.recv(64)[:4])[0])
        s.settimeout(3)
except socket.timeout:
    pass
print(" ".join(map(str, got)))
' >/tmp/qswap.got &
receiver=$!
check "the receiver is ready" wait_for 50 test -e /tmp/qswap.ready

# The sender sends one datagram a millisecond until told to stop.
dropped=$(p2_tx_dropped)
backlog_was=$(backlog_dropped)
send_stream 9000 1 /tmp/qswap.stop >/tmp/qswap.sent &
sender=$!
# 60 swaps; 30 on the debug kernel, where each tc or ip run takes most of
# a second (kernel-debug is CI's longest test)
rounds=20
[ "${ROAM_DEBUG_KERNEL:-0}" != 1 ] || rounds=10
check "p2's qdiscs swapped $((3 * rounds)) times under the stream" swaps "$rounds"
touch /tmp/qswap.stop
wait "$sender"
wait "$receiver"
check "the receiver is done" test "$?" -eq 0
receiver=

sent=$(cat /tmp/qswap.sent)
got=$(wc -w </tmp/qswap.got)
tap_diag "$ROAM_DATAPATH: $got of $sent datagrams arrived while p2's qdiscs were swapped;" \
	"p2 counted $(($(p2_tx_dropped) - dropped)) dropped," \
	"the backlogs $(($(backlog_dropped) - backlog_was))"
# the stream must have run, or nothing was tested
check "the stream ran through the swaps: 500 datagrams at least" \
	test "$sent" -ge 500
if [ "$ROAM_DATAPATH" = ours ]; then
	check_eq "every datagram arrived" "$sent" "$got"
	check_output "in the order sent" "" out_of_order
	check_eq "p2 counted no drop" 0 $(($(p2_tx_dropped) - dropped))
fi

# p2's port removed while it holds frames.  The removal waits for RTNL
# while a batch of swaps runs, and may get it as one ends, before the
# hold's timer (a jiffy) sends on what that swap held: then the detach
# drops it and counts it as p2's tx_dropped.  Whether a try gets there is
# a race with the timer, so it is printed, not judged; the removal itself
# is (and on the debug kernel, KASAN and kmemleak watch the frames and
# the timer).  The control first: the same swaps under the same stream,
# nothing removed: the hold never overflows, so p2 counts nothing.
stream_start
dropped=$(p2_tx_dropped)
check "control: 20 swaps of p2's qdisc under a stream of 8 datagrams a ms" \
	swaps_batch 20
check_eq "... and p2 counted no drop" 0 $(($(p2_tx_dropped) - dropped))
# ours: 5 tries; 1 on the in-tree module, which holds nothing, and on
# the debug kernel, whose wake-ups are slower than a jiffy (none of 15
# tries there got the removal ahead of the timer)
tries=1
[ "$ROAM_DATAPATH" != ours ] || [ "${ROAM_DEBUG_KERNEL:-0}" = 1 ] || tries=5
removed_holding "$tries" || true
tap_diag "$ROAM_DATAPATH: p2's port removed amid swaps: $(cat /tmp/qswap.removal)"
check "p2's port left dp0" no_port dp0 p2

# And the device deleted amid swaps: the device notifier detaches the
# port, and what it held goes with it; the datapath goes on.
check "p2 back in dp0 as port 2" readd_p2
check "p2 deleted amid swaps of its qdisc" during_swaps ip link del p2
stream_stop
check "p2's port left dp0 with it" wait_for 50 no_port dp0 p2
check_eq "dp0 keeps p1" 1 "$(port_no dp0 p1)"
