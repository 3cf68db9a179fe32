#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-add.sh DIR NAME VERSION: meson's install script (kernel/meson.build).
# After `meson install` has put the module's sources and dkms.conf in DIR
# (/usr/src/NAME-VERSION), register them with dkms, as a -dkms package's
# postinst does; `dkms build` and `dkms install` then make the module for a
# kernel (kernel/dkms.conf).  With DESTDIR set (a staged install, a
# package's build) nothing is registered: the staged tree is not where dkms
# will find it (meson skips the script then; this says so if run by hand).
# Registering an already registered version again is a
# no-op: dkms keeps pointing at DIR, whose files were just replaced;
# rebuild with `dkms build --force`.
set -euo pipefail

dir=${1:?usage: dkms-add.sh DIR NAME VERSION}
name=${2:?usage: dkms-add.sh DIR NAME VERSION}
version=${3:?usage: dkms-add.sh DIR NAME VERSION}

if [ -n "${DESTDIR:-}" ]; then
	echo "roam: $name $version staged in $DESTDIR$dir; not registered with" \
		"dkms (DESTDIR is set): on the target, run dkms add $dir"
	exit 0
fi
if ! command -v dkms >/dev/null; then
	echo "roam: error: dkms is not installed: apt-get install dkms," \
		"then dkms add $dir" >&2
	exit 1
fi
if [ -n "$(dkms status -m "$name" -v "$version")" ]; then
	echo "roam: $name $version is already registered with dkms"
	exit 0
fi
dkms add "$dir"
