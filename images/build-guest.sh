#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-guest.sh: build the tiny diskless guest that test hosts run as a
# nested VM, and print the directory that holds it:
#   bzImage            the guest-flavour kernel (kernel/config/guest.config)
#   initramfs.cpio.gz  busybox-static, roam-traffic and images/guest/init
#   roam-traffic       the static traffic tool, also usable on the hosts
# Boot it with console=ttyS0 and the roam.* parameters documented in
# images/guest/init.  Cached under $ROAM_CACHE/guest/HASH; HASH covers the
# kernel, the sources, this script and the busybox/gcc/libc versions.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

apt_install busybox-static gcc libc6-dev cpio gzip
guestdir=$ROAM_TOP/images/guest
kdir=$("$ROAM_TOP/kernel/build-kernel.sh" guest)
key=$(hash_inputs "$ROAM_TOP/images/build-guest.sh" "$guestdir/init" "$guestdir/roam-traffic.c" \
	"$(basename "$kdir")" \
	"$(dpkg-query -W busybox-static gcc libc6-dev | tr '\n' ' ')")
out=$ROAM_CACHE/guest/$key
cache_lock guest

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi

step "building the nested guest ($out)"
# superseded guests; the directory may not exist yet on an empty cache
mkdir -p "$ROAM_CACHE/guest"
find "$ROAM_CACHE/guest" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
mkdir -p "$out/root/bin" "$out/root/sbin"
gcc -static -O2 -Wall -Wextra -o "$out/roam-traffic" \
	"$guestdir/roam-traffic.c"
strip "$out/roam-traffic"
cp "$out/roam-traffic" "$out/root/bin/"
cp /bin/busybox "$out/root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$out/root/bin/$applet" ] || ln -s busybox "$out/root/bin/$applet"
done
cp "$guestdir/init" "$out/root/init"
chmod 755 "$out/root/init"
(cd "$out/root" && find . | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -9 >"$out/initramfs.cpio.gz"
rm -rf "$out/root"
cp "$kdir/bzImage" "$out/bzImage"
touch "$out/.done"
echo "$out"
