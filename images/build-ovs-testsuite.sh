#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-ovs-testsuite.sh: build Open vSwitch's own kernel-datapath testsuite
# (tests/system-kmod-testsuite) from Debian's openvswitch-source, and print
# the directory that holds it:
#   tree/      the Open vSwitch build tree, built to live at /opt/ovs-kmod:
#              test hosts mount it there read-only (tests/vm-run.sh
#              --share ovs-kmod:DIR/tree) and run the testsuite from it
#   version    the openvswitch-source version it was built from
# The build runs inside a throw-away mmdebstrap chroot (the machine's own
# apt sources) with Debian's build dependencies and configure line
# (images/ovs-kmod/build-in-chroot.sh): nothing of Open vSwitch is
# installed or run on the build machine.  Cached under
# $ROAM_CACHE/ovs-testsuite/HASH; HASH covers this script, the chroot
# recipe, the openvswitch-source version apt offers and the apt sources.
# About 15-25 minutes on 2 cores on an empty cache.  Needs root
# (mmdebstrap).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

need_root "$@"
apt_install mmdebstrap

# Where the tree lives, in the chroot and in the test hosts: autotest's
# atconfig and atlocal name it by absolute path.
tree_path=/opt/ovs-kmod
recipe=$ROAM_TOP/images/ovs-kmod/build-in-chroot.sh
# Debian's build dependencies that the configure line finds (debian/control;
# DPDK, AF_XDP and the documentation are not built).
packages=(openvswitch-source build-essential autoconf automake libtool
	pkg-config dpkg-dev libssl-dev libcap-ng-dev libunbound-dev openssl
	procps iproute2 python3 python3-setuptools python3-sortedcontainers)

mmdebstrap_apt_args
version=$(apt-cache show --no-all-versions openvswitch-source 2>/dev/null |
	sed -n 's/^Version: //p')
[ -n "$version" ] || die "apt offers no openvswitch-source (apt-get update?)"
key=$(hash_inputs "$ROAM_TOP/images/build-ovs-testsuite.sh" "$recipe" \
	"$version" "${packages[@]}" "${ROAM_APT_SOURCES[@]}" \
	${ROAM_APT_OPTS[@]+"${ROAM_APT_OPTS[@]}"})
cache=$ROAM_CACHE/ovs-testsuite
out=$cache/$key
cache_lock ovs-testsuite

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi

need_disk "$ROAM_CACHE" 6
# superseded builds; the directory may not exist yet on an empty cache
mkdir -p "$cache"
find "$cache" -mindepth 1 -maxdepth 1 ! -name "$key" ! -name "$key.*" \
	-exec rm -rf {} +
rm -rf "$out"
mkdir -p "$out/tmp"
step "building Open vSwitch $version and its kernel testsuite in a chroot" \
	"(about 15-25 minutes; $out)"
# The chroot lives under the cache, not in a small /tmp; the hooks' "$1"
# is the chroot, expanded by mmdebstrap.
# shellcheck disable=SC2016
TMPDIR=$out/tmp with_progress "openvswitch build" "$out/build.log" \
	mmdebstrap --variant=apt --format=null \
	--include="$(
		IFS=,
		echo "${packages[*]}"
	)" \
	${ROAM_APT_OPTS[@]+"${ROAM_APT_OPTS[@]}"} \
	--customize-hook="upload $recipe /tmp/roam-build.sh" \
	--customize-hook="chroot \"\$1\" bash /tmp/roam-build.sh $tree_path" \
	--customize-hook="sync-out $tree_path $out/tree" \
	bookworm /dev/null "${ROAM_APT_SOURCES[@]}"
rm -rf "$out/tmp"
[ -x "$out/tree/tests/system-kmod-testsuite" ] ||
	die "the build left no tests/system-kmod-testsuite (log: $out/build.log)"
cp "$out/tree/roam-source-version" "$out/version"
touch "$out/.done"
echo "$out"
