#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `meson install` for DKMS (kernel/meson.build, kernel/dkms.conf,
# kernel/dkms-add.sh) on the build machine, never against its own system:
# a build directory of its own, `meson install --destdir`, and dkms a
# stand-in on PATH that logs its calls.  Checks:
#   - the staged /usr/src/roamswitch-VERSION holds exactly dkms.conf,
#     Kbuild and every kernel/*.c and *.h, unchanged, mode 644;
#   - with DESTDIR set the install script registers nothing;
#   - dkms.conf parses as dkms reads it (sourced by bash with
#     kernel_source_dir and dkms_tree set) into the values dkms needs, its
#     version the project's and the module's;
#   - without DESTDIR the install script runs `dkms add DIR`, once: not
#     again for a registered version, and it fails when dkms is missing.
# What dkms really does with the tree is the ovs suite's 95-dkms.sh, in a
# test host.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

# shellcheck source=stubs.sh
. "$top/tests/unit/stubs.sh"
# dkms: logs its calls; `dkms status` prints $STUB_STATUS.
# shellcheck disable=SC2016 # expanded by the stub, not here
stub dkms '[ "$1" != status ] || printf "%s" "${STUB_STATUS:-}"'
export PATH=$stubs:$PATH

version=$(meson introspect --projectinfo "$top/meson.build" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
src=/usr/src/roamswitch-$version
staged=$scratch/root$src
tap_diag "project version $version"

install_staged() {
	if ! { meson setup --fatal-meson-warnings -Dlibnl=disabled -Dmigrate_agent=disabled \
		-Dqemu_tests=disabled "$scratch/build" "$top" &&
		meson install -C "$scratch/build" --no-rebuild \
			--destdir "$scratch/root"; } >"$scratch/meson.log" 2>&1; then
		tail -n 20 "$scratch/meson.log"
		return 1
	fi
}
check "meson install --destdir succeeds" install_staged

# expected / installed: the file names, sorted.
expected() {
	(cd "$top/kernel" && ls dkms.conf Kbuild ./*.c ./*.h) | sed 's|^\./||' |
		LC_ALL=C sort
}
installed() {
	(cd "$staged" && find . -mindepth 1 -printf '%P\n') | LC_ALL=C sort
}
check_output "it staged dkms.conf, Kbuild and every kernel/*.c and *.h, nothing else" \
	"$(expected)" installed
same_files() {
	local f rc=0

	for f in $(expected); do
		cmp "$top/kernel/$f" "$staged/$f" || rc=1
	done
	return "$rc"
}
check "each one unchanged" same_files
check_output "each one mode 644" "" find "$staged" -type f ! -perm 644
check_output "with DESTDIR set, dkms was not called" "" cat "$STUB_LOG"
check "meson skipped the install script: DESTDIR is set" \
	grep -q "Skipping custom install script because DESTDIR is set '.*/kernel/dkms-add.sh $src roamswitch $version'" \
	"$scratch/meson.log"
check "run by hand with DESTDIR set, the script registers nothing either" \
	env DESTDIR="$scratch/root" "$top/kernel/dkms-add.sh" "$src" roamswitch "$version"
check_output "and dkms was not called" "" cat "$STUB_LOG"

# conf KEY: KEY's value as dkms reads dkms.conf (safe_source: sourced by
# bash with these two set), e.g. MAKE[0].
conf() {
	bash -c 'set -u; kernel_source_dir=/lib/modules/6.1.0/build
		dkms_tree=/var/lib/dkms
		. "$1" >/dev/null && eval "printf %s \"\${$2}\""' \
		conf "$staged/dkms.conf" "$1"
}
check_output "dkms.conf: PACKAGE_NAME" roamswitch conf PACKAGE_NAME
check_output "dkms.conf: PACKAGE_VERSION is meson's project version" \
	"$version" conf PACKAGE_VERSION
check_output "and Kbuild's RSW_VERSION (the module's MODULE_VERSION)" \
	"ccflags-y := -DRSW_VERSION='\"$version\"'" \
	grep '^ccflags-y := -DRSW_VERSION=' "$top/kernel/Kbuild"
check_output "dkms.conf: BUILT_MODULE_NAME[0]" openvswitch conf 'BUILT_MODULE_NAME[0]'
check_output "dkms.conf: DEST_MODULE_LOCATION[0]" /updates conf 'DEST_MODULE_LOCATION[0]'
check_output "dkms.conf: AUTOINSTALL" yes conf AUTOINSTALL
check_output "dkms.conf: MAKE[0] builds in dkms's copy against the kernel's build dir" \
	"make -C /lib/modules/6.1.0/build M=/var/lib/dkms/roamswitch/$version/build modules" \
	conf 'MAKE[0]'
check_output "dkms.conf: CLEAN likewise" \
	"make -C /lib/modules/6.1.0/build M=/var/lib/dkms/roamswitch/$version/build clean" \
	conf CLEAN

# The install script as meson runs it on a real install: no DESTDIR.
add() {
	env -u DESTDIR "$top/kernel/dkms-add.sh" "$src" roamswitch "$version"
}
: >"$STUB_LOG"
check "without DESTDIR the install script succeeds" add
check_output "and runs dkms add $src" \
	"$(printf '%s\n' "dkms status -m roamswitch -v $version" "dkms add $src")" \
	cat "$STUB_LOG"
: >"$STUB_LOG"
export STUB_STATUS="roamswitch/$version: added"
check "for a registered version it succeeds" add
unset STUB_STATUS
check_output "and adds nothing" "dkms status -m roamswitch -v $version" cat "$STUB_LOG"
rm "$stubs/dkms"
nodkms=$scratch/nodkms
mkdir "$nodkms"
for tool in bash env; do
	ln -s "$(command -v "$tool")" "$nodkms/$tool"
done
nodkms_add() {
	env -u DESTDIR PATH="$nodkms" bash "$top/kernel/dkms-add.sh" "$src" \
		roamswitch "$version" 2>"$scratch/nodkms.err"
}
check_fails "without dkms installed it fails" nodkms_add
check "saying so" grep -q 'roam: error: dkms is not installed' "$scratch/nodkms.err"

tap_done
