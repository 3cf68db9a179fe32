#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every build script's cache handling on an empty ROAM_CACHE (not even the
# directory exists), with the expensive builders stubbed: make, mmdebstrap,
# mke2fs, depmod, gcc and the kernel source tarball are stand-ins on PATH
# that make the files the real ones would and log each call.  Checks:
#   - each script works on the empty cache and yields what it promises;
#   - a second run rebuilds nothing;
#   - a rebuild prunes the superseded builds of its kind and keeps its own;
#   - locks live under $ROAM_CACHE/.lock;
#   - the host image gets the kernel's build tree pruned for dkms
#     (images/build-host.sh kbuild_tree): what an out-of-tree build needs,
#     no object file.
# What it does not check is the builders themselves: that is the documented
# full run, ROAM_CACHE=$(mktemp -d) ./roam test (README, "Budget").
# The stubs' bodies are code for later, not for this shell to expand.
# shellcheck disable=SC2016
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

# shellcheck source=stubs.sh
. "$top/tests/unit/stubs.sh"
export ROAM_CACHE=$scratch/cache

stub id '[ "$1" = -u ] && { echo 0; exit 0; }; exec /usr/bin/id "$@"'
stub apt-get 'echo "apt-get must not run: every package is there" >&2; exit 1'
stub dpkg-query 'case "$*" in
*Status*) echo "install ok installed" ;;
*Version*) echo 6.1.stub-1 ;;
*) for a; do [ "${a#-}" = "$a" ] && printf "%s\tstub\n" "$a"; done ;;
esac'
# The kernel source: a tree with a merge_config.sh that writes the
# fragments into .config the way olddefconfig would keep them, and a
# header, Makefiles and a driver's source for the image's build tree.
stub tar 'case "$*" in
*linux-source-6.1.tar.xz*)
	while [ $# -gt 0 ]; do [ "$1" = -C ] && dir=$2; shift; done
	mkdir -p "$dir/scripts/kconfig" "$dir/kernel/configs" "$dir/include/linux" \
		"$dir/arch/x86/include/asm" "$dir/drivers/net"
	: >"$dir/kernel/configs/kvm_guest.config"
	for f in Makefile arch/x86/Makefile include/linux/skbuff.h \
		arch/x86/include/asm/page.h scripts/Makefile.build drivers/net/tun.c; do
		echo "$f" >"$dir/$f"
	done
	cat >"$dir/scripts/kconfig/merge_config.sh" <<"EOT"
#!/bin/bash
while [ "$1" != -O ]; do shift; done
out=$2; shift 3
cat "$@" | sed -E "s/^(CONFIG_[A-Z0-9_]+)=n$/# \1 is not set/" >>"$out/.config"
EOT
	chmod +x "$dir/scripts/kconfig/merge_config.sh" ;;
*) exec /bin/tar "$@" ;;
esac'
stub make 'src= o= m= path=
for a; do
	case "$a" in
	O=*) o=${a#O=} ;; M=*) m=${a#M=} ;; INSTALL_MOD_PATH=*) path=${a#*=} ;;
	esac
done
prev=
for a; do [ "$prev" = -C ] && src=$a; prev=$a; done
for a; do
	case "$a" in
	tinyconfig) mkdir -p "$o"; : >"$o/.config"; ln -sfn "$src" "$o/source" ;;
	bzImage)
		mkdir -p "$o/arch/x86/boot" "$o/include/generated" \
			"$o/arch/x86/include/generated/asm" "$o/scripts/basic" "$o/net/core"
		echo kernel >"$o/arch/x86/boot/bzImage"
		echo symvers >"$o/Module.symvers"
		for f in include/generated/autoconf.h arch/x86/include/generated/asm/unistd_64.h \
			scripts/basic/fixdep scripts/basic/fixdep.o scripts/basic/.fixdep.cmd \
			net/core/dev.o; do
			echo "$f" >"$o/$f"
		done ;;
	modules) [ -z "$m" ] || echo module >"$m/openvswitch.ko" ;;
	clean) [ -z "$m" ] || rm -f "$m/openvswitch.ko" ;;
	modules_install)
		mkdir -p "$path/lib/modules/6.1.0-stub/kernel"
		ln -sfn "$o" "$path/lib/modules/6.1.0-stub/build"
		ln -sfn "$src" "$path/lib/modules/6.1.0-stub/source" ;;
	kernelrelease) echo 6.1.0-stub ;;
	esac
done'
# A base tarball, or for build-ovs-testsuite.sh (a null chroot) the tree
# its sync-out hook copies out.
stub mmdebstrap 'out= tree=
for a; do
	case "$a" in
	*.tar.tmp) out=$a ;;
	"--customize-hook=sync-out "*) tree=${a##* } ;;
	esac
done
if [ -n "$tree" ]; then
	mkdir -p "$tree/tests"
	printf "#!/bin/sh\n" >"$tree/tests/system-kmod-testsuite"
	chmod +x "$tree/tests/system-kmod-testsuite"
	echo "$STUB_OVS_VERSION" >"$tree/roam-source-version"
	exit 0
fi
mkdir -p "$STUB_LOG.root/etc"; echo roam >"$STUB_LOG.root/etc/hostname"
/bin/tar -C "$STUB_LOG.root" -cf "$out" .'
export STUB_OVS_VERSION=3.1.0-2+stub1
stub apt-cache 'echo "Package: openvswitch-source"; echo "Version: $STUB_OVS_VERSION"'
# mke2fs: an empty image, and beside it IMAGE.list, what -d DIR held
# ("PATH LINK-TARGET" a line).
stub mke2fs 'prev=
for a; do
	case "$a" in *.img) img=$a ;; esac
	[ "$prev" != -d ] || dir=$a
	prev=$a
done
: >"$img"
(cd "$dir" && find . -printf "%p %l\n" | LC_ALL=C sort) >"$img.list"'
stub depmod ':'
stub gcc 'while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done'
stub strip ':'
export PATH=$stubs:$PATH

# calls NAME [ERE]: how many times the stub NAME ran (with ERE in its
# arguments).
calls() { grep -c -E "^$1 .*${2:-}" "$STUB_LOG"; }
# builds: the kernel compilations (make ... bzImage ...) so far.
builds() { grep -c '^make .* bzImage' "$STUB_LOG"; }

# build_everything DESCRIPTION: what ./roam build runs, as one test point;
# the outputs' paths go to $kh, $kd, $ih, $id, $mh, $g and $ts.
build_everything() {
	local log=$scratch/build.log

	if kh=$("$top/kernel/build-kernel.sh" host 2>"$log") &&
		kd=$("$top/kernel/build-kernel.sh" debug 2>>"$log") &&
		ih=$("$top/images/build-host.sh" host 2>>"$log") &&
		id=$("$top/images/build-host.sh" debug 2>>"$log") &&
		mh=$("$top/kernel/build-module.sh" host 2>>"$log") &&
		g=$("$top/images/build-guest.sh" 2>>"$log") &&
		ts=$("$top/images/build-ovs-testsuite.sh" 2>>"$log"); then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		tail -n 20 "$log" | sed 's/^/#   /'
	fi
}

check_fails "the cache does not exist yet" test -e "$ROAM_CACHE"
build_everything "every build script runs on the empty cache"
check "the host kernel has bzImage, build tree, modules and release" \
	test -s "$kh/bzImage" -a -d "$kh/build" -a -d "$kh/modules" -a -s "$kh/release"
check "the debug kernel is a build of its own" test -s "$kd/bzImage" -a "$kd" != "$kh"
check "the host image has rootfs.img, bzImage and release" \
	test -e "$ih/rootfs.img" -a -s "$ih/bzImage" -a -s "$ih/release"
check "the debug image too" test -e "$id/rootfs.img" -a -s "$id/bzImage"
check "the module was built" test -s "$mh"
# in_image PATTERN...: each ERE matches a line of the host image's list.
in_image() {
	local ere rc=0

	for ere; do
		grep -qE "^\./$ere\$" "$ih/rootfs.img.list" || { echo "no $ere"; rc=1; }
	done
	return "$rc"
}
tree=usr/src/linux-headers-6.1.0-stub
check "the host image links /lib/modules/REL/build to the kernel's build tree" \
	in_image "lib/modules/6.1.0-stub/build /$tree"
check "which holds .config, Module.symvers, generated headers and the scripts' programs" \
	in_image "$tree/\.config " "$tree/Module.symvers " \
	"$tree/include/generated/autoconf.h " \
	"$tree/arch/x86/include/generated/asm/unistd_64.h " "$tree/scripts/basic/fixdep "
check "and the source's headers and Makefiles" \
	in_image "$tree/Makefile " "$tree/arch/x86/Makefile " \
	"$tree/include/linux/skbuff.h " "$tree/arch/x86/include/asm/page.h " \
	"$tree/scripts/Makefile.build "
check_absent "but no object file, .cmd file, other source or source link" \
	'\.o |\.cmd |\.c |/source ' "$ih/rootfs.img.list"
# A lint build cleans and rebuilds: never in the directory a test copies
# its module from (tests and lint run side by side).
mc=$("$top/kernel/build-module.sh" host W=1 2>/dev/null)
check "a checking build (W=1) builds a module of its own" \
	test -s "$mc" -a "$mc" != "$mh"
check "the guest has bzImage, initramfs and roam-traffic" \
	test -s "$g/bzImage" -a -s "$g/initramfs.cpio.gz" -a -e "$g/roam-traffic"
kg=$(ls -d "$ROAM_CACHE"/kernel/guest-* 2>/dev/null)
check "its kernel is a build of its own, from guest.config" \
	grep -qx 'CONFIG_HOTPLUG_PCI_ACPI=y' "$kg/build/.config"
check_output "which has no modules to build or install" \
	"0 0" eval "echo \$(calls make \"O=$kg/build .*modules\") \$(ls \"$kg/modules\" | wc -l)"
check "the OVS testsuite tree has its testsuite and its source version" \
	test -x "$ts/tree/tests/system-kmod-testsuite" -a -s "$ts/version"
check "the locks live under \$ROAM_CACHE/.lock" test -d "$ROAM_CACHE/.lock"
check_output "three kernels were compiled (host, debug, guest)" 3 builds
check_output "one base image was bootstrapped" 1 calls mmdebstrap format=tar
check_output "one OVS testsuite was built, in a throw-away chroot" 1 \
	calls mmdebstrap format=null

before=$(wc -l <"$STUB_LOG")
build_everything "a second run succeeds"
check_output "and compiles no kernel" 3 builds
check_output "and bootstraps no image" 1 calls mmdebstrap format=tar
check_output "and builds no OVS testsuite" 1 calls mmdebstrap format=null
check_output "and makes no ext4 image" 2 calls mke2fs
check "and runs no builder but the module's make" \
	test -z "$(tail -n +"$((before + 1))" "$STUB_LOG" | grep -v '^make .*M=' |
		grep -Ev '^(dpkg-query|apt-cache|id|tar) ')"

# Superseded builds: made-up keys beside the real ones, then rebuilds.
mkdir -p "$ROAM_CACHE/kernel/host-0000000000000000" \
	"$ROAM_CACHE/module/host-0000000000000000" \
	"$ROAM_CACHE/image/host-0000000000000000" \
	"$ROAM_CACHE/guest/0000000000000000" \
	"$ROAM_CACHE/ovs-testsuite/0000000000000000"
rm "$kh/.done" "$g/.done" "$ih/.done" "$ts/.done"
build_everything "rebuilds succeed"
check_fails "a kernel rebuild prunes the superseded kernel" \
	test -e "$ROAM_CACHE/kernel/host-0000000000000000"
check_fails "and the modules built against it" \
	test -e "$ROAM_CACHE/module/host-0000000000000000"
check_fails "an image rebuild prunes the superseded image" \
	test -e "$ROAM_CACHE/image/host-0000000000000000"
check_fails "a guest rebuild prunes the superseded guest" \
	test -e "$ROAM_CACHE/guest/0000000000000000"
check_fails "an OVS testsuite rebuild prunes the superseded one" \
	test -e "$ROAM_CACHE/ovs-testsuite/0000000000000000"
check "each keeps its own build" \
	test -e "$kh/.done" -a -e "$g/.done" -a -e "$ih/.done" -a -e "$kd/.done" \
	-a -e "$ts/.done"

# A new openvswitch-source in the archive is a new testsuite build.
old=$ts
STUB_OVS_VERSION=3.1.0-2+stub2
build_everything "a new openvswitch-source version builds"
check "a testsuite of its own" test "$ts" != "$old" -a -e "$ts/.done"
check_output "from that version" 3.1.0-2+stub2 cat "$ts/version"
check_fails "and the old one is pruned" test -e "$old"

tap_done
