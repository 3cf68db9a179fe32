#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# suite.sh [launch.sh OPTIONS...]: the migration suite (tests/migration)
# in two full-boot hosts, through tests/kernel/launch.sh, and then its
# closing lines, unprefixed, in the order the README gives: the agent's,
# the redirect's (our datapath) or the relay's (the in-tree module), then
# the baseline's, each
#   migrations N, resets R, lost L, max gap G ms, max downtime D ms, udp lost U of S
# Exit status: launch.sh's, or 1 if a mode that ran printed no line.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/roam-migration.XXXXXX")
trap 'rm -f "$log"' EXIT

"$top/tests/kernel/launch.sh" --suite migration --hosts 2 --boot full \
	--guest "$@" | tee "$log"
rc=${PIPESTATUS[0]}
for mode in agent redirect relay baseline; do
	# run.sh shows a case's plain stdout lines as "# stdout: LINE"
	line=$(sed -nE "s/^host1\\| # stdout: mig-summary $mode: //p" "$log" | tail -n 1)
	if [ -n "$line" ]; then
		printf '%s\n' "$line"
		continue
	fi
	# 25-redirect runs as mode redirect or relay, by the datapath
	case $mode in
	redirect | relay) case_name=redirect
		grep -E "^host1\\| # stdout: mig-summary (redirect|relay): " "$log" >/dev/null &&
			continue ;;
	*) case_name=$mode ;;
	esac
	if grep -E "^host1\\| # case [0-9]+-$case_name\\.sh" "$log" >/dev/null; then
		echo "roam: error: the $mode scenario printed no closing line" >&2
		rc=1
	fi
done
exit "$rc"
