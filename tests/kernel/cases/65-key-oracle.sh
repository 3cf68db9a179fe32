# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
#
# Flow keys, differentially: our module parses, echoes and extracts flow
# keys and masks exactly as the in-tree module does, but where it answers
# as a kernel without conntrack, L3 ports, MPLS or tunnels would.
#
# Within this one boot, bin/key-oracle (tests/tools/key-oracle.c: its cases
# and line format) runs against the in-tree module, then against ours; then
# the datapath under test is loaded again for the cases after this one.
# Every case line of ours must equal the in-tree line, except the cases in
# the allow-list of expect_ours below, where ours must differ in exactly
# the way written there (and the in-tree line must still be what makes
# that difference meaningful).  One test point per case line.

ORACLE=$PWD/bin/key-oracle
ORACLE_OUT=/tmp/key-oracle

case_cleanup() {
	ovs-dpctl del-dp keyoracle
	# Whatever failed above, the next case gets the datapath under test.
	restore_datapath
	rm -f "$ORACLE_OUT".*
}

# restore_datapath: the module under test loaded, unless it already is.
restore_datapath() {
	dp_is "$ROAM_DATAPATH" || dp_load "$ROAM_DATAPATH"
}

# run_oracle DATAPATH: key-oracle's lines with DATAPATH loaded, saved in
# $ORACLE_OUT.DATAPATH.
run_oracle() {
	dp_load "$1" || return 1
	"$ORACLE" >"$ORACLE_OUT.$1"
}

# refused_by_ours ID LINE: sets `expected` for a case the in-tree module
# accepts (LINE) and ours must refuse with EINVAL.
refused_by_ours() {
	if [[ $2 == "$1 OK "* ]]; then
		expected="$1 EINVAL"
	else
		expected="the in-tree module no longer accepts it: $2"
	fi
}

# expect_ours ID LINE: sets `expected`, what ours must print for the case ID
# ("KIND NAME") given the in-tree module's LINE, and `desc`, the test
# point's description.  The allow-list of intended divergences.
expect_ours() {
	local id=$1 line=$2 keys mask

	expected=$line
	desc="$id: as in-tree"
	case "$id" in
	# No conntrack: a key matching a real conntrack state is refused,
	# so ovs-vswitchd's ct_state probe reads "not supported".  (An
	# all-zero state, as upcall keys carry, is accepted: "ct-state".)
	"flow ct-state-new")
		desc="$id: ours refuses a conntrack match with EINVAL"
		refused_by_ours "$id" "$line"
		;;
	# Only Ethernet ports: a key without OVS_KEY_ATTR_ETHERNET (an L3
	# packet) is refused.
	"flow ipv4-without-eth")
		desc="$id: ours refuses an L3 (no Ethernet) key with EINVAL"
		refused_by_ours "$id" "$line"
		;;
	# No MPLS: a key with OVS_KEY_ATTR_MPLS is refused.
	"flow mpls")
		desc="$id: ours refuses an MPLS key with EINVAL"
		refused_by_ours "$id" "$line"
		;;
	# No tunnel ports: a well-formed tunnel mask on a tunnel-less key is
	# accepted, but ours keeps no tunnel fields, so the echoed mask reads
	# tunnel{ttl=00} where the in-tree module echoes the 01 it was sent.
	# Nothing else in the line may differ.
	"flow tcp4-tunnel-ttl-mask")
		desc="$id: ours echoes the tunnel mask as ttl=00"
		keys=${line%% mask\{*}
		mask=${line#"$keys"}
		if [[ $line == "$id OK "* && $mask == *"tunnel{ttl=01}"* ]]
		then
			expected=$keys${mask/"tunnel{ttl=01}"/"tunnel{ttl=00}"}
		else
			expected="the in-tree module no longer echoes tunnel{ttl=01}: $line"
		fi
		;;
	esac
}

# case_ids FILE: the "KIND NAME" of every line of key-oracle's output.
case_ids() {
	cut -d' ' -f1,2 "$1"
}

# case_line FILE ID: FILE's line for the case ID.
case_line() {
	awk -v id="$2" '$1 " " $2 == id' "$1"
}

# answers_not_empty FILE: key-oracle saw echoed keys and masks and upcall
# keys, so that equal outputs mean something.
answers_not_empty() {
	grep -q '^flow [^ ]* OK key{.*} mask{.*}$' "$1" &&
		grep -q '^packet [^ ]* OK key{.*}$' "$1"
}

check "the key-oracle tool is in the job" test -x "$ORACLE"
check "key-oracle runs on the in-tree module" run_oracle in-tree
check "key-oracle runs on our module" run_oracle ours
check "the datapath under test is loaded again" dp_load "$ROAM_DATAPATH"
check_eq "both modules answered the same cases" \
	"$(case_ids "$ORACLE_OUT.in-tree" 2>&1)" \
	"$(case_ids "$ORACLE_OUT.ours" 2>&1)"

check "the in-tree module's answers carry keys and masks" \
	answers_not_empty "$ORACLE_OUT.in-tree"

mapfile -t ids < <(case_ids "$ORACLE_OUT.in-tree" 2>/dev/null)
tap_diag "comparing ${#ids[@]} case lines"
for id in "${ids[@]}"; do
	expect_ours "$id" "$(case_line "$ORACLE_OUT.in-tree" "$id")"
	check_eq "$desc" "$expected" "$(case_line "$ORACLE_OUT.ours" "$id")"
done
