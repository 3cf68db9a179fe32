# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What ovs-vswitchd finds the datapath supports, from its probes when it
# opens the datapath: `ovs-appctl dpif/show-dp-features br0`.  The in-tree
# module's list on the 6.1 test kernels is ../features.in-tree, and every
# in-tree pass checks that it still is.  Ours must give that list but for
# the lines in ../features.expect, each of which says what the in-tree
# module answers, what ours answers and why.  An expectation that no
# longer holds (the in-tree list changed, or ours now answers as the
# in-tree module does) fails too, so the file stays true.  A boot with an
# ours pass only (the debug kernel's) holds ours to the same files.
#
#   host: br0 (no ports) on datapath ovs-system

# shellcheck source=../topo.sh
. ./topo.sh

case_cleanup() {
	"${VSCTL[@]}" --if-exists del-br br0
}

# expected_ours IN-TREE-LIST: the in-tree list with features.expect's
# differences applied; fails, naming it, on an expectation whose in-tree
# value is not the in-tree list's.
expected_ours() {
	awk -F ' -> | [|] ' '
		FNR == NR {
			if ($0 ~ /^#/ || $0 ~ /^[[:space:]]*$/) next
			split($1, kv, ": ")
			if (NF != 3 || $3 == "" || kv[2] == $2) {
				print "bad expectation: " $0 > "/dev/stderr"; bad = 1; next
			}
			want[kv[1]] = kv[2]; ours[kv[1]] = $2; next
		}
		{
			name = $0; sub(/: .*/, "", name); value = substr($0, length(name) + 3)
			if (name in want) {
				if (want[name] != value) {
					print "features.expect: in-tree " name " is " value ", not " want[name] > "/dev/stderr"
					bad = 1
				}
				print name ": " ours[name]; seen[name] = 1
			} else print
		}
		END {
			for (n in want) if (!(n in seen)) {
				print "features.expect: the in-tree list has no " n > "/dev/stderr"; bad = 1
			}
			exit bad
		}' features.expect "$1"
}

save_features() { ovs-appctl dpif/show-dp-features br0 >"$mine"; }
basics() { grep -qx "Recirc: Yes" "$mine" && grep -qx "Ufid: Yes" "$mine"; }

ovs_up
check "add-br br0" "${VSCTL[@]}" add-br br0
mine=$STATE/features.$ROAM_DATAPATH
check "dpif/show-dp-features br0 answers" save_features
check "the list names what every kernel datapath has (Recirc, Ufid: Yes)" basics
tap_diag "$ROAM_DATAPATH: $(tr '\n' ';' <"$mine")"
if [ "$ROAM_DATAPATH" = ours ]; then
	check_output "ours equals the in-tree list but for features.expect's lines" \
		"$(expected_ours features.in-tree 2>&1)" cat "$mine"
	check "every features.expect line holds against the in-tree list" \
		expected_ours features.in-tree
else
	check "the in-tree list is still features.in-tree's" \
		diff -u features.in-tree "$mine"
fi
check "del-br br0" "${VSCTL[@]}" del-br br0
