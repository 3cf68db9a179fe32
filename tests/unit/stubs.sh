# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# stubs.sh: a scratch directory and stand-ins for the commands a unit test
# must not run for real.  Sourced after tests/lib/tap.sh.  Sets $scratch
# (removed when the test exits), $stubs (put first on PATH) and $STUB_LOG,
# where every stub writes "NAME ARGS" a line before it runs its body.

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
stubs=$scratch/bin
mkdir "$stubs"
export STUB_LOG=$scratch/calls
: >"$STUB_LOG"

# stub NAME BODY: an executable NAME on PATH running BODY under bash.
# shellcheck disable=SC2016 # the stub expands $*, not this shell
stub() {
	printf '#!/bin/bash\necho "%s $*" >>"$STUB_LOG"\n%s\n' "$1" "$2" >"$stubs/$1"
	chmod +x "$stubs/$1"
}
