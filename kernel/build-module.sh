#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh FLAVOUR [MAKE-ARGS...]: build our openvswitch.ko against
# the FLAVOUR kernel (see build-kernel.sh) and print its path.
#
# The sources are copied into $ROAM_CACHE/module/FLAVOUR-KERNELKEY so the
# repository stays free of build products; make decides what to rebuild.
# Extra MAKE-ARGS (W=1, C=2, ...) are passed to kbuild; with them the
# build always recompiles so every warning is shown, in a directory of its
# own (FLAVOUR-KERNELKEY-check): a checking build never cleans the module
# that a test run is about to copy.  Concurrent callers of one directory
# take turns.
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

flavour=${1:?usage: build-module.sh host|debug [MAKE-ARGS...]}
shift
kdir=$("$ROAM_TOP/kernel/build-kernel.sh" "$flavour")
src=$(readlink -f "$kdir/build/source")
out=$ROAM_CACHE/module/$(basename "$kdir")
[ $# -eq 0 ] || out+=-check
# One build at a time per directory: tests and the harness share one, the
# lint checks the other.
cache_lock "module-$(basename "$out")"

mkdir -p "$out"
# A changed source lands with the time of the copy, not its own: a source
# from another checkout may be older than the object built from this one,
# and make would then keep the stale object.
rsync -a --no-times --delete --checksum \
	--include='*.c' --include='*.h' --include='Kbuild' --exclude='*' \
	"$ROAM_TOP/kernel/" "$out/"
[ $# -eq 0 ] || make -s -C "$src" O="$kdir/build" M="$out" clean >&2
make -s -C "$src" O="$kdir/build" M="$out" "$@" modules >&2
echo "$out/openvswitch.ko"
