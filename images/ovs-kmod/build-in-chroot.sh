#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-in-chroot.sh DIR: inside the throw-away chroot of
# images/build-ovs-testsuite.sh, build Open vSwitch from Debian's
# openvswitch-source in DIR, the way Debian's own build configures it
# (debian/rules: --prefix=/usr --localstatedir=/var --sysconfdir=/etc
# --enable-ssl, dpkg-buildflags with hardening=+all and -fPIC), then drop
# what the kernel testsuite never runs (objects, static libraries,
# documentation).  The testsuite script itself, tests/system-kmod-testsuite,
# comes generated in the source tarball (Debian makes it with `make dist`
# from its patched tree).  Never runs on the build machine itself.
set -euo pipefail
dir=${1:?usage: build-in-chroot.sh DIR}

mkdir -p "$dir"
tar -C "$dir" --strip-components=1 -xzf /usr/src/openvswitch/openvswitch.tar.gz
cd "$dir"
dpkg-query -W -f='${Version}\n' openvswitch-source >roam-source-version
export DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CFLAGS_MAINT_APPEND=-fPIC
eval "$(dpkg-buildflags --export=sh)"
./configure --prefix=/usr --localstatedir=/var --enable-ssl --sysconfdir=/etc
make -j"$(nproc)"
# What the testsuite runs is in utilities, vswitchd, ovsdb, vtep, tests,
# ipsec (its AUTOTEST_PATH) and python; objects and archives are only
# build products.
find . \( -name '*.o' -o -name '*.a' -o -name '*.lo' -o -name '*.la' \) -delete
rm -rf Documentation datapath-windows windows rhel debian/tmp
# The tree is read-only in the test hosts: the testsuite works in a
# directory of its own (-C), so nothing may need writing here.
test -x tests/system-kmod-testsuite
test -x vswitchd/ovs-vswitchd
test -x tests/ovstest
