#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardening suite's differential judge (tests/hardening/fuzzdiff.py)
# on made-up answer files: a difference explained by a feature one module
# lacks, found in a key, a nested action list or a set action, passes; any
# other fails and is named; files that do not pair up are refused.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
judge=$top/tests/hardening/fuzzdiff.py

# attr TYPE PAYLOAD-HEX: one netlink attribute in hex (little-endian
# header, padded to 4 bytes).
attr() {
	local len=$((4 + ${#2} / 2))

	printf '%02x%02x%02x%02x%s' $((len & 255)) $((len >> 8)) \
		$(($1 & 255)) $(($1 >> 8)) "$2"
	printf '%*s' $(((4 - len % 4) % 4 * 2)) '' | tr ' ' 0
}

ipv4_key=$(attr 3 00000000)$(attr 6 0800)
mpls_key=$(attr 1 "$ipv4_key$(attr 21 00000000)")
ct_actions=$(attr 2 "$(attr 1 01000000)$(attr 12 '')")
clone_ct=$(attr 2 "$(attr 20 "$(attr 12 '')")")
meter_actions=$(attr 2 "$(attr 19 01000000)")

# pair NAME LEFT RIGHT: the two answer files, one line each.
pair() {
	printf '%s\n' "$2" >"$scratch/$1.in-tree"
	printf '%s\n' "$3" >"$scratch/$1.ours"
}

judged() {
	"$judge" "$scratch/$1.in-tree" "$scratch/$1.ours"
}

pair same "flow 0 1 0 OK $mpls_key" "flow 0 1 0 OK $mpls_key"
check "the same answers pass" judged same
pair mpls "flow 1 1 0 OK $mpls_key" "flow 1 1 0 EINVAL $mpls_key"
check "an MPLS key attribute (inside a flow's key) explains a difference" \
	judged mpls
check_output "and is named" "expected   flow 1 1 0: in-tree OK, ours EINVAL (MPLS fields (ours has none))" \
	eval "judged mpls | sed -n 1p"
pair ct "packet 2 3 0 OK $ct_actions" "packet 2 3 0 EINVAL $ct_actions"
check_fails "a packet's attribute 2 is its key, not its actions: a ct there explains nothing" \
	judged ct
pair flowct "flow 2 1 0 OK $ct_actions" "flow 2 1 0 EINVAL $ct_actions"
check "a ct action in a flow's actions explains one" judged flowct
pair clone "flow 3 1 0 OK $clone_ct" "flow 3 1 0 EINVAL $clone_ct"
check "so does one nested in a clone" judged clone
pair meter "flow 4 1 0 OK $meter_actions" "flow 4 1 0 EINVAL $meter_actions"
check_fails "a meter action explains nothing: a finding" judged meter
check_output "which is named UNEXPECTED, with its bytes" \
	"UNEXPECTED flow 4 1 0: in-tree OK, ours EINVAL $meter_actions" \
	eval "judged meter >'$scratch/meter.out'; sed -n 1p '$scratch/meter.out'"
printf 'flow 0 1 0 OK\nflow 1 1 0 OK\n' >"$scratch/short.in-tree"
printf 'flow 0 1 0 OK\n' >"$scratch/short.ours"
check_refused "files of different lengths are refused" \
	"fuzzdiff.py: 2 answers against 1" judged short
pair other "flow 0 1 0 OK $mpls_key" "flow 0 3 0 OK $mpls_key"
check_fails "lines of different requests are refused" judged other
check_refused "a missing file is refused" \
	"fuzzdiff.py: [Errno 2] No such file or directory: '$scratch/none.in-tree'" \
	judged none
tap_done
