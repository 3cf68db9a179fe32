#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# roam-port and the two hooks on the build machine, with ovs-vsctl, virsh
# and ip stand-ins that log their calls (stubs.sh) and the xenstore test
# double: what each one asks Open vSwitch to do, and in how many
# transactions, before the vif suite shows it on a real one.
#   - a record is checked without touching OVSDB: good ones pass, bad ones
#     fail with one line;
#   - add and apply are one ovs-vsctl call (one transaction), with the
#     VLANs on add-port itself; started applies all but the VLANs;
#   - a bad spec or name never reaches ovs-vsctl;
#   - the migrate filter rewrites <vlan> from the record, and prints
#     nothing for a domain without records; prepare refuses a bad record;
#   - the installed qemu hook runs roam-port for those operations and for
#     started, and ends the others (start, stopped, release) itself;
#   - records with OpenFlow rules: started installs them renumbered for
#     the new port, drop-flows deletes them by their exact matches (a
#     cookie matched) and the agent's delivery rules for the MAC; a
#     capture leaves those out;
#   - the Xen-style hook's online makes one transaction and writes
#     hotplug-status connected; a failure writes error and hotplug-error.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=stubs.sh
. "$top/tests/unit/stubs.sh"

# ovs-vsctl: a find (roam-port's read of its own QoS rows) prints an empty
# table; anything else succeeds silently, or fails if $STUB_VSCTL_FAIL says.
# shellcheck disable=SC2016 # expanded by the stub
stub ovs-vsctl '
[ -z "${STUB_VSCTL_FAIL:-}" ] || { echo "ovs-vsctl: $STUB_VSCTL_FAIL" >&2; exit 1; }
case " $* " in
*" find "*) echo "{\"data\":[],\"headings\":[\"_uuid\"]}" ;;
*" port-to-br "*) echo br0 ;;
*" get Interface "*" ofport "*) echo 9 ;;
esac'
# ovs-ofctl: dump-flows prints $scratch/ofctl.dump; anything else writes
# what it was given on stdin to $scratch/ofctl.in.
# shellcheck disable=SC2016 # expanded by the stub
stub ovs-ofctl '
case " $* " in
*" dump-flows "*) cat "$(dirname "$STUB_LOG")/ofctl.dump" ;;
*) cat >"$(dirname "$STUB_LOG")/ofctl.in" ;;
esac'
stub ip 'exit 0'
export PATH=$stubs:$PATH
export ROAM_XENSTORE=$scratch/xenstore
for t in read write rm; do
	ln -s "$top/tests/vif/xenstore/xenstore-double" "$stubs/xenstore-$t"
done
port=$top/vif-scripts/roam-port
xen=$scratch/vif-roamswitch
sed "s|@ROAM_PORT@|$port|" "$top/vif-scripts/vif-roamswitch.in" >"$xen"
chmod +x "$xen"
# the qemu hook runs roam-port through a stub that logs the call
qemu=$scratch/qemu-hook
stub roam-port "exec '$port' \"\$@\""
sed "s|@ROAM_PORT@|$stubs/roam-port|" "$top/vif-scripts/qemu-hook.in" >"$qemu"
chmod +x "$qemu"

# calls NAME: the logged calls of NAME but roam-port's QoS reads.
calls() {
	grep "^$1 " "$STUB_LOG" | grep -v ' find QoS ' || true
}

# refused_line CMD...: CMD fails with exactly one line on stderr.
refused_line() {
	local err rc=0

	err=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" -ne 1 ] || [ -z "$err" ] || [ "$(grep -c '' <<<"$err")" -ne 1 ]; then
		echo "exit $rc, stderr: $err"
		return 1
	fi
}

good='{"version": 1, "vlan": {"mode": "native-untagged", "tag": 10, "trunks": [20, 30]}, "external_ids": {"iface-id": "a"}, "ingress_policing_rate": 100, "ofport_request": 7}'
check "check: a good record passes" eval "'$port' check <<<'$good'"
for bad in '{"version": 1, "vlan": {"tag": 4095}}' '{"version": 1, "vlan": {"tag": 0}}' \
	'{"version": 1, "vlan": {"tag": 10, "trunks": [20]}}' '{"version": 1, "vlan": {' \
	'{"version": 1, "qos": {"type": ""}}' '{"version": 1, "ofport_request": 70000}'; do
	check "check refuses $bad with one line" eval "refused_line '$port' check <<<'$bad'"
done
check_output "and never called ovs-vsctl" "" calls ovs-vsctl

: >"$STUB_LOG"
check "add: br0.10:20:30 p0 with an iface-id" \
	"$port" add --external-id iface-id=x br0.10:20:30 p0
check_output "one ovs-vsctl transaction" 1 eval "calls ovs-vsctl | grep -c ."
check "its add-port carries the VLANs" \
	eval "calls ovs-vsctl | grep -F -- '-- --may-exist add-port br0 p0 tag=10 trunks=20,30 vlan_mode=native-untagged --'"
check "and the iface-id" \
	eval "calls ovs-vsctl | grep -F -- 'set Interface p0 external_ids:\"iface-id\"=\"x\"'"

: >"$STUB_LOG"
for spec in br0.0 br0.4095 br0.4096 br0.x br0: br0:5:5 'b r' 'br0;x'; do
	check "add refuses spec '$spec' with one line" refused_line "$port" add "$spec" p0
done
check "add refuses a 16-character name" refused_line "$port" add br0 p0123456789abcde
check_output "none of them called ovs-vsctl" "" calls ovs-vsctl

meta() {
	printf "<domain><name>g</name><devices><interface type='bridge'><mac address='52:54:00:00:00:01'/><source bridge='br0'/><virtualport type='openvswitch'/><vlan><tag id='5'/></vlan><target dev='vnet3'/></interface></devices>%s</domain>" \
		"${1:+<metadata><roam:port-records xmlns:roam='urn:roamswitch:port-records:1'><roam:port mac='52:54:00:00:00:01'>$1</roam:port></roam:port-records></metadata>}"
}
meta "$good" >"$scratch/dom.xml"
meta "${good:0:30}" >"$scratch/bad.xml"
meta "" >"$scratch/plain.xml"
check_output "migrate begin: <vlan> from the record" \
	'<vlan trunk="yes"><tag id="10" nativeMode="untagged"/><tag id="20"/><tag id="30"/></vlan>' \
	eval "'$port' libvirt-hook g migrate begin - <'$scratch/dom.xml' | grep -o '<vlan.*</vlan>'"
check_output "migrate begin without records: no output" "" \
	eval "'$port' libvirt-hook g migrate begin - <'$scratch/plain.xml'"
check "prepare begin refuses a truncated record with one line" \
	eval "refused_line '$port' libvirt-hook g prepare begin - <'$scratch/bad.xml'"
: >"$STUB_LOG"
check "started begin applies the record" \
	eval "'$port' libvirt-hook g started begin - <'$scratch/dom.xml'"
check_output "in one ovs-vsctl transaction" 1 eval "calls ovs-vsctl | grep -c ."
check "on vnet3, policing and ofport_request included" \
	eval "calls ovs-vsctl | grep -F 'ingress_policing_rate=100' | grep -F 'set Interface vnet3 ofport_request=7'"
check_output "and not the VLANs: libvirt made them from the XML" "" \
	eval "calls ovs-vsctl | grep -oE 'tag=|vlan_mode|trunks' || true"

# The installed qemu hook hands roam-port the operations it acts on, and
# ends the others itself (no Python start-up for them).
: >"$STUB_LOG"
check "the qemu hook: started begin applies the record" \
	eval "'$qemu' g started begin - <'$scratch/dom.xml'"
check_output "through roam-port, in one ovs-vsctl transaction" \
	"roam-port libvirt-hook g started begin - 1" \
	eval "echo \"\$(calls roam-port) \$(calls ovs-vsctl | grep -c .)\""
check "the qemu hook: prepare begin refuses a truncated record" \
	eval "refused_line '$qemu' g prepare begin - <'$scratch/bad.xml'"
: >"$STUB_LOG"
for op in "start begin" "stopped end" "release end" "started end"; do
	check "the qemu hook: $op passes (the record is bad)" \
		eval "'$qemu' g $op - <'$scratch/bad.xml'"
done
check_output "without running roam-port or anything else" "" cat "$STUB_LOG"

# Records with OpenFlow rules: captured at port 5, installed renumbered
# for the new port (9, the ovs-vsctl stub's), deleted by their matches.
flows='"ofport": 5, "flows": ["priority=200,in_port=5,dl_src=52:54:00:00:00:01 actions=NORMAL", "priority=100,dl_dst=52:54:00:00:00:01 actions=output:5"]'
with_flows="{\"version\": 1, \"bridge\": \"br0\", $flows}"
check "check: a record with rules passes" eval "'$port' check <<<'$with_flows'"
for bad in '{"version": 1, "flows": ["priority=1 actions=drop"]}' \
	'{"version": 1, "ofport": 5, "flows": ["priority=1, in_port=5 actions=drop"]}' \
	'{"version": 1, "ofport": 5, "flows": "priority=1 actions=drop"}'; do
	check "check refuses $bad with one line" eval "refused_line '$port' check <<<'$bad'"
done
meta "$with_flows" >"$scratch/flows.xml"
: >"$STUB_LOG"
check "started begin applies a record with rules" \
	eval "'$port' libvirt-hook g started begin - <'$scratch/flows.xml'"
check_output "its rules in one ovs-ofctl add-flows on vnet3's bridge" "ovs-ofctl add-flows br0 -" \
	calls ovs-ofctl
check_output "renumbered for vnet3's port 9" \
	"priority=200,in_port=9,dl_src=52:54:00:00:00:01 actions=NORMAL
priority=100,dl_dst=52:54:00:00:00:01 actions=output:9" cat "$scratch/ofctl.in"
: >"$STUB_LOG"
check "drop-flows deletes a domain's rules" eval "'$port' drop-flows <'$scratch/flows.xml'"
check_output "each by its exact match, in one ovs-ofctl run, with the agent's delivery rules" \
	"delete_strict priority=200,in_port=5,dl_src=52:54:00:00:00:01
delete_strict priority=100,dl_dst=52:54:00:00:00:01
delete cookie=0x726f616d64656c69/-1,dl_dst=52:54:00:00:00:01" cat "$scratch/ofctl.in"

# A port's rules, as a record captures them: those naming its OpenFlow
# port or its MAC, not roam-migrate-agent's delivery rules (cookie
# "roamdeli"), which name the MAC but are the host's.  A rule with a
# cookie is deleted with the cookie matched: ovs-ofctl refuses a bare one
# in a delete.
cat >"$scratch/ofctl.dump" <<'EOF'
 cookie=0x726f616d64656c69, priority=100,in_port=1,dl_vlan=10,dl_dst=52:54:00:00:00:01 actions=strip_vlan,output:5
 cookie=0x7, priority=200,tcp,dl_dst=52:54:00:00:00:01,tp_dst=7001 actions=drop
 priority=90,in_port=5 actions=NORMAL
 priority=0 actions=NORMAL
EOF
port_rules() {
	python3 - "$port" <<'EOF'
import importlib.machinery, importlib.util, sys
sys.dont_write_bytecode = True
loader = importlib.machinery.SourceFileLoader("roam_port", sys.argv[1])
mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("roam_port", loader))
loader.exec_module(mod)
print("\n".join(mod.port_rules("br0", 5, "52:54:00:00:00:01")))
EOF
}
check_output "a port's rules: its MAC's and its port's, not the agent's delivery rule" \
	"cookie=0x7,priority=200,tcp,dl_dst=52:54:00:00:00:01,tp_dst=7001 actions=drop
priority=90,in_port=5 actions=NORMAL" port_rules
meta '{"version": 1, "bridge": "br0", "ofport": 5, "flows": ["cookie=0x7,priority=200,tcp,dl_dst=52:54:00:00:00:01,tp_dst=7001 actions=drop"]}' \
	>"$scratch/cookie.xml"
check_output "drop-flows deletes a rule with a cookie" "1 rule(s) deleted" \
	eval "'$port' drop-flows <'$scratch/cookie.xml'"
check_output "by its exact match, the cookie matched" \
	"delete_strict cookie=0x7/-1,priority=200,tcp,dl_dst=52:54:00:00:00:01,tp_dst=7001" \
	eval "head -n 1 '$scratch/ofctl.in'"

xs() {
	"$stubs/xenstore-write" backend/vif/3/0/bridge "$1" backend/vif/3/0/mac 00:16:3e:00:00:03 \
		/local/domain/3/vm /vm/u-3 /local/domain/3/name guest3
}
: >"$STUB_LOG"
xs br0.10:20:30
check "the Xen-style hook: online" env vif=vif3.0 XENBUS_PATH=backend/vif/3/0 "$xen" online
check_output "one ovs-vsctl transaction" 1 eval "calls ovs-vsctl | grep -c ."
check "its add-port carries the native VLAN and the trunks" \
	eval "calls ovs-vsctl | grep -F 'add-port br0 vif3.0 tag=10 trunks=20,30 vlan_mode=native-untagged'"
check "and iface-id xen-u-3-0, attached-mac, vm-uuid" \
	eval "calls ovs-vsctl | grep -F 'external_ids:\"iface-id\"=\"xen-u-3-0\"' | grep -F 'attached-mac\"=\"00:16:3e:00:00:03\"' | grep -F 'vm-uuid\"=\"u-3\"'"
check_output "hotplug-status connected" connected "$stubs/xenstore-read" backend/vif/3/0/hotplug-status
check "ip set vif3.0 up after the transaction" eval "calls ip | grep -Fx 'ip link set dev vif3.0 up'"
STUB_VSCTL_FAIL="no bridge named br0" check "online with ovs-vsctl failing fails, with one line" \
	refused_line env vif=vif3.0 XENBUS_PATH=backend/vif/3/0 "$xen" online
check_output "hotplug-status error" error "$stubs/xenstore-read" backend/vif/3/0/hotplug-status
check "hotplug-error says why" \
	eval "'$stubs/xenstore-read' backend/vif/3/0/hotplug-error | grep -F 'no bridge named br0'"

tap_done
