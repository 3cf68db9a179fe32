#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# full-host.sh: runs inside a test host booted in full mode and checks, as
# TAP, what the image promises: the cloud-init identity, Open vSwitch not
# started at boot but startable, libvirtd on TCP without auth.
# With two hosts, virsh talks to the other host's libvirtd over the link.
#   tests/vm-run.sh --boot full [--hosts 2] [--datapath in-tree] tests/harness/full-host.sh
set -uo pipefail
# shellcheck source=SCRIPTDIR/../vm/roam.sh
. "$ROAM_LIB"

n=0 failed=0
check() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@" >check.log 2>&1; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed 's/^/# /' check.log
		failed=1
	fi
}
echo "TAP version 13"
echo "1..8"
check "booted in full mode under systemd" test "$ROAM_BOOT" = full -a -d /run/systemd/system
check "hostname is $ROAM_HOST (cloud-init)" test "$(hostname)" = "$ROAM_HOST"
check "/etc/hosts names both hosts" \
	grep -q '^192.0.2.2 roam-host2' /etc/hosts
check "openvswitch-switch did not start at boot" \
	test "$(systemctl is-active openvswitch-switch ovs-vswitchd ovsdb-server | sort -u)" = inactive
check "libvirtd listens on TCP 16509" \
	bash -c "ss -Hltn 'sport = :16509' | grep LISTEN >/dev/null"
target=localhost
if [ "$ROAM_HOSTS" -eq 2 ]; then
	target=roam-host$((3 - ROAM_HOST_INDEX))
	roam_barrier libvirt-up 300
fi
check "virsh over TCP without auth to $target" \
	virsh -c "qemu+tcp://$target/system" version
[ "$ROAM_HOSTS" -eq 1 ] || roam_barrier virsh-done 300
check "systemctl start openvswitch-switch" \
	systemctl start openvswitch-switch
check "ovs-vsctl add-br br0 on the $ROAM_DATAPATH datapath" \
	bash -c 'ovs-vsctl add-br br0 && ovs-dpctl show | grep "port.*br0" >/dev/null'
exit "$failed"
