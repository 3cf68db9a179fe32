# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen.sh: the bench cases' traffic, sourced inside the test host.
#
#   pktgen                          host                          counted
#   [gen0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[sink0]
#
# links makes the veths; pktgen_setup puts gen0 on pktgen's first thread
# with 64-byte UDP frames for sink0, by default from 198.51.100.1 to
# 198.51.100.200 port 6000 from random source ports, so that every frame
# has a new skb hash; pktgen_start and pktgen_stop run it; pktgen_cleanup
# undoes it all, dp0 too.
#
# With pktgen_into=p1 (the forwarding and L2 cases), pktgen hands the
# same frames to p1's receive path itself (its xmit_mode netif_receive),
# on its own thread, so that the switch runs at pktgen's pace.  Sent
# through gen0, the frames wait in p1's backlog and then sink0's, and when
# that softirq work moves to ksoftirqd, sink0's backlog overflows and up
# to half of what the switch forwarded is dropped there (seen on
# 2026-12-07: 7.5k against 15.0k frames a second in alternate 2 s windows
# of one boot, 14.7k frames dropped at sink0 in a slow one).  p1's own
# counters do not see frames handed to it so.

pg_pid=
pktgen_into=

# pg FILE COMMAND: one pktgen command; pktgen answers in FILE's Result.
pg() {
	printf '%s\n' "$2" >"/proc/net/pktgen/$1" || return 1
	[ "$1" = pgctrl ] || [ "$1" = kpktgend_0 ] ||
		grep -q '^Result: OK' "/proc/net/pktgen/$1" ||
		{ grep '^Result:' "/proc/net/pktgen/$1"; return 1; }
}

# pktgen_setup [SETTING...]: gen0 (or $pktgen_into) on pktgen's first
# thread, frames for sink0; the SETTINGs (pktgen's words: "src_max
# 198.51.100.63", "flag IPSRC_RND", "flag !UDPSRC_RND") come after the
# defaults, so they win.  Called again, it starts over from the defaults.
pktgen_setup() {
	local dev=${pktgen_into:-gen0} mode=() setting

	[ -z "$pktgen_into" ] || mode=("xmit_mode netif_receive")
	modprobe pktgen || return 1
	pg kpktgend_0 rem_device_all || return 1
	pg kpktgend_0 "add_device $dev" || return 1
	for setting in ${mode[@]+"${mode[@]}"} "count 0" "clone_skb 0" \
		"pkt_size 64" "delay 0" \
		"dst_mac $(cat /sys/class/net/sink0/address)" \
		"src_mac 02:00:00:00:00:01" \
		"dst 198.51.100.200" "src_min 198.51.100.1" \
		"src_max 198.51.100.1" "udp_dst_min 6000" \
		"udp_dst_max 6000" "udp_src_min 1024" "udp_src_max 65535" \
		"flag UDPSRC_RND" "$@"; do
		pg "$dev" "$setting" || { echo "pktgen refused '$setting'"; return 1; }
	done
}

# pktgen_start / pktgen_stop: "start" blocks its writer until "stop".
pktgen_start() {
	pg pgctrl start &
	pg_pid=$!
}

pktgen_stop() {
	[ -n "$pg_pid" ] || return 0
	pg pgctrl stop
	wait "$pg_pid" 2>/dev/null
	pg_pid=
}

# veth_up A B: a veth pair A-B, both ends up, without IPv6 (nothing but
# pktgen's frames crosses the datapath).
veth_up() {
	local d

	ip link add "$1" type veth peer name "$2" || return 1
	for d in "$1" "$2"; do
		sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1" &&
			ip link set "$d" up || return 1
	done
}

# links: gen0-p1 and p2-sink0.
links() {
	veth_up gen0 p1 && veth_up p2 sink0
}

# pktgen_cleanup: traffic stopped, dp0 and the veths gone.
pktgen_cleanup() {
	pktgen_stop
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del gen0 2>/dev/null
	ip link del p2 2>/dev/null
	return 0
}

# rate DP CASE MASKS ROUND: the frames pktgen_setup set up, sent for
# BENCH_WARMUP seconds (default 5: longer than either module's mask
# reordering period, ours 1 s and the in-tree one 4 s), then counted at
# sink0 over BENCH_SECONDS (3): one JSON line on stdout, for
# tests/bench/report.py.  DP is the switch between p1 and p2: ours or
# in-tree (dp0, whose lookup counters give masks_per_packet), bridge or
# flower.  Fails, saying why on stdout, when sink0 got nothing.
rate() {
	local module=0 r0 r1 t0 t1 s0='' s1=''

	case $1 in ours | in-tree) module=1 ;; esac
	pktgen_start
	sleep "${BENCH_WARMUP:-5}"
	[ "$module" = 0 ] || s0=$(dp_lookups dp0)
	r0=$(rx_sink) t0=$(date +%s%N)
	sleep "${BENCH_SECONDS:-3}"
	[ "$module" = 0 ] || s1=$(dp_lookups dp0)
	r1=$(rx_sink) t1=$(date +%s%N)
	pktgen_stop
	if [ "$module" = 1 ] && { [ -z "$s0" ] || [ -z "$s1" ]; }; then
		echo "no lookups or masks line in ovs-dpctl show"
		return 1
	fi
	[ "$r1" -gt "$r0" ] || { echo "sink0 received nothing"; return 1; }
	python3 - "$@" "$r0" "$r1" "$t0" "$t1" "$s0" "$s1" <<-'EOT'
		import json, sys
		dp, case, masks, rnd, r0, r1, t0, t1, s0, s1 = sys.argv[1:]
		row = {"case": case, "masks": int(masks), "datapath": dp,
		       "round": int(rnd),
		       "pps": round((int(r1) - int(r0)) * 1e9 / (int(t1) - int(t0)))}
		if s0:
		    (h0, m0, k0), (h1, m1, k1) = ([int(x) for x in s.split()]
		                                  for s in (s0, s1))
		    lookups = h1 + m1 - h0 - m0
		    row["masks_per_packet"] = (round((k1 - k0) / lookups, 3)
		                               if lookups else None)
		print(json.dumps(row))
	EOT
}

rx_sink() {
	cat /sys/class/net/sink0/statistics/rx_packets
}
