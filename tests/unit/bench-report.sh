#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's report (tests/bench/report.py) on made-up measurements:
# medians and ratios, the lines and JSON it writes, and input that is
# malformed or half there failing with a reason rather than a report.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
report=$top/tests/bench/report.py

# row CASE MASKS DATAPATH ROUND PPS: one measurement line.
row() {
	printf '{"case": "%s", "masks": %d, "datapath": "%s", "round": %d, "pps": %d, "masks_per_packet": 1.0}\n' "$@"
}

mkdir "$scratch/good"
{
	row masks-64 64 ours 1 300; row masks-64 64 in-tree 1 100
	row masks-64 64 ours 2 200; row masks-64 64 in-tree 2 400
	row masks-64 64 ours 3 250; row masks-64 64 in-tree 3 200
	row masks-1 1 ours 1 90; row masks-1 1 in-tree 1 100
} >"$scratch/good/forwarding.jsonl"
{
	echo '{"case": "memory", "masks": 1, "datapath": "ours", "round": 1, "bytes_per_flow": 600}'
	echo '{"case": "memory", "masks": 1, "datapath": "in-tree", "round": 1, "bytes_per_flow": 800}'
} >"$scratch/good/memory.jsonl"
{
	row l2-1 1 ours 1 300; row l2-1 1 in-tree 1 200
	row l2-1 1 bridge 1 600; row l2-1 1 flower 1 150
} >"$scratch/good/l2.jsonl"
check "a whole set of results makes a report" \
	eval "'$report' '$scratch/good' --no-plots >'$scratch/out'"
check_output "one ratio line per case and switch, the rates by masks first, of the medians" \
	"ratio ours/in-tree l2-1 1.500
ratio ours/bridge l2-1 0.500
ratio ours/flower l2-1 2.000
ratio ours/in-tree masks-1 0.900
ratio ours/in-tree masks-64 1.250
ratio ours/in-tree memory 0.750" grep '^ratio ' "$scratch/out"
check_output "bench.json has the same ratios" "1.5 0.9 1.25 0.75" python3 -c '
import json, sys
print(" ".join(str(c["ratio"]) for c in json.load(open(sys.argv[1]))["cases"]))' \
	"$scratch/good/bench.json"
check_output "... and the best rounds' ratios: the fastest for a rate, the smallest for memory" \
	"1.5 0.9 0.75 0.75" python3 -c '
import json, sys
print(" ".join(str(c["ratio_best"]) for c in json.load(open(sys.argv[1]))["cases"]))' \
	"$scratch/good/bench.json"
# shellcheck disable=SC2016 # awk's fields, not the shell's
check_output "the table shows the best rounds' ratio of masks-64" "0.750" \
	awk '$1 == "masks-64" { print $NF }' "$scratch/out"
check_output "no clock file, no clock said" "None" python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["clock"])' "$scratch/good/bench.json"
echo "the instruction counter" >"$scratch/good/clock"
check "with a clock file, a whole set still makes a report" \
	eval "'$report' '$scratch/good' --no-plots >'$scratch/out'"
check_output "the clock bench.sh names is the report's first line" \
	"clock: the instruction counter" sed -n 1p "$scratch/out"
check_output "... and in bench.json" "the instruction counter" python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["clock"])' "$scratch/good/bench.json"
rm "$scratch/good/clock"

mkdir "$scratch/half"
row masks-1 1 ours 1 90 >"$scratch/half/forwarding.jsonl"
check "a case without the in-tree module's result fails" \
	fails_saying "case masks-1 has no result from in-tree" \
	"$report" "$scratch/half" --no-plots
check "and writes no bench.json" test ! -e "$scratch/half/bench.json"

mkdir "$scratch/bad"
{ row masks-1 1 ours 1 90; echo '{"case": "masks-1"'; } >"$scratch/bad/forwarding.jsonl"
check "a line that is not JSON fails, naming it" \
	fails_saying "forwarding.jsonl:2: not JSON" "$report" "$scratch/bad" --no-plots
row masks-1 1 theirs 1 90 >"$scratch/bad/forwarding.jsonl"
check "an unknown datapath fails" \
	fails_saying "unknown datapath 'theirs'" "$report" "$scratch/bad" --no-plots
row masks-1 1 ours 1 0 >"$scratch/bad/forwarding.jsonl"
check "a rate of zero fails" \
	fails_saying "pps is not a positive integer" "$report" "$scratch/bad" --no-plots
echo '{"case": "memory", "masks": 1, "datapath": "ours", "round": 1, "bytes_per_flow": 600, "pps": 5}' \
	>"$scratch/bad/forwarding.jsonl"
check "a row with two figures fails" \
	fails_saying "not exactly one of pps, bytes_per_flow" "$report" "$scratch/bad" --no-plots
mkdir "$scratch/empty"
check "a directory without results fails" \
	fails_saying "no .jsonl results" "$report" "$scratch/empty" --no-plots

tap_done
