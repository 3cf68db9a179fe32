# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vif.sh: what the vif suite's cases share, on top of the ovs suite's
# topo.sh (namespaces, taps with a guest behind, captures):
#
#   ns1 eth0.10 --- p1 (trunk) ---+
#   ns2 eth0.20 --- p2 (trunk) ---+--- br0 (NORMAL) --- guest ports
#   ns3 eth0.30 --- p3 (trunk) ---+     (hooks, libvirt, roam-port)
#
# Each nsN stands for VLAN N0's network, 198.51.100.1/24 on its own
# 802.1Q interface, so that a guest at 198.51.100.2x answers nsN's ping
# only if its port puts it on VLAN N0 (vif_bridge).  OVSDB monitor
# transcripts (mon_start, mon_stop, first_row) show what a port's rows
# held from their first version on.

# shellcheck source=../ovs/topo.sh
. ./topo.sh

# The hooks' and roam-port's installed paths (00-start.sh installs them
# from the job's install/root, which `meson install --destdir` staged).
# shellcheck disable=SC2034 # used by the cases
ROAM_PORT=/usr/local/sbin/roam-port
# shellcheck disable=SC2034
XEN_HOOK=/etc/xen/scripts/vif-roamswitch
# shellcheck disable=SC2034
QEMU_HOOK=/etc/libvirt/hooks/qemu.d/roamswitch
# The xenstore test double's store (tests/vif/xenstore).
export ROAM_XENSTORE=/run/roam-vif/xenstore
# 198.51.100.1 in each VLAN's namespace; the guests are .2x.
PEER=198.51.100.1
# How the nested guests run: libvirt's domain type.  The vif suite's
# guests only boot and answer pings, so they run under QEMU's TCG inside
# the host ("qemu"), never under the host's KVM: KVM in a host that TCG
# runs crashes hosts and hangs guests once in a while (README, "Nested
# guests under TCG").  The migration suite, which measures pauses, sets
# "kvm" (mig.sh).  ROAM_GUEST_VIRT overrides either.
GUEST_VIRT=${ROAM_GUEST_VIRT:-qemu}

# vif_bridge: br0 with the three VLAN namespaces on trunk ports.
vif_bridge() {
	local n

	"${VSCTL[@]}" --may-exist add-br br0 || return 1
	for n in 1 2 3; do
		ns_plain "$n" && ns_vlan "$n" "${n}0" "$PEER" &&
			"${VSCTL[@]}" add-port br0 "p$n" || return 1
	done
}

vif_bridge_del() {
	"${VSCTL[@]}" --if-exists del-br br0
	ns_del 1 2 3
}

# ports: br0's ports but the VLAN namespaces' trunks, one line, sorted.
ports() {
	local out

	out=$("${VSCTL[@]}" list-ports br0) || return 1
	awk '!/^p[123]$/' <<<"$out" | sort | paste -sd ' '
}

# port_vlan PORT: PORT's "tag vlan_mode trunks" as ovs-vsctl prints them.
port_vlan() {
	local out

	out=$("${VSCTL[@]}" get Port "$1" tag vlan_mode trunks) || return 1
	paste -sd ' ' <<<"$out"
}

# reach N IP [TRIES]: nsN (VLAN N0) pings IP, once per second up to TRIES
# times (default 1): a guest still booting gets time.
reach() {
	local tries=${3:-1}

	while ! nsx "$1" ping -c 1 -W 1 -q "$2" >/dev/null 2>&1; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
	done
}

# booted DOMAIN N IP [START]: DOMAIN's guest, started at $SECONDS START
# (default: now), answers nsN at IP within 90 tries under KVM, 240 under
# TCG (whose guests made 30-libvirt take 2.5 times as long, 2026-12-05).
# When it does not, dom_why says why.  A KVM guest whose init never came
# up (its console lacks "roam-guest: up") hung in its own boot, which KVM
# guests in a host under TCG do once in a while (README, "Nested guests
# under TCG"): it is reset once, keeping its QEMU, tap and port, and must
# then answer.  Any other guest that does not answer fails at once: a TCG
# guest has no such excuse, and one that came up points at the switch.
# How long each took goes to $BOOT_TIMES, which 90-teardown reports (the
# suite's budget is mostly guest boots).
booted() {
	local tries=240 t0=${4:-$SECONDS}

	[ "$GUEST_VIRT" != kvm ] || tries=90
	reach "$2" "$3" "$tries" && { boot_time "$1" "$t0"; return 0; }
	dom_why "$1"
	[ "$GUEST_VIRT" = kvm ] || return 1
	guest_came_up "$1" && return 1
	echo "$1's guest never came up: reset once" >&2
	virsh -q reset "$1" >&2 || return 1
	reach "$2" "$3" "$tries" && { boot_time "$1" "$t0" "after a reset"; return 0; }
	dom_why "$1"
	return 1
}

# boot_time DOMAIN T0 [NOTE]: DOMAIN answered SECONDS - T0 after its
# start, into $BOOT_TIMES.
BOOT_TIMES=$RUNS/boot-times
boot_time() {
	echo "$1 answered $((SECONDS - $2)) s after its start${3:+ ($3)}" >>"$BOOT_TIMES"
}

# guest_came_up DOMAIN: the guest's init said it is up (images/guest/init).
guest_came_up() {
	grep -qF "roam-guest: up" "/var/log/roam-$1.console"
}

# allow_stop_warnings: a domain's stop makes ovs-vswitchd warn that it
# "could not open network device vnetN": QEMU's exit removes the tap before
# libvirt removes its port.  That is libvirt's order on every stop, not
# the hooks'; the cases that stop domains list the line for 90-teardown's
# log check (topo.sh's LOG_ALLOWED, emptied by 00-start.sh).
allow_stop_warnings() {
	local ere='\|bridge\|WARN\|could not open network device vnet[0-9]+ \(No such device\)$'

	grep -qxF -- "$ere" "$LOG_ALLOWED" 2>/dev/null || echo "$ere" >>"$LOG_ALLOWED"
}

# reachers IP: which VLAN namespaces reach IP ("1 3": VLANs 10 and 30),
# two pings each.
reachers() {
	local n out=()

	for n in 1 2 3; do
		! reach "$n" "$1" 2 || out+=("$n")
	done
	echo "${out[*]}"
}

# mon_start NAME TABLE COLUMNS: an ovsdb-client monitor of TABLE's COLUMNS
# (comma-separated, name among them) writing $RUNS/mon.NAME; returns once
# it has printed the table's initial rows, so that every later change is
# in the transcript.
mon_start() {
	rm -f "$RUNS/mon.$1" "$RUNS/mon.$1.pid"
	ovsdb-client --detach --no-chdir --pidfile="$RUNS/mon.$1.pid" \
		--format=json monitor Open_vSwitch "$2" "$3" >"$RUNS/mon.$1"
}

# mon_stop NAME...: those monitors stopped, their transcripts complete.
mon_stop() {
	local name pid

	for name in "$@"; do
		pid=$(cat "$RUNS/mon.$name.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null
		wait_for 50 eval "! kill -0 $pid"
	done
}

# watched CMD...: CMD (a virsh start or restore) with monitors "port" (Port)
# and "iface" (Interface, with policing and ofport_request) running.
watched() {
	mon_start port Port name,tag,trunks,vlan_mode &&
		mon_start iface Interface name,external_ids,ingress_policing_rate,ofport_request ||
		return 1
	"$@" >/dev/null
	local rc=$?
	mon_stop port iface
	return "$rc"
}

# first_row NAME PORT [all] COLUMN[:KEY]...: PORT's first row (or every
# version) in monitor NAME's transcript (firstrow.py).
first_row() {
	python3 firstrow.py "$RUNS/mon.$1" "${@:2}"
}

# xs_reset DOMID DEVID BRIDGE MAC: the xenstore double holds what Xen's
# toolstack writes for vif DEVID of domain DOMID: the backend's bridge and
# mac, the domain's vm path and name; nothing else.
xs_reset() {
	rm -rf "$ROAM_XENSTORE"
	mkdir -p "$ROAM_XENSTORE"
	xenstore-write "backend/vif/$1/$2/bridge" "$3" \
		"backend/vif/$1/$2/mac" "$4" \
		"/local/domain/$1/vm" "/vm/6a3c2f7e-0000-4000-8000-00000000000$1" \
		"/local/domain/$1/name" "guest$1"
}

# xs_get PATH: a key of the double, or "(none)".
xs_get() {
	xenstore-read "$1" 2>/dev/null || echo "(none)"
}

# check_refused DESCRIPTION ERE CMD...: CMD fails with exit status 1 and
# exactly one line on stderr, which matches ERE (it names the problem) and
# is shown in the point's description.
check_refused() {
	local desc=$1 ere=$2 err rc=0
	shift 2

	err=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" -eq 1 ] && [ -n "$err" ] && [ "$(grep -c '' <<<"$err")" -eq 1 ] &&
		grep -E -- "$ere" <<<"$err" >/dev/null; then
		tap_ok "$desc ($err)"
		return 0
	fi
	tap_not_ok "$desc"
	printf 'exit %d (want 1), want one line matching %s, got:\n%s\n' \
		"$rc" "$ere" "$err" | sed 's/^/#   /'
	return 1
}

# capture_to FILE PORT: PORT's record, into FILE.
capture_to() {
	"$ROAM_PORT" capture "$2" >"$1"
}

# rec_show FILE PATH...: the record's values at PATHs (dotted: vlan.tag,
# qos.other_config), as PATH=JSON words, keys sorted.
rec_show() {
	python3 -c '
import json, sys
rec = json.load(open(sys.argv[1]))
words = []
for path in sys.argv[2:]:
    v = rec
    for part in path.split("."):
        v = v.get(part) if isinstance(v, dict) else None
    words.append(path + "=" + json.dumps(v, sort_keys=True, separators=(",", ":")))
print(" ".join(words))' "$@"
}

# rec_edit IN OUT PYTHON: OUT is the record IN after the Python statement
# PYTHON, which changes the dict r (a bad record made on purpose).
rec_edit() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))' "$@"
}

# The nested guests' domains: guest N is 198.51.100.2N with MAC
# 52:54:00:00:01:0N and uuid ...00000000010N (tests/vif/cases/30-*).
guest_ip() { echo "198.51.100.2$1"; }
guest_mac() { echo "52:54:00:00:01:0$1"; }
guest_uuid() { echo "6a3c2f7e-0000-4000-8000-00000000010$1"; }

# iface_bridge MAC [VLAN-XML]: an <interface> on br0 as libvirt's docs
# write one for Open vSwitch.
iface_bridge() {
	printf "<interface type='bridge'><mac address='%s'/><source bridge='br0'/><virtualport type='openvswitch'/>%s<model type='virtio'/></interface>" \
		"$1" "${2:-}"
}

# dom_xml NAME N IFACE-XML [METADATA-XML [CMD]]: a domain that boots the
# nested guest N (direct kernel boot, no disk: it can be saved and
# migrated), running roam.cmd=CMD if given (images/guest/init).
dom_xml() {
	cat <<XML
<domain type='$GUEST_VIRT'>
  <name>$1</name>
  <uuid>$(guest_uuid "$2")</uuid>
  <memory unit='MiB'>128</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64'>hvm</type>
    <kernel>/var/lib/roam-guest/bzImage</kernel>
    <initrd>/var/lib/roam-guest/initramfs.cpio.gz</initrd>
    <cmdline>console=ttyS0 panic=-1 roam.ip=$(guest_ip "$2")/24${5:+ roam.cmd=$5}</cmdline>
  </os>
  <features><acpi/></features>
  <cpu mode='custom'><model>qemu64</model></cpu>
  <on_reboot>destroy</on_reboot>
  <devices>
    $3
    <serial type='file'><source path='/var/log/roam-$1.console'/></serial>
  </devices>
  ${4:+<metadata>$4</metadata>}
</domain>
XML
}

# dom_define NAME N IFACE-XML [METADATA-XML]: dom_xml, defined.
dom_define() {
	dom_xml "$@" >"$RUNS/$1.xml" && virsh -q define "$RUNS/$1.xml" >/dev/null
}

# dom_tap DOMAIN [MAC]: the tap of DOMAIN's interface (with MAC).
dom_tap() {
	local out

	out=$(virsh -q domiflist "$1") || return 1
	awk -v mac="${2:-}" 'mac == "" || $5 == mac { print $1; exit }' <<<"$out"
}

# dom_gone DOMAIN...: each domain destroyed if running, and undefined.
dom_gone() {
	local d

	for d in "$@"; do
		virsh -q destroy "$d" >/dev/null 2>&1
		virsh -q undefine "$d" >/dev/null 2>&1
	done
	return 0
}

# dom_why DOMAIN: why DOMAIN is not running, on stderr: libvirt's state
# reason, the qemu log's and the guest console's last lines.
dom_why() {
	virsh -q domstate --reason "$1" 2>&1 | sed 's/^/state: /' >&2
	tail -n 10 "/var/log/libvirt/qemu/$1.log" 2>&1 | sed 's/^/qemu log: /' >&2
	tail -n 40 "/var/log/roam-$1.console" 2>&1 | tr -d '\r' | sed 's/^/console: /' >&2
	# where its vCPU is, twice a second apart: moving or stuck, halted
	# (HLT=1: waiting for an interrupt) or spinning
	dom_rip "$1"
	sleep 1
	dom_rip "$1"
}

# dom_rip DOMAIN: its vCPU's RIP, flags and halt state, from QEMU.
dom_rip() {
	virsh -q qemu-monitor-command --hmp "$1" "info registers" 2>&1 |
		grep -o '^RIP=.*' | sed 's/^/vcpu: /' >&2
}

# dom_destroy DOMAIN: destroy a domain that should be running; when it is
# not, say why (dom_why), so that a guest which stopped on its own leaves
# its cause in the test log.
dom_destroy() {
	virsh -q destroy "$1" && return 0
	dom_why "$1"
	return 1
}

# records_xml MAC JSON: our <metadata> element with one record.
records_xml() {
	printf '<roam:port-records xmlns:roam="urn:roamswitch:port-records:1"><roam:port mac="%s">%s</roam:port></roam:port-records>' \
		"$1" "$2"
}
