#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# launch.sh [--suite kernel|ovs|ovs-kmod|vif|migration|bench|hardening]
#           [--pass ours|in-tree]...
#           [--tool FILE]... [--env KEY=VALUE]... [vm-run OPTIONS...]
#           [-- CASE...]: run a suite (or its CASEs: 20-foo or
#           cases/20-foo.sh) in one test host.
# Each --pass runs the suite against that datapath, in order, in the same
# boot (see run.sh); without one, the single pass is vm-run's --datapath.
# Assembles the job the host runs and hands it to tests/vm-run.sh: this
# directory's harness (run.sh, cases.sh, case.sh, lib.sh, netns.sh), the
# suite's cases and files (tests/SUITE, default kernel: cases/ and what
# they use), the shared test libraries (tests/lib), our module built for
# the chosen kernel, and the helper tools meson built.  Each --env is
# exported to the suite's cases (the job's env.sh).  The ovs and vif
# suites also get what `meson install` lays out, staged with --destdir
# from a build directory of its own (install/root: the DKMS tree in
# /usr/src/roamswitch-VERSION, roam-port and the hooks in /etc), and the
# install script meson would run after it (install/dkms-add.sh), for the
# operator's-install cases; the vif suite also gets the ovs suite's
# topo.sh and netkit.py, which it builds on, and the migration suite
# (two hosts: --hosts 2) all of those, the vif suite's vif.sh and
# firstrow.py, and the harness's two-host checks (tests/harness).  The
# ovs-kmod suite gets Open vSwitch's kernel testsuite
# (images/build-ovs-testsuite.sh) read-only, as vm-run's
# --share ovs-kmod=TREE, not copied into the job.  The hardening suite's
# stress case drives the bench suite's pktgen.sh.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

vm_args=() cases=() tools=() flavour=host passes=() run_args=() suite=kernel
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--) shift; cases=("$@"); break ;;
	--suite) suite=$2; shift ;;
	--pass) passes+=("$2"); run_args+=(--pass "$2"); shift ;;
	--debug-kernel) flavour=debug; vm_args+=("$1") ;;
	--tool) tools+=("$2"); shift ;;
	--env)
		[[ ${2:-} =~ ^[A-Z][A-Z0-9_]*= ]] || die "bad --env '${2:-}' (want KEY=VALUE)"
		envs+=("$2"); shift ;;
	--share) vm_args+=("$1" "$2"); shift ;;
	*) vm_args+=("$1") ;;
	esac
	shift
done

[ -d "$ROAM_TOP/tests/$suite/cases" ] ||
	die "no suite '$suite' (tests/$suite/cases does not exist)"
# A named case is cases/NAME.sh, or that path itself; a name that is
# neither is refused before any boot.
for i in ${cases[@]+"${!cases[@]}"}; do
	c=${cases[i]}
	[[ $c == cases/* ]] || c=cases/${c%.sh}.sh
	[ -f "$ROAM_TOP/tests/$suite/$c" ] ||
		die "no case '${cases[i]}' in tests/$suite/cases"
	cases[i]=$c
done
job=$(mktemp -d "${TMPDIR:-/tmp}/roam-$suite-job.XXXXXX")
trap 'rm -rf "$job" "$job.meson"' EXIT
# The harness, then the suite's own files and cases in place of the kernel
# suite's.
cp -a "$ROAM_TOP/tests/kernel/." "$job/"
if [ "$suite" != kernel ]; then
	rm -rf "$job/cases"
	cp -a "$ROAM_TOP/tests/$suite/." "$job/"
fi
mkdir -p "$job/lib" "$job/bin"
cp "$ROAM_TOP"/tests/lib/*.sh "$job/lib/"
cp "$("$ROAM_TOP/kernel/build-module.sh" "$flavour")" "$job/bin/openvswitch.ko"
if [ "$suite" = kernel ]; then
	# The upstream selftest, from the same tree the test kernel is
	# built from.
	kdir=$("$ROAM_TOP/kernel/build-kernel.sh" "$flavour")
	cp -a "$kdir/build/source/tools/testing/selftests/net/openvswitch" \
		"$job/selftest"
fi
if [ "$suite" = ovs ] || [ "$suite" = vif ] || [ "$suite" = migration ]; then
	# meson install's own rules, never against this machine: DESTDIR is
	# set, so its install script registers nothing.  It builds what it
	# installs first (roam-migrate-agent and roam-redirect, which need
	# libnl-genl-3 as the test tools do).
	mkdir -p "$job/install"
	if ! { meson setup --fatal-meson-warnings \
		-Dqemu_tests=disabled "$job.meson" "$ROAM_TOP" &&
		meson install -C "$job.meson" \
			--destdir "$job/install/root"; } >"$job/install/meson.log" 2>&1; then
		tail -n 20 "$job/install/meson.log" >&2
		die "meson install --destdir failed"
	fi
	cp "$ROAM_TOP/kernel/dkms-add.sh" "$job/install/"
fi
if [ "$suite" = vif ] || [ "$suite" = migration ]; then
	cp "$ROAM_TOP/tests/ovs/topo.sh" "$ROAM_TOP/tests/ovs/netkit.py" "$job/"
fi
if [ "$suite" = migration ]; then
	cp "$ROAM_TOP/tests/vif/vif.sh" "$ROAM_TOP/tests/vif/firstrow.py" "$job/"
	# the harness's two-host checks, which its 00-harness runs
	mkdir -p "$job/harness"
	cp "$ROAM_TOP"/tests/harness/{full-host,ping-link,datapath-loaded}.sh \
		"$job/harness/"
fi
if [ "$suite" = hardening ]; then
	cp "$ROAM_TOP/tests/bench/pktgen.sh" "$job/"
fi
if [ "$suite" = ovs-kmod ]; then
	testsuite=$("$ROAM_TOP/images/build-ovs-testsuite.sh")
	vm_args+=(--share "ovs-kmod=$testsuite/tree")
fi
for tool in ${tools[@]+"${tools[@]}"}; do
	cp "$tool" "$job/bin/"
done
for env in ${envs[@]+"${envs[@]}"}; do
	printf 'export %s=%q\n' "${env%%=*}" "${env#*=}"
done >"$job/env.sh"

# The harness loads the first pass's datapath before the job starts.
if [ ${#passes[@]} -gt 0 ]; then
	vm_args=(--datapath "${passes[0]}" ${vm_args[@]+"${vm_args[@]}"})
fi
"$ROAM_TOP/tests/vm-run.sh" ${vm_args[@]+"${vm_args[@]}"} "$job" ./run.sh \
	--suite "$suite" ${run_args[@]+"${run_args[@]}"} ${cases[@]+"${cases[@]}"}
