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
#   - check the kernel log (kmemleak scans on the debug kernel), print a
#     "# kernel log: ..." verdict, write /roam/hostN/kernel-status;
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
export ROAM_HOSTS ROAM_DATAPATH ROAM_DEBUG_KERNEL
export ROAM_HOST=roam-host$index ROAM_HOST_INDEX=$index ROAM_BOOT=$boot
export ROAM_SHARED=$share/shared ROAM_LIB=$share/roam.sh
[ ! -d "$share/guest" ] || export ROAM_GUEST=$share/guest
export ROAM_ADDR=192.0.2.$index ROAM_PEER=192.0.2.$((3 - index))
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

# Identity and the host link.
link=
for dev in /sys/class/net/*; do
	[ "$(cat "$dev/address")" = "52:54:00:00:02:0$index" ] && link=${dev##*/}
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
		ip -4 -o addr show dev "$link" | grep -q "inet $ROAM_ADDR/" && break
		sleep 0.1
	done
	ip -4 -o addr show dev "$link" | grep -q "inet $ROAM_ADDR/" ||
		fail "$link never got $ROAM_ADDR"
	export ROAM_LINK=$link
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
want=$(modinfo -F srcversion "$file")
[ -n "$want" ] || fail "$file has no srcversion"
modprobe openvswitch || fail "modprobe openvswitch ($ROAM_DATAPATH, $file) failed"
got=$(cat /sys/module/openvswitch/srcversion 2>/dev/null)
[ "$got" = "$want" ] ||
	fail "loaded openvswitch has srcversion '$got', $file has '$want'"
echo "# datapath: $ROAM_DATAPATH (srcversion $got, $file)"

# kmemleak (debug kernel): only objects allocated after this point count,
# told apart by their age; a scan takes ~25 s under TCG with KASAN.
kmemleak=/sys/kernel/debug/kmemleak
job_start=$(cut -d' ' -f1 /proc/uptime)

# kmemleak_scan: scan, and print the suspects younger than the job.
kmemleak_scan() {
	local max

	echo scan >"$kmemleak"
	max=$(awk -v s="$job_start" '{ print $1 - s + 1 }' /proc/uptime)
	awk -v max="$max" '
		function flush() { if (keep) printf "%s", block; block = ""; keep = 0 }
		/^unreferenced object/ { flush() }
		match($0, /\(age [0-9.]+s\)/) {
			keep = substr($0, RSTART + 5, RLENGTH - 7) + 0 <= max
		}
		{ block = block $0 "\n" }
		END { flush() }' "$kmemleak"
}

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

# The kernel log verdict.
if [ -w "$kmemleak" ]; then
	# a suspect must survive a second scan: the first may have missed a
	# pointer in flight
	kmemleak_scan >"$me/kmemleak.txt"
	[ ! -s "$me/kmemleak.txt" ] || kmemleak_scan >"$me/kmemleak.txt"
fi
dmesg >"$me/dmesg.txt"
grep -E -e 'BUG:|WARNING:|Oops|Kernel panic|kernel BUG at|Call Trace:' \
	-e 'KASAN|UBSAN|general protection fault|stack-protector' \
	-e 'possible (circular|recursive) locking|inconsistent lock state' \
	-e 'suspicious RCU usage|rcu.*stall|soft lockup|hung_task|blocked for more than' \
	-e 'DEBUG_LOCKS_WARN_ON' \
	"$me/dmesg.txt" >"$me/kernel-report.txt"
if [ -s "$me/kmemleak.txt" ]; then
	grep -E '^unreferenced object' "$me/kmemleak.txt" >>"$me/kernel-report.txt"
fi
if [ -s "$me/kernel-report.txt" ]; then
	echo "# kernel log: $(wc -l <"$me/kernel-report.txt") suspicious lines:"
	head -n 40 "$me/kernel-report.txt" | sed 's/^/#   /'
	[ ! -s "$me/kmemleak.txt" ] || head -n 60 "$me/kmemleak.txt" | sed 's/^/#   /'
	echo 1 >"$me/kernel-status"
else
	echo "# kernel log: clean"
	echo 0 >"$me/kernel-status"
fi
finish "$rc"
