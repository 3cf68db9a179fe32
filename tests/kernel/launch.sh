#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# launch.sh [--pass ours|in-tree]... [--tool FILE]... [vm-run OPTIONS...]
#           [-- CASE...]: run the kernel suite in one test host.  Each
# --pass runs the suite against that datapath, in order, in the same boot
# (see run.sh); without one, the single pass is vm-run's --datapath.
# Assembles the job the host runs (this directory, the shared test
# libraries, our module built for the chosen kernel, and the helper tools
# meson built) and hands it to tests/vm-run.sh.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

vm_args=() cases=() tools=() flavour=host passes=() run_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--) shift; cases=("$@"); break ;;
	--pass) passes+=("$2"); run_args+=(--pass "$2"); shift ;;
	--debug-kernel) flavour=debug; vm_args+=("$1") ;;
	--tool) tools+=("$2"); shift ;;
	*) vm_args+=("$1") ;;
	esac
	shift
done

job=$(mktemp -d "${TMPDIR:-/tmp}/roam-kernel-job.XXXXXX")
trap 'rm -rf "$job"' EXIT
cp -a "$ROAM_TOP/tests/kernel/." "$job/"
mkdir -p "$job/lib" "$job/bin"
cp "$ROAM_TOP/tests/lib/tap.sh" "$job/lib/"
cp "$("$ROAM_TOP/kernel/build-module.sh" "$flavour")" "$job/bin/openvswitch.ko"
# The upstream selftest, from the same tree the test kernel is built from.
kdir=$("$ROAM_TOP/kernel/build-kernel.sh" "$flavour")
cp -a "$kdir/build/source/tools/testing/selftests/net/openvswitch" \
	"$job/selftest"
for tool in ${tools[@]+"${tools[@]}"}; do
	cp "$tool" "$job/bin/"
done

# The harness loads the first pass's datapath before the job starts.
if [ ${#passes[@]} -gt 0 ]; then
	vm_args=(--datapath "${passes[0]}" ${vm_args[@]+"${vm_args[@]}"})
fi
"$ROAM_TOP/tests/vm-run.sh" ${vm_args[@]+"${vm_args[@]}"} "$job" ./run.sh \
	${run_args[@]+"${run_args[@]}"} ${cases[@]+"${cases[@]}"}
