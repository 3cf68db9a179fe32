# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the kernel suite's cases, inside a test host.

# The module file the harness proved loaded, and ours for swapping within a
# boot: comparisons between the datapaths run in the same kernel.
OURS_KO=$PWD/bin/openvswitch.ko
INTREE_KO=/lib/modules/$(uname -r)/kernel/net/openvswitch/openvswitch.ko

# load_deps KO: what KO links against, loaded first, as insmod needs.
load_deps() {
	local deps

	deps=$(modinfo -F depends "$1") || return 1
	IFS=, read -ra deps <<<"$deps"
	[ ${#deps[@]} -eq 0 ] || modprobe -a "${deps[@]}"
}

# dp_unload: remove whichever openvswitch.ko is loaded.
dp_unload() {
	[ -e /sys/module/openvswitch ] || return 0
	rmmod openvswitch
}

# dp_load ours|in-tree: load exactly that module, by path.
dp_load() {
	dp_unload || return 1
	case "$1" in
	ours) load_deps "$OURS_KO" && insmod "$OURS_KO" ;;
	in-tree) load_deps "$INTREE_KO" && insmod "$INTREE_KO" ;;
	*) echo "dp_load: unknown datapath $1" >&2; return 1 ;;
	esac
}

# dp_is FILE: the loaded openvswitch module is the one built as FILE.
dp_is() {
	[ "$(cat /sys/module/openvswitch/srcversion 2>/dev/null)" = \
		"$(modinfo -F srcversion "$1")" ]
}

# genl_family NAME: the family's block from `genl ctrl list`, which unlike
# `genl ctrl get` never autoloads a module to find the family.
genl_family() {
	genl ctrl list | awk -v name="$1" '
		/^Name: / { show = ($2 == name) }
		show'
}

# kernel_log_clean: no splat, leak or warning in the kernel log since boot.
kernel_log_clean() {
	local bad

	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		if [ -s /sys/kernel/debug/kmemleak ]; then
			head -n 40 /sys/kernel/debug/kmemleak
			return 1
		fi
	fi
	bad=$(dmesg | grep -E 'BUG:|WARNING:|KASAN|kmemleak:.*new suspected|possible (circular|recursive) locking|suspicious RCU usage|Oops|general protection|refcount_t:|list_(add|del) corruption|inconsistent lock state|sleeping function called' || true)
	[ -z "$bad" ] || { printf '%s\n' "$bad" | head -n 40; return 1; }
}
