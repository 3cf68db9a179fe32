#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ping-link.sh: runs inside both test hosts of a two-host run and checks,
# as TAP, that the host link works both ways: each host pings the other
# by name (/etc/hosts) while the other waits at a barrier; and that the
# second cable, the uplink, carries VLAN-tagged frames between the hosts
# (a VLAN 10 interface on each, 203.0.113.N, removed afterwards).
#   tests/vm-run.sh --hosts 2 tests/harness/ping-link.sh
set -euo pipefail
# shellcheck source=SCRIPTDIR/../vm/roam.sh
. "$ROAM_LIB"

peer=roam-host$((3 - ROAM_HOST_INDEX))
echo "TAP version 13"
echo "1..4"
rc=0
if [ "$(hostname)" = "$ROAM_HOST" ]; then
	echo "ok 1 - hostname is $ROAM_HOST"
else
	echo "not ok 1 - hostname is $(hostname), not $ROAM_HOST"
	rc=1
fi
# ping_point N TARGET WHAT: point N, TARGET answers three pings.
ping_point() {
	if ping -c 3 -i 0.3 -W 5 "$2" >ping.log 2>&1; then
		echo "ok $1 - $ROAM_HOST pings $3"
	else
		echo "not ok $1 - $ROAM_HOST cannot ping $3"
		sed 's/^/# /' ping.log
		rc=1
	fi
}

roam_barrier up 300
ping_point 2 "$peer" "$peer ($ROAM_PEER) over $ROAM_LINK"
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

vlan=$ROAM_UPLINK.10
ip link add link "$ROAM_UPLINK" name "$vlan" type vlan id 10
ip addr add "203.0.113.$ROAM_HOST_INDEX/24" dev "$vlan"
ip link set "$vlan" up
roam_barrier uplink-up 120
ping_point 4 "203.0.113.$((3 - ROAM_HOST_INDEX))" \
	"$peer on VLAN 10 over the uplink $ROAM_UPLINK"
roam_barrier uplink-pinged 120
ip link del "$vlan"
exit "$rc"
