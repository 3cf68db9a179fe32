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

# dp_load ours|in-tree: load exactly that module, by path, and prove it.
dp_load() {
	local file

	file=$(dp_file "$1") || return 1
	dp_unload || return 1
	load_deps "$file" && insmod "$file" && dp_prove "$1"
}

# dp_file ours|in-tree: the module file of that datapath.
dp_file() {
	case "$1" in
	ours) echo "$OURS_KO" ;;
	in-tree) echo "$INTREE_KO" ;;
	*) echo "dp_file: unknown datapath $1" >&2; return 1 ;;
	esac
}

# dp_prove ours|in-tree: the loaded openvswitch module is that datapath's
# file (srcversion, taint and path: roam_dp_prove in tests/vm/roam.sh).
dp_prove() {
	local file

	file=$(dp_file "$1") || return 1
	roam_dp_prove "$1" "$file"
}

# dp_is ours|in-tree: dp_prove, quietly: true when that one is loaded.
dp_is() {
	dp_prove "$1" >/dev/null 2>&1
}

# genl_family NAME: the family's block from `genl ctrl list`, which unlike
# `genl ctrl get` never autoloads a module to find the family.
genl_family() {
	genl ctrl list | awk -v name="$1" '
		/^Name: / { show = ($2 == name) }
		show'
}

# genl_groups NAME: the multicast group names of family NAME, one a line;
# fails if the family is not registered.
genl_groups() {
	local info

	info=$(genl_family "$1") || return 1
	[ -n "$info" ] || { echo "no family $1" >&2; return 1; }
	sed -n 's/.*ID-0x[0-9a-f]* *name: \([^ ]*\).*/\1/p' <<<"$info"
}

# check_badmsg ARGS...: run bin/ovs-badmsg ARGS; it must get an answer to
# every request, and each "NAME ERRNO" line of stdin must be its answer
# to request NAME (test points).
check_badmsg() {
	local out rc=0 name errno

	out=$("$PWD/bin/ovs-badmsg" "$@" 2>&1) || rc=$?
	check_eq "ovs-badmsg $* got an answer to every request" 0 "$rc"
	while read -r name errno; do
		check_eq "$name -> $errno" "$name $errno" \
			"$(grep "^$name " <<<"$out")"
	done
}

# check_unload: the module unloads and leaves nothing behind: no module,
# none of the four families, no datapath device (test points).
check_unload() {
	local fam

	check "the module unloads" dp_unload
	check_fails "the module is gone" test -e /sys/module/openvswitch
	for fam in ovs_datapath ovs_vport ovs_flow ovs_packet; do
		check_output "family $fam is gone" "" genl_family "$fam"
	done
	check_output "no datapath devices remain" "" ip -o link show type openvswitch
}
