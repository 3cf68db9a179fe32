# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# roam.sh: helpers for scripts that tests/vm-run.sh runs inside test hosts.
# Source it with `. "$ROAM_LIB"`.  Contract: every helper returns non-zero
# (and says why on stderr) rather than exiting, so that a test decides.
#
# Environment (set by the runner, see tests/vm-run.sh):
#   ROAM_HOST        roam-host1 | roam-host2
#   ROAM_HOST_INDEX  1 | 2
#   ROAM_HOSTS       number of hosts in this run
#   ROAM_DATAPATH    ours | in-tree
#   ROAM_DEBUG_KERNEL 0 | 1
#   ROAM_BOOT        fast | full
#   ROAM_LINK        host-link interface (eth0) when ROAM_HOSTS is 2
#   ROAM_ADDR        this host's host-link address (192.0.2.N)
#   ROAM_PEER        the other host's host-link address
#   ROAM_SHARED      a directory shared by all hosts of this run (9p)
#   ROAM_LIB         this file
#   ROAM_GUEST       with vm-run --guest: the nested guest (bzImage,
#                    initramfs.cpio.gz, roam-traffic; read-only)
# and, for each vm-run --share TAG=DIR, a 9p device with mount tag TAG
# (roam_mount_share).

# roam_barrier NAME [TIMEOUT]: wait until every host of the run has reached
# the barrier NAME (default timeout 600 s).  Each NAME is used once.
roam_barrier() {
	local name=$1 timeout=${2:-600} deadline i

	: >"$ROAM_SHARED/.barrier.$name.$ROAM_HOST_INDEX"
	deadline=$(($(date +%s) + timeout))
	for ((i = 1; i <= ROAM_HOSTS; i++)); do
		while [ ! -e "$ROAM_SHARED/.barrier.$name.$i" ]; do
			if [ "$(date +%s)" -ge "$deadline" ]; then
				echo "roam_barrier $name: host $i did not arrive within ${timeout}s" >&2
				return 1
			fi
			sleep 0.2
		done
	done
}

# roam_mount_share TAG DIR: mount the tree vm-run --share TAG=... gave the
# hosts on DIR, read-only; true if it is mounted there already.
roam_mount_share() {
	mountpoint -q "$2" && return 0
	mkdir -p "$2" || return 1
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro "$1" "$2"
}

# roam_put KEY VALUE: publish VALUE under KEY for the other hosts.
roam_put() {
	printf '%s\n' "$2" >"$ROAM_SHARED/.kv.$1.tmp.$ROAM_HOST_INDEX"
	mv "$ROAM_SHARED/.kv.$1.tmp.$ROAM_HOST_INDEX" "$ROAM_SHARED/.kv.$1"
}

# roam_get KEY [TIMEOUT]: print the value published under KEY, waiting for
# it up to TIMEOUT seconds (default 600).
roam_get() {
	local key=$1 timeout=${2:-600} deadline

	deadline=$(($(date +%s) + timeout))
	while [ ! -e "$ROAM_SHARED/.kv.$key" ]; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "roam_get $key: nothing published within ${timeout}s" >&2
			return 1
		fi
		sleep 0.2
	done
	cat "$ROAM_SHARED/.kv.$key"
}

# roam_guest_fault DOMAIN: DOMAIN's QEMU here logged, since its last
# start, that KVM could not run it on: an interrupt no vCPU of the guest
# took ("MSI lost": its CPU had stopped, a triple fault with nothing on
# its console), a vCPU run or entry that failed.  That is the nested SVM
# that TCG emulates for the host, not the switch, which can neither stop
# a guest's CPU nor silence its kernel (README.md, "Nested guests under
# TCG").  If so, print that line and add it to $ROAM_SHARED/guest-fault:
# a job that then fails is run again under vm-run --retry-crash; true if
# it did.
ROAM_KVM_FAULT_ERE='KVM: injection failed|KVM internal error|kvm run failed'
ROAM_KVM_FAULT_ERE+='|KVM: entry failed'
roam_guest_fault() {
	local line

	line=$(awk -v ere="$ROAM_KVM_FAULT_ERE" '
		/: starting up libvirt/ { line = "" }
		$0 ~ ere { line = $0 }
		END { print line }' "/var/log/libvirt/qemu/$1.log") || return 1
	[ -n "$line" ] || return 1
	printf '%s: %s: %s\n' "$ROAM_HOST" "$1" "$line" >>"$ROAM_SHARED/guest-fault"
	echo "$line"
}

# The kernel log rules, one set for the whole harness: the runner's final
# verdict, each kernel-suite pass and tests/vm-run.sh's check of the whole
# console all use these.
#
# ROAM_SPLAT_ERE: a kernel log line that says something went wrong.
# shellcheck disable=SC2034 # used by the scripts that source this file
ROAM_SPLAT_ERE='BUG:|WARNING:|Oops|Kernel panic|kernel BUG at|Call Trace:'
ROAM_SPLAT_ERE+='|KASAN|UBSAN|general protection fault|stack-protector'
ROAM_SPLAT_ERE+='|possible (circular|recursive) locking|inconsistent lock state'
ROAM_SPLAT_ERE+='|suspicious RCU usage|rcu.*stall|soft lockup|hung_task'
ROAM_SPLAT_ERE+='|blocked for more than|DEBUG_LOCKS_WARN_ON|refcount_t:'
ROAM_SPLAT_ERE+='|list_(add|del) corruption|sleeping function called'

ROAM_KMEMLEAK=/sys/kernel/debug/kmemleak

# roam_jiffies: the kernel's jiffies now (/proc/timer_list), the clock
# kmemleak stamps each object with.
roam_jiffies() {
	awk '/^jiffies:/ { print $2; found = 1; exit } END { exit !found }' \
		/proc/timer_list
}

# roam_klog_mark NAME: start checkpoint NAME: a "roam: checkpoint NAME"
# line in the kernel log (and so on the console), and the jiffies from
# which kmemleak suspects count.
roam_klog_mark() {
	mkdir -p /run/roam-klog
	roam_jiffies >"/run/roam-klog/$1" || return 1
	echo "roam: checkpoint $1" >/dev/kmsg
}

# roam_klog_since NAME: the kernel log from checkpoint NAME on.  Fails if
# dmesg fails or the checkpoint is not in the log (pushed out of the ring:
# then the console check on the build machine still sees everything).
roam_klog_since() {
	local log

	log=$(dmesg) || { echo "roam_klog_since: dmesg failed" >&2; return 1; }
	grep -q "roam: checkpoint $1\$" <<<"$log" || {
		echo "roam_klog_since: checkpoint $1 is no longer in the kernel log" >&2
		return 1
	}
	sed -n "/roam: checkpoint $1\$/,\$p" <<<"$log"
}

# roam_kmemleak_scan NAME: with kmemleak, the suspects allocated since
# checkpoint NAME.  Two scans: kmemleak reports an object only once its
# contents have stayed the same from one scan to the next, so the first
# scan after a leak never reports it.  Objects stamped with jiffies before
# the checkpoint (boot-time leaks of the kernel itself) never count.
# Prints nothing without kmemleak; fails if a scan cannot be made or read.
roam_kmemleak_scan() {
	local since

	[ -w "$ROAM_KMEMLEAK" ] || return 0
	since=$(cat "/run/roam-klog/$1") || return 1
	echo scan >"$ROAM_KMEMLEAK" || return 1
	echo scan >"$ROAM_KMEMLEAK" || return 1
	awk -v since="$since" '
		function flush() { if (keep) printf "%s", block; block = ""; keep = 0 }
		/^unreferenced object/ { flush() }
		match($0, /, jiffies [0-9]+/) {
			keep = substr($0, RSTART + 10, RLENGTH - 10) + 0 >= since + 0
		}
		{ block = block $0 "\n" }
		END { flush() }' "$ROAM_KMEMLEAK"
}

# roam_klog_splats NAME: no splat in the kernel log since checkpoint NAME
# (kmemleak is not asked: see roam_klog_check).  Prints what it found, with
# context, as "# " lines; fails if it found any or could not read the log.
roam_klog_splats() {
	local log

	log=$(roam_klog_since "$1") || return 1
	grep -qE -e "$ROAM_SPLAT_ERE" <<<"$log" || return 0
	echo "# kernel log since checkpoint $1:"
	grep -E -B5 -A30 -e "$ROAM_SPLAT_ERE" <<<"$log" | sed -n 1,80p |
		sed 's/^/#   /'
	return 1
}

# roam_klog_check NAME: nothing went wrong since checkpoint NAME: no splat
# in the kernel log and no kmemleak suspect.  Prints what it found (as "# "
# lines) and fails if anything, or if the log could not be read.
roam_klog_check() {
	local rc=0 leaks

	roam_klog_splats "$1" || rc=1
	leaks=$(roam_kmemleak_scan "$1") || {
		echo "# kmemleak: the scan failed"
		return 1
	}
	[ -n "$leaks" ] || return "$rc"
	echo "# kmemleak: $(grep -c '^unreferenced object' <<<"$leaks") suspects since checkpoint $1:"
	head -n 60 <<<"$leaks" | sed 's/^/#   /'
	return 1
}

# roam_dp_prove ours|in-tree FILE: the loaded openvswitch module is the one
# built as FILE, by three independent marks: its srcversion, its taint
# (ours is built out of tree, "O"; the in-tree one is not) and, for the
# in-tree one, the file's place in the kernel's own module tree.
roam_dp_prove() {
	local want=$1 file=$2 got taint

	[ -d /sys/module/openvswitch ] || { echo "no openvswitch module is loaded"; return 1; }
	got=$(cat /sys/module/openvswitch/srcversion) || return 1
	[ "$got" = "$(modinfo -F srcversion "$file")" ] || {
		echo "loaded srcversion $got is not that of $file"
		return 1
	}
	taint=$(cat /sys/module/openvswitch/taint) || return 1
	case "$want:$taint:$file" in
	ours:*O*:*) ;;
	in-tree:*O*:*) echo "the loaded module is out of tree (taint '$taint')"; return 1 ;;
	in-tree:*:/lib/modules/"$(uname -r)"/kernel/net/openvswitch/openvswitch.ko) ;;
	in-tree:*) echo "$file is not the kernel's own module"; return 1 ;;
	ours:*) echo "the loaded module is not out of tree (taint '$taint')"; return 1 ;;
	*) echo "roam_dp_prove: unknown datapath $want"; return 1 ;;
	esac
}
