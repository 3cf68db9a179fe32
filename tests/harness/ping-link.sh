#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ping-link.sh: runs inside both test hosts of a two-host run and checks,
# as TAP, that the host link works both ways: each host pings the other
# by name (/etc/hosts) while the other waits at a barrier.
#   tests/vm-run.sh --hosts 2 tests/harness/ping-link.sh
set -euo pipefail
# shellcheck source=SCRIPTDIR/../vm/roam.sh
. "$ROAM_LIB"

peer=roam-host$((3 - ROAM_HOST_INDEX))
echo "TAP version 13"
echo "1..3"
rc=0
if [ "$(hostname)" = "$ROAM_HOST" ]; then
	echo "ok 1 - hostname is $ROAM_HOST"
else
	echo "not ok 1 - hostname is $(hostname), not $ROAM_HOST"
	rc=1
fi
roam_barrier up 300
if ping -c 3 -i 0.3 -W 5 "$peer" >ping.log 2>&1; then
	echo "ok 2 - $ROAM_HOST pings $peer ($ROAM_PEER) over $ROAM_LINK"
else
	echo "not ok 2 - $ROAM_HOST cannot ping $peer ($ROAM_PEER)"
	sed 's/^/# /' ping.log
	rc=1
fi
# both directions done before either host goes away
roam_barrier pinged 120
if ip neigh show dev "$ROAM_LINK" |
	grep "^$ROAM_PEER .*lladdr 52:54:00:00:02:0$((3 - ROAM_HOST_INDEX))" >/dev/null; then
	echo "ok 3 - $peer's MAC is the expected one"
else
	echo "not ok 3 - neighbour entry for $peer:"
	ip neigh show dev "$ROAM_LINK" | sed 's/^/# /'
	rc=1
fi
exit "$rc"
