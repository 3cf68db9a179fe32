#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner.sh: the job runner inside a test host.  tests/vm-run.sh puts it in
# the run's 9p share (mounted on /roam); the image's roam-init starts it
# (as PID 1 in fast boot mode, from roam-job.service in full mode).
#
# Contract, per host N (roam.index=N on the kernel command line):
#   - fast mode: set hostname roam-hostN, /etc/hosts and the host-link
#     address (full mode: cloud-init did that; wait for the address);
#   - load the requested datapath and prove it is the loaded one;
#   - run the job (/roam/job.env: ROAM_PROG, ROAM_ARGS, ...) from a local
#     copy of /roam/payload, output to /dev/hvc0, stdin from /dev/null;
#   - let deferred work settle, check the kernel log since the job began
#     (roam_klog_check: splats, and kmemleak suspects on the debug kernel),
#     print a "# kernel log: ..." verdict, write /roam/hostN/kernel-status;
#   - write /roam/hostN/status (the job's exit status) and power off.
# /roam/hostN/started is written as soon as the runner runs.
set -uo pipefail

share=/roam
index=1 boot=fast
read -ra cmdline </proc/cmdline
for word in "${cmdline[@]}"; do
	case "$word" in
	roam.index=*) index=${word#*=} ;;
	roam.boot=*) boot=${word#*=} ;;
	esac
done
me=$share/host$index
mkdir -p "$me"
: >"$me/started"

if [ -c /dev/hvc0 ]; then
	exec >/dev/hvc0 2>&1
fi

finish() {
	printf '%s\n' "$1" >"$me/status.tmp"
	mv "$me/status.tmp" "$me/status"
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}

fail() {
	echo "roam: error: $ROAM_HOST: $*"
	finish 1
}

# shellcheck source=/dev/null
. "$share/job.env"
# shellcheck source=roam.sh
. "$share/roam.sh"
export ROAM_HOSTS ROAM_DATAPATH ROAM_DEBUG_KERNEL
export ROAM_HOST=roam-host$index ROAM_HOST_INDEX=$index ROAM_BOOT=$boot
export ROAM_SHARED=$share/shared ROAM_LIB=$share/roam.sh
[ ! -d "$share/guest" ] || export ROAM_GUEST=$share/guest
export ROAM_ADDR=192.0.2.$index ROAM_PEER=192.0.2.$((3 - index))
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

# Identity, the host link and the uplink (no address: br0's trunk).
link='' uplink=''
for dev in /sys/class/net/*; do
	case "$(cat "$dev/address")" in
	"52:54:00:00:02:0$index") link=${dev##*/} ;;
	"52:54:00:00:03:0$index") uplink=${dev##*/} ;;
	esac
done
if [ "$boot" = fast ]; then
	hostname "$ROAM_HOST"
	echo "$ROAM_HOST" >/etc/hostname
	printf '127.0.0.1\tlocalhost\n192.0.2.1\troam-host1\n192.0.2.2\troam-host2\n' \
		>/etc/hosts
	if [ -n "$link" ]; then
		ip addr add "$ROAM_ADDR/24" dev "$link"
		ip link set "$link" up
	fi
fi
if [ "$ROAM_HOSTS" -gt 1 ]; then
	[ -n "$link" ] || fail "no host-link NIC (52:54:00:00:02:0$index)"
	for ((i = 0; i < 600; i++)); do
		ip -4 -o addr show dev "$link" | grep "inet $ROAM_ADDR/" >/dev/null && break
		sleep 0.1
	done
	ip -4 -o addr show dev "$link" | grep "inet $ROAM_ADDR/" >/dev/null ||
		fail "$link never got $ROAM_ADDR"
	export ROAM_LINK=$link
	[ -n "$uplink" ] || fail "no uplink NIC (52:54:00:00:03:0$index)"
	# a bridge's trunk, not a host interface: no IPv6 of its own (its
	# router solicitations, untagged, reached the other host's br0 and
	# ovs-vswitchd warned that it dropped them)
	sysctl -qw "net.ipv6.conf.$uplink.disable_ipv6=1" ||
		fail "cannot turn IPv6 off on the uplink $uplink"
	ip link set "$uplink" up || fail "cannot set the uplink $uplink up"
	export ROAM_UPLINK=$uplink
fi

# The datapath: ours from updates/ (searched before the kernel's own
# modules), or the in-tree one with updates/ left empty.
release=$(uname -r)
updates=/lib/modules/$release/updates
rm -rf "$updates"
if [ "$ROAM_DATAPATH" = ours ]; then
	mkdir -p "$updates"
	cp "$share/openvswitch.ko" "$updates/openvswitch.ko"
fi
depmod -a || fail "depmod failed"
file=$(modinfo -n openvswitch 2>/dev/null) || fail "no openvswitch module"
case "$ROAM_DATAPATH:$file" in
ours:"$updates"/openvswitch.ko | in-tree:*/kernel/net/openvswitch/openvswitch.ko) ;;
*) fail "modprobe would load $file, not the $ROAM_DATAPATH datapath" ;;
esac
modprobe openvswitch || fail "modprobe openvswitch ($ROAM_DATAPATH, $file) failed"
proof=$(roam_dp_prove "$ROAM_DATAPATH" "$file") || fail "$proof"
echo "# datapath: $ROAM_DATAPATH (srcversion $(cat /sys/module/openvswitch/srcversion)," \
	"taint '$(cat /sys/module/openvswitch/taint)', $file)"

roam_klog_mark job || fail "cannot write a checkpoint into the kernel log"

# The job, from a local copy so that each host may write into its tree.
work=/root/job
rm -rf "$work"
cp -a "$share/payload" "$work" || fail "cannot copy the job"
cd "$work" || fail "cannot enter $work"
if [ -x "$ROAM_PROG" ] && [ -f "$ROAM_PROG" ]; then
	"$ROAM_PROG" "${ROAM_ARGS[@]}" </dev/null
	rc=$?
elif [ -f "$ROAM_PROG" ]; then
	bash "$ROAM_PROG" "${ROAM_ARGS[@]}" </dev/null
	rc=$?
else
	echo "roam: error: $ROAM_HOST: $ROAM_PROG: no such file in the job"
	rc=127
fi
cd / || true

# The kernel log verdict, once deferred work (namespace cleanup, RCU
# callbacks, the job's last background processes) has had time to run.
sleep 3
report=$(roam_klog_check job)
kstatus=$?
dmesg >"$me/dmesg.txt" 2>&1
if [ "$kstatus" -eq 0 ]; then
	echo "# kernel log: clean"
else
	printf '%s\n' "${report:-# kernel log: could not be read}" >"$me/kernel-report.txt"
	echo "# kernel log: not clean since the job began:"
	cat "$me/kernel-report.txt"
	kstatus=1
fi
echo "$kstatus" >"$me/kernel-status"
finish "$rc"
