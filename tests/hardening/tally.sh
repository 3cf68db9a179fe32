# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tally.sh: what the hardening cases counted, for the suite's summary line
# (cases/90-summary.sh): one "KEY VALUE..." line per tally call, in a file
# of the pass's own.

ROAM_TALLY=/run/roam-tally/$ROAM_DATAPATH

# tally KEY VALUE...: record KEY's values for this pass.
tally() {
	mkdir -p "${ROAM_TALLY%/*}" && printf '%s\n' "$*" >>"$ROAM_TALLY"
}

# tally_get KEY: the values of KEY's last line; fails when no case of
# this pass recorded KEY.
tally_get() {
	awk -v key="$1" '$1 == key { $1 = ""; value = substr($0, 2); found = 1 }
		END { if (!found) exit 1; print value }' "$ROAM_TALLY" 2>/dev/null
}
