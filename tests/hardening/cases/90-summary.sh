# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# The suite's line for the module of this pass, from what 10-fuzz,
# 20-privilege and 30-stress tallied (tally.sh) and what the kernel log
# and kmemleak hold since the pass began:
#
#   fuzzed N, splats 0, leaks 0, stress S s, privilege checks P/P
#
# One point, the line itself: it passes when every case tallied, N and S
# are above 0, there is no splat and no leak, and every privilege check
# passed.  Without kmemleak (the host kernel) the line says "leaks
# unchecked": the debug kernel's run is the one that counts leaks.  The
# harness's own kernel-log point for the pass follows it.

# shellcheck source=../tally.sh
. ./tally.sh

since=pass-$ROAM_DATAPATH
fuzzed=$(tally_get fuzzed) || fuzzed=missing
stress=$(tally_get stress) || stress=missing
privilege=$(tally_get privilege) || privilege='missing missing'
read -r priv_ok priv_all <<<"$privilege"
if log=$(roam_klog_since "$since"); then
	splats=$(grep -cE -e "$ROAM_SPLAT_ERE" <<<"$log")
else
	splats=unreadable
fi
if [ ! -w "$ROAM_KMEMLEAK" ]; then
	leaks=unchecked
elif suspects=$(roam_kmemleak_scan "$since"); then
	leaks=$(grep -c '^unreferenced object' <<<"$suspects")
else
	leaks=unreadable
fi
rm -f "$ROAM_TALLY"

# clean: the line's numbers say nothing went wrong.
clean() {
	[[ $fuzzed =~ ^[1-9][0-9]*$ ]] && [[ $stress =~ ^[1-9][0-9]*$ ]] &&
		[ "$splats" = 0 ] &&
		{ [ "$leaks" = 0 ] || [ "$leaks" = unchecked ]; } &&
		[[ $priv_all =~ ^[1-9][0-9]*$ ]] && [ "$priv_ok" = "$priv_all" ]
}

check "fuzzed $fuzzed, splats $splats, leaks $leaks, stress $stress s, privilege checks $priv_ok/$priv_all" \
	clean
