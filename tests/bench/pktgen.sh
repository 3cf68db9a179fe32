# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen.sh: the bench cases' traffic, sourced inside the test host.
#
#   pktgen                          host                          counted
#   [gen0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[sink0]
#
# links makes the veths; pktgen_setup puts gen0 on pktgen's first thread
# with 64-byte UDP frames for sink0 from random source ports, so that
# every frame has a new skb hash; pktgen_start and pktgen_stop run it;
# pktgen_cleanup undoes it all, dp0 too.

pg_pid=

# pg FILE COMMAND: one pktgen command; pktgen answers in FILE's Result.
pg() {
	printf '%s\n' "$2" >"/proc/net/pktgen/$1" || return 1
	[ "$1" = pgctrl ] || [ "$1" = kpktgend_0 ] ||
		grep -q '^Result: OK' "/proc/net/pktgen/$1" ||
		{ grep '^Result:' "/proc/net/pktgen/$1"; return 1; }
}

# pktgen_setup: gen0 on pktgen's first thread, frames for sink0.
pktgen_setup() {
	local setting

	modprobe pktgen || return 1
	pg kpktgend_0 rem_device_all || return 1
	pg kpktgend_0 "add_device gen0" || return 1
	for setting in "count 0" "clone_skb 0" "pkt_size 64" "delay 0" \
		"dst_mac $(cat /sys/class/net/sink0/address)" \
		"src_mac 02:00:00:00:00:01" \
		"dst 198.51.100.200" "src_min 198.51.100.1" \
		"src_max 198.51.100.1" "udp_dst_min 6000" \
		"udp_dst_max 6000" "udp_src_min 1024" "udp_src_max 65535" \
		"flag UDPSRC_RND"; do
		pg gen0 "$setting" || { echo "pktgen refused '$setting'"; return 1; }
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

# links: gen0-p1 and p2-sink0, up, without IPv6 (nothing but pktgen's
# frames crosses the datapath).
links() {
	local d

	ip link add gen0 type veth peer name p1 &&
		ip link add p2 type veth peer name sink0 || return 1
	for d in gen0 p1 p2 sink0; do
		sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1" &&
			ip link set "$d" up || return 1
	done
}

# pktgen_cleanup: traffic stopped, dp0 and the veths gone.
pktgen_cleanup() {
	pktgen_stop
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del gen0 2>/dev/null
	ip link del p2 2>/dev/null
	return 0
}
