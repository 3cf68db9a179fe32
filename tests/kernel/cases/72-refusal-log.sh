# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel log line userspace tests look for when a flow is refused for
# its actions: "Flow actions may not be safe on all matching packets.",
# once for each such NEW, and for nothing else.
#
#   host: dp0 with ports p1 (1) and p2 (2), cabled to nothing that sends
#
# Four NEWs refused for their actions (a set that changes the IPv4
# protocol, clones nested 17 deep, output to port 65536, a trunc shorter
# than an Ethernet header) each add one line.  A NEW refused for its key
# (an ARP opcode past 255), a SET refused for its actions (which the
# in-tree module reports in other words) and an accepted flow add none.
# Groups are spaced out by the kernel's 5 s log rate limit, which refusals
# share with every other rate-limited network message.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	ovs-dpctl del-dp dp0
	ns_del 1 2
}

unsafe_lines() {
	local log

	log=$(dmesg) || return 1
	grep -c 'Flow actions may not be safe on all matching packets\.' \
		<<<"$log" || true
}

# refused_by_kernel FLOW ACTIONS [mod-flow]: ovs-dpctl's put (or modify)
# fails with the kernel's EINVAL or EOVERFLOW.
refused_by_kernel() {
	local out

	out=$(ovs-dpctl "${3:-add-flow}" dp0 "$1" "$2" 2>&1) && return 1
	grep -Eq 'updating flow table \((Invalid argument|Value too large)' <<<"$out" ||
		{ echo "$out"; return 1; }
}

ns_add 1
ns_add 2
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

tcp='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2,proto=6,tos=0,ttl=64,frag=no),tcp(),tcp_flags(0)'
deep=$(printf 'clone(%.0s' $(seq 17))1$(printf ')%.0s' $(seq 17))
sleep 5
n=$(unsafe_lines)
while IFS='|' read -r what acts; do
	check "NEW refused: $what" refused_by_kernel "$tcp" "$acts"
	n=$((n + 1))
	check_output "one more refusal line" "$n" unsafe_lines
done <<EOT
a set of the IPv4 protocol|set(ipv4(src=198.51.100.1,dst=198.51.100.2,proto=17,tos=0,ttl=64,frag=no)),2
clones nested 17 deep|$deep
output to port 65536|65536
trunc(10)|trunc(10),2
EOT

sleep 5
check "NEW refused for its key: ARP opcode 256" refused_by_kernel \
	'in_port(1),eth(),eth_type(0x0806),arp(op=256)' 2
check_output "no refusal line for it" "$n" unsafe_lines
check "an accepted flow" ovs-dpctl add-flow dp0 "$tcp" 2
check "SET refused for its actions" refused_by_kernel "$tcp" 'trunc(10),2' \
	mod-flow
check_output "no refusal line for either" "$n" unsafe_lines
check "the flow kept its actions" eval \
	"ovs-dpctl dump-flows dp0 | grep 'actions:2\$' >/dev/null"
