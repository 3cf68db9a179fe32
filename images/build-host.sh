#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-host.sh FLAVOUR|base: build the test-host image for the FLAVOUR kernel
# (host or debug, see kernel/build-kernel.sh) and print the directory that
# holds it:
#   rootfs.img   raw ext4 root filesystem (Debian bookworm, systemd, Open
#                vSwitch, libvirt, qemu, cloud-init, dkms), with the
#                kernel's modules depmod'ed under /lib/modules/RELEASE and
#                its build tree for out-of-tree modules (pruned, see
#                kbuild_tree) in /usr/src/linux-headers-RELEASE, linked
#                from /lib/modules/RELEASE/build as a headers package links
#                it
#   bzImage      the kernel
#   release      the kernel release string
# Two stages, each cached under $ROAM_CACHE/image by content hash:
#   base-HASH.tar      mmdebstrap of images/host/packages with the overlay
#                      and setup.sh applied (machine's own apt sources);
#   FLAVOUR-HASH/      the tarball plus that kernel's modules and build
#                      tree, as ext4 (HASH covers this script, the base
#                      and the kernel's own key).
# "build-host.sh base" builds only the tarball and prints its path.
# Needs root (mmdebstrap, file ownership in the image); uses no loop mounts.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

flavour=${1:?usage: build-host.sh host|debug|base}
case "$flavour" in
host | debug | base) ;;
*) die "unknown image flavour '$flavour' (want host, debug or base)" ;;
esac
need_root "$@"
apt_install mmdebstrap e2fsprogs

hostdir=$ROAM_TOP/images/host
cache=$ROAM_CACHE/image
mkdir -p "$cache"

# The machine's own apt sources, passed as files so that no mirror name
# lives in this repository.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources; do
	if [ -s "$f" ]; then
		sources+=("$f")
	fi
done
[ ${#sources[@]} -gt 0 ] || die "no apt sources configured on this machine"
# The machine's own settings for reaching them: a proxy, or accepting a
# snapshot mirror's expired Release files.
aptopts=()
for opt in Acquire::Check-Valid-Until Acquire::http::Proxy \
	Acquire::https::Proxy; do
	val=$(apt-config dump "$opt" | sed -n "s/^$opt \"\(.*\)\";\$/\1/p")
	if [ -n "$val" ]; then
		aptopts+=("--aptopt=$opt \"$val\"")
	fi
done

# Stage a: the base root filesystem tarball.
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
	"$hostdir/packages" | tr -d '[:blank:]')
mapfile -t overlay < <(cd "$hostdir" && find overlay -type f | LC_ALL=C sort)
overlay_modes=$(cd "$hostdir" && find overlay -printf '%p %m\n' | LC_ALL=C sort)
# Keyed by what goes into the tarball, not by this whole script, so that
# changes to stage b do not re-run mmdebstrap; bump "base-v1" when the
# mmdebstrap command line below changes.
base_key=$(hash_inputs base-v1 "$hostdir/packages" "$hostdir/setup.sh" \
	"${overlay[@]/#/$hostdir/}" "$overlay_modes" "${sources[@]}" \
	"${aptopts[@]}")
base=$cache/base-$base_key.tar

cache_lock image-base
if [ ! -e "$base" ]; then
	need_disk "$cache" 4
	step "bootstrapping the host root filesystem (about 2-3 minutes)"
	rm -f "$base.tmp"
	# the hooks' "$1" is the chroot, expanded by mmdebstrap
	# shellcheck disable=SC2016
	with_progress mmdebstrap "$cache/base-$base_key.log" \
		mmdebstrap --variant=apt --format=tar \
		--include="$(
			IFS=,
			echo "${packages[*]}"
		)" \
		"${aptopts[@]}" \
		--customize-hook="sync-in $hostdir/overlay /" \
		--customize-hook="upload $hostdir/setup.sh /tmp/roam-setup.sh" \
		--customize-hook='chroot "$1" bash /tmp/roam-setup.sh' \
		--customize-hook='rm -f "$1/tmp/roam-setup.sh"' \
		bookworm "$base.tmp" "${sources[@]}"
	mv "$base.tmp" "$base"
	# superseded tarballs are 500+ MB each
	find "$cache" -maxdepth 1 -name 'base-*' ! -name "base-$base_key.*" -delete
fi

if [ "$flavour" = base ]; then
	echo "$base"
	exit 0
fi

# kbuild_tree BUILD DEST: what an out-of-tree module build (make -C DEST
# M=DIR, as dkms runs it) needs of the kernel built in BUILD (an O= tree
# whose source link is the kernel source), in one directory.  Pruned the
# way the kernel's own linux-headers package is (6.1's
# scripts/package/builddeb, deploy_kernel_headers): from the source, the
# top and arch Makefiles, include/, scripts/ and the arch's include and
# scripts directories; from the build, .config, Module.symvers, the
# generated headers, include/config and the scripts' programs, objtool;
# no object file and no .cmd file.
kbuild_tree() {
	local build=$1 dest=$2 src

	src=$(readlink -f "$build/source")
	if [ ! -s "$build/.config" ] || [ ! -s "$build/Module.symvers" ]; then
		die "$build has no .config or Module.symvers: not a built kernel tree"
	fi
	mkdir -p "$dest"
	(
		cd "$src"
		find . arch/x86 -maxdepth 1 -name 'Makefile*'
		find include scripts -type f -o -type l
		find arch/x86 -name Kbuild.platforms -o -name Platform
		find arch/x86 -type f \( -path '*/include/*' -o -path '*/scripts/*' \)
	) | tar -C "$src" -cf - -T - | tar -C "$dest" -xf -
	(
		cd "$build"
		if grep -qx CONFIG_OBJTOOL=y .config; then
			echo tools/objtool/objtool
		fi
		find arch/x86/include Module.symvers include scripts -type f \
			! -name '*.o' ! -name '.*.cmd'
	) | tar -C "$build" -cf - -T - | tar -C "$dest" -xf -
	cp "$build/.config" "$dest/.config"
}

# Stage b: the per-flavour ext4 image.
kdir=$("$ROAM_TOP/kernel/build-kernel.sh" "$flavour")
release=$(cat "$kdir/release")
key=$(hash_inputs "$ROAM_TOP/images/build-host.sh" "$base_key" "$(basename "$kdir")")
out=$cache/$flavour-$key
cache_lock "image-$flavour"

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi

need_disk "$cache" 6
# superseded images of this flavour (other base or kernel)
find "$cache" -mindepth 1 -maxdepth 1 -name "$flavour-*" -exec rm -rf {} +
mkdir -p "$out/root"
trap 'rm -rf "$out/root"' EXIT
step "making the $flavour host image ($out)"
tar -C "$out/root" --numeric-owner --xattrs --xattrs-include='*' -xpf "$base"
mkdir -p "$out/root/lib/modules"
cp -a "$kdir/modules/lib/modules/$release" "$out/root/lib/modules/"
# The links into the kernel's build tree mean nothing inside the host: the
# build link points at the pruned tree instead, for dkms.
rm -f "$out/root/lib/modules/$release/build" "$out/root/lib/modules/$release/source"
kbuild_tree "$kdir/build" "$out/root/usr/src/linux-headers-$release"
ln -s "/usr/src/linux-headers-$release" "$out/root/lib/modules/$release/build"

depmod -b "$out/root" "$release"

with_progress "mke2fs $flavour" "$out/mke2fs.log" \
	mke2fs -q -F -t ext4 -L roam-root -E root_owner=0:0 \
	-d "$out/root" "$out/rootfs.img" 4G
rm -rf "$out/root"
cp "$kdir/bzImage" "$out/bzImage"
cp "$kdir/release" "$out/release"
touch "$out/.done"
echo "$out"
