# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Debian's ovs-vswitchd 3.1 drives the datapath: a bridge whose NORMAL
# action learns MACs from miss upcalls and installs megaflows by UFID.
#
#   ns1                          host                           ns2
#   [eth0]<--veth-->[p1]-- br0 (ovs-vswitchd, NORMAL) --[p2]<--veth-->[eth0]
#   198.51.100.1           datapath ovs-system                198.51.100.2
#
# ovs-vswitchd opens the datapath (feature negotiation, probes by UFID for
# what the module supports), adds the ports, answers the first packets'
# upcalls and installs flows for the rest: ping and a TCP transfer cross,
# the megaflows show up in its own dump and its counters show hits; the
# datapath goes with the bridge.  Like
# Open vSwitch's kernel-module system tests, the case fails on any WARN,
# ERR or EMER line in ovs-vswitchd.log, except those that only say the
# emulated CPU is slow: timeval's "Unreasonably long ...ms poll interval"
# with its rusage lines, and ovs_rcu's "blocked ... waiting".
# On the debug kernel the case skips: the ovs suite's debug boot
# (ovs-debug) runs Debian's ovs-vswitchd on ours there, its probes, a
# learning bridge and 2,000 connections' upcalls and megaflows, and
# more than this case does.

if [ "${ROAM_DEBUG_KERNEL:-0}" = 1 ]; then
	tap_ok "ovs-vswitchd drives the datapath # SKIP on the debug kernel: ovs-debug runs ovs-vswitchd on ours there"
	return 0
fi

# shellcheck source=../netns.sh
. ./netns.sh
# shellcheck source=../../lib/ovs.sh
. lib/ovs.sh

case_cleanup() {
	ovs-vsctl --timeout=10 --if-exists del-br br0
	"$OVS_CTL" stop
	ovs-dpctl del-dp ovs-system
	ns_del 1 2
	rm -f /tmp/vsd.*
}

ns_add 1
ns_add 2
rm -f "$VSWITCHD_LOG"
check "ovs-ctl starts ovsdb-server and ovs-vswitchd" \
	"$OVS_CTL" start --system-id=random --no-monitor
check "add-br br0 with ports p1 and p2" \
	ovs-vsctl --timeout=60 add-br br0 -- add-port br0 p1 -- add-port br0 p2
# ovs-vswitchd numbers the ports as it likes: compare the names.
check_eq "ovs-vswitchd made datapath ovs-system with br0, p1 and p2" \
	"$(printf 'br0 internal\novs-system internal\np1\np2')" \
	"$(dp_ports ovs-system | sort)"
mode=$(ovs-appctl dpif-netlink/dispatch-mode 2>&1)
check "ovs-vswitchd chose per-CPU upcall dispatch (got: $mode)" \
	grep -q 'per-cpu dispatch mode' <<<"$mode"

check "ping ns1 -> ns2 through the learning bridge" \
	nsx 1 ping -n -q -c 3 -i 0.3 -W 3 198.51.100.2
dump=$(ovs-appctl dpctl/dump-flows 2>/dev/null)
check "ovs-vswitchd installed megaflows for the echo requests" \
	grep -q 'eth_type(0x0800).* actions:[0-9]' <<<"$dump"
check "and reads them back from the datapath by UFID" \
	grep -q '^ufid:' <<<"$(ovs-appctl dpctl/dump-flows -m 2>/dev/null)"

head -c 65536 /dev/urandom >/tmp/vsd.src
check "a 64 KiB TCP transfer ns1 -> ns2 completes" \
	tcp_send 1 2 5003 /tmp/vsd.src
check_eq "the bytes arrive intact" \
	"$(sha256sum </tmp/vsd.src)" "$(sha256sum </tmp/vsd.src.rcvd)"
check "the datapath counted flow hits" \
	positive "$(ovs-dpctl show ovs-system |
		sed -n 's/.*lookups: hit:\([0-9]*\).*/\1/p')"

check "del-br br0" ovs-vsctl --timeout=60 del-br br0
check_fails "ovs-vswitchd deleted the datapath with its last bridge" \
	ovs-dpctl show ovs-system
check "ovs-ctl stops ovs-vswitchd and ovsdb-server" "$OVS_CTL" stop
check "ovs-vswitchd.log has no WARN, ERR or EMER" no_log_problems
