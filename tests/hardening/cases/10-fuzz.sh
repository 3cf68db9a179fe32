# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 14400
#
# The Generic Netlink fuzzer against the module of this pass, while
# another datapath forwards.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                  |(3)                     198.51.100.2
#                               [p3]<--veth-->[fz0]  mutated frames in
#
#   fzdp: genl-fuzz's own datapath, the target of every request
#
# bin/genl-fuzz (tests/tools/genl-fuzz.c) sends FUZZ_COUNT mutated
# requests per family (default 1,000; on ours our roam_redirect family
# too, redirects of fzdp's ports) to its own datapath fzdp, then
# FUZZ_COUNT mutated frames out of fz0 into dp0's port 3.  The seed is
# FUZZ_SEED, or the clock's; it is printed, and `FUZZ_SEED=S` repeats a
# run.  Pass: every request answered, fzdp gone at the end, dp0 still
# forwarding, and (the harness's) a clean kernel log; on the debug
# kernel, KASAN, lockdep and kmemleak too.  The same on the in-tree
# module, so that a finding is known to be ours or not.  The limit fits
# the full length (200,000 per family, hardening/full.sh); a short run
# is bounded by its boot's own limit.  Each file of findings/ (requests
# a fuzzer run found answered otherwise than by the in-tree module) is
# replayed and must be answered as it records.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../tally.sh
. ./tally.sh

FUZZ=$PWD/bin/genl-fuzz
count=${FUZZ_COUNT:-1000}
seed=${FUZZ_SEED:-$(date +%s%N | cut -c1-15)}

case_cleanup() {
	ovs-dpctl del-dp fzdp 2>/dev/null
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del p3 2>/dev/null
	ns_del 1 2
	rm -f /tmp/fuzz.*
}

# pings: ns1 reaches ns2 across dp0.
pings() {
	nsx 1 "${PING[@]}" -c 1 198.51.100.2 >/dev/null
}

check "the genl-fuzz tool is in the job" test -x "$FUZZ"
ns_add 1
ns_add 2
ip link add p3 type veth peer name fz0
ip link set p3 up
ip link set fz0 up
check "dp0 with p1, p2 and p3" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2 &&
	ovs-dpctl add-if dp0 p3"
check "flows between ports 1 and 2" add_flows dp0 \
	'in_port(1),eth(),eth_type(0x0806),arp()' 2 \
	'in_port(2),eth(),eth_type(0x0806),arp()' 1 \
	'in_port(1),eth(),eth_type(0x0800),ipv4()' 2 \
	'in_port(2),eth(),eth_type(0x0800),ipv4()' 1
check "ns1 pings ns2 before" pings

ovs-dpctl dump-dps | sort >/tmp/fuzz.dps
tap_diag "genl-fuzz --seed $seed --count $count --frames fz0"
check "genl-fuzz: every request answered, fzdp made and removed" \
	eval "'$FUZZ' --seed '$seed' --count '$count' --frames fz0 >/tmp/fuzz.out"
sed 's/^/# /' /tmp/fuzz.out
# our roam_redirect family too; the in-tree module has none, and says so
if dp_is ours; then
	check "the roam_redirect family was fuzzed" \
		grep -Eq '^family redirect: [1-9][0-9]* requests' /tmp/fuzz.out
else
	check "the in-tree module has no roam_redirect family to fuzz" \
		grep -q '^family redirect: not in this module' /tmp/fuzz.out
fi
check_fails "fzdp is gone" ovs-dpctl show fzdp
for finding in findings/*; do
	check "finding ${finding##*/} answers as recorded (genl-fuzz --replay)" \
		"$FUZZ" --replay "$finding"
done
# Mutated names make datapaths of their own now and then: valid requests.
for dp in $(ovs-dpctl dump-dps | sort | comm -13 /tmp/fuzz.dps -); do
	tap_diag "a fuzzed request made $dp: deleted"
	ovs-dpctl del-dp "$dp"
done
check_output "no datapath left but dp0" "system@dp0" ovs-dpctl dump-dps
check_output "it fuzzed all four openvswitch families" 4 \
	grep -cE '^family (datapath|vport|flow|packet): [0-9]+ requests' /tmp/fuzz.out
check "and sent its frames" grep -q "^frames on fz0: [1-9]" /tmp/fuzz.out
check_output "dp0 still has its three ports" 3 port_no dp0 p3
check "ns1 still pings ns2 across dp0" pings
requests=$(awk '/^family /{n += $3} END {print n + 0}' /tmp/fuzz.out)
frames=$(sed -n 's/^frames on [^:]*: \([0-9]*\) sent.*/\1/p' /tmp/fuzz.out)
tap_diag "fuzzed $requests requests and ${frames:-no} frames, seed $seed"
tally fuzzed $((requests + ${frames:-0}))
