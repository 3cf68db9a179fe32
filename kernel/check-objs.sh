#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-objs.sh OBJ.o...: compile single objects of the module with W=1 and
# sparse (C=2) against the host kernel, in a scratch copy of kernel/, so a
# file can be checked while other files of the module are unfinished.
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -gt 0 ] || die "usage: check-objs.sh OBJ.o..."
kdir=$("$ROAM_TOP/kernel/build-kernel.sh" host)
src=$(readlink -f "$kdir/build/source")
scratch=$(mktemp -d "$ROAM_CACHE/check-objs.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cp "$ROAM_TOP"/kernel/*.[ch] "$ROAM_TOP/kernel/Kbuild" "$scratch/"
make -s -C "$src" O="$kdir/build" M="$scratch" W=1 C=2 "$@"
cd "$scratch"
"$src/scripts/checkpatch.pl" --strict --no-tree --terse -f "${@/%.o/.c}" || true
