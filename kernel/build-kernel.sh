#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh FLAVOUR: build a test kernel from Debian's
# linux-source-6.1 and print the directory that holds it.
#
# FLAVOUR is "host" (tinyconfig + kvm_guest.config + host.config),
# "debug" (the same plus debug.config) or "guest" (tinyconfig +
# guest.config: the nested test guest's, images/build-guest.sh).  The
# result is cached under $ROAM_CACHE/kernel/FLAVOUR-HASH, HASH covering
# the source package version, the fragments and RECIPE (bump it when the
# steps below change what gets built), so an unchanged input set is never
# rebuilt.  Concurrent callers wait for one another; an interrupted build
# resumes where it stopped.  The directory holds:
#   bzImage         the kernel
#   build/          the O= build tree, for out-of-tree modules (M=)
#   modules/        modules_install output (lib/modules/VERSION/...;
#                   empty for the guest, which has no modules)
#   release         the kernel release string
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

RECIPE=kernel-1

# extract_source: the tree, once per source package version.
extract_source() {
	[ ! -e "$src/.extracted" ] || return 0
	need_disk "$ROAM_CACHE" 4
	step "extracting linux-source-6.1 $src_version"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" --strip-components=1 -xf /usr/src/linux-source-6.1.tar.xz
	touch "$src.tmp/.extracted"
	mv "$src.tmp" "$src"
}

# configure: a fresh $build/.config from tinyconfig and the fragments.
# merge_config.sh only warns about options that olddefconfig dropped; an
# option that silently vanished means a missing dependency, so refuse.
configure() {
	local missing=() line want

	need_disk "$ROAM_CACHE" 8
	rm -rf "$out"
	mkdir -p "$build"
	step "configuring the $flavour kernel ($out)"
	make -s -C "$src" O="$build" ARCH=x86_64 tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
		"${base[@]}" "${fragments[@]}" >/dev/null
	make -s -C "$src" O="$build" ARCH=x86_64 olddefconfig >/dev/null

	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) want="# ${line%=n} is not set" ;;
		CONFIG_*) want=$line ;;
		*) continue ;;
		esac
		grep -qxF "$want" "$build/.config" || missing+=("$line")
	done < <(cat "${fragments[@]}")
	[ ${#missing[@]} -eq 0 ] ||
		die "kernel config dropped: ${missing[*]} (a dependency is missing)"
	touch "$out/.configured"
}

# compile_kernel: bzImage, and the modules when the config has any (the
# guest's has none: its modules/ stays empty).
compile_kernel() {
	local targets=(bzImage) modular=0

	! grep -qx 'CONFIG_MODULES=y' "$build/.config" || modular=1
	[ "$modular" -eq 0 ] || targets+=(modules)
	step "building the $flavour kernel on $(nproc) cores (about 10-20 minutes)"
	with_progress "kernel $flavour" "$out/build.log" \
		make -C "$src" O="$build" ARCH=x86_64 -j"$(nproc)" "${targets[@]}"
	rm -rf "$out/modules"
	mkdir -p "$out/modules"
	[ "$modular" -eq 0 ] ||
		with_progress "modules_install $flavour" "$out/install.log" \
			make -C "$src" O="$build" ARCH=x86_64 \
			INSTALL_MOD_PATH="$out/modules" INSTALL_MOD_STRIP=1 modules_install
	cp "$build/arch/x86/boot/bzImage" "$out/bzImage"
	make -s -C "$src" O="$build" kernelrelease >"$out/release"
	touch "$out/.done"
}

flavour=${1:?usage: build-kernel.sh host|debug|guest}
config=$ROAM_TOP/kernel/config
case "$flavour" in
host) fragments=("$config/host.config") ;;
debug) fragments=("$config/host.config" "$config/debug.config") ;;
guest) fragments=("$config/guest.config") ;;
*) die "unknown kernel flavour '$flavour' (want host, debug or guest)" ;;
esac

src_version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed"
src=$ROAM_CACHE/src/linux-source-6.1-$src_version
# the guest is no KVM guest of the usual kind: no disk, 9p or console
base=()
[ "$flavour" = guest ] || base=("$src/kernel/configs/kvm_guest.config")
key=$(hash_inputs "$RECIPE" "$src_version" "${fragments[@]}")
out=$ROAM_CACHE/kernel/$flavour-$key
build=$out/build

if [ ! -e "$out/.done" ]; then
	mkdir -p "$ROAM_CACHE/kernel"
	exec 9>"$ROAM_CACHE/kernel/.lock"
	if ! flock -n 9; then
		step "waiting for another kernel build to finish"
		flock 9
	fi
fi
if [ ! -e "$out/.done" ]; then
	extract_source
	[ -e "$out/.configured" ] || configure
	compile_kernel
	# Builds of this flavour from other fragments are superseded, and so
	# are our modules built against them.
	mkdir -p "$ROAM_CACHE/module"
	find "$ROAM_CACHE/kernel" "$ROAM_CACHE/module" -mindepth 1 -maxdepth 1 \
		-name "$flavour-*" ! -name "$flavour-$key" -exec rm -rf {} +
fi
echo "$out"
