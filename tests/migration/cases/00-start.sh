# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Both hosts: the hooks and roam-port where `meson install` puts them,
# Open vSwitch started as the package starts it, br0 with the uplink as a
# trunk, the nested guest's files, libvirtd restarted (it looks for hooks
# when it starts), and the namespaces of mig.sh's diagram.  Then host 1
# checks the VLANs across the uplink from its observer: VLAN 20 reaches
# host 2's beacon, VLAN 10's peer is out of its reach.  And host 2's clock
# is put on host 1's (clocksync.py says why).
# roam: limit 300

# shellcheck source=../mig.sh
. ./mig.sh

# shellcheck disable=SC2153 # the runner's (tests/vm/README.md)
check "booted in full mode, under systemd" test "$ROAM_BOOT" = full
: >"$LOG_ALLOWED"
check "meson install's tree goes to /" cp -a install/root/. /
check "systemctl start openvswitch-switch" systemctl start openvswitch-switch
check "$KEEP, a bridge for the whole suite (see topo.sh)" \
	"${VSCTL[@]}" --may-exist add-br "$KEEP"
check "br0 with $ROAM_UPLINK as a trunk of VLANs 10 and 20" mig_bridge
check "libvirtd restarts, and finds the hook" systemctl restart libvirtd
guest_files() {
	mkdir -p /var/lib/roam-guest &&
		cp "$ROAM_GUEST/bzImage" "$ROAM_GUEST/initramfs.cpio.gz" /var/lib/roam-guest/
}
check "the nested guest's kernel and initramfs are where domains boot them" \
	guest_files
if [ "$ROAM_HOST_INDEX" -eq 2 ]; then
	check "ns1, the peer, on VLAN 10" ns_access 1 10
	check "ns4, the beacon, on VLAN 20" ns_access 4 20
	check "host 2 is ready" roam_barrier mig-ready 300
	check "host 1's clock is served" roam_barrier mig-clock 300
	if out=$(clock_sync 2>&1); then
		tap_ok "host 2's clock is put on host 1's ($out)"
	else
		tap_not_ok "host 2's clock is put on host 1's"
		tap_diag "$out"
	fi
	check "host 2 has put its clock on host 1's" roam_barrier mig-clocked 300
	check "host 1 has checked the VLANs" roam_barrier mig-vlans 300
	return 0
fi
check "ns2, the observer, on VLAN 20" ns_access 2 20
check "host 2 is ready" roam_barrier mig-ready 300
check "clocksync.py serves host 2" clock_serve
check "host 1's clock is served" roam_barrier mig-clock 300
check "host 2 has put its clock on host 1's" roam_barrier mig-clocked 300
check "clocksync.py stops" clock_unserve
check "virsh reaches host 2's libvirtd over the host link" \
	virsh -c "$(libvirt_uri 2)" -q version
check "the observer reaches host 2's beacon on VLAN 20, over the uplink" \
	nsx 2 ping -c 2 -W 5 "$(ns_ip 4)"
check "the observer does not reach the peer on VLAN 10" \
	bash -c "! ip netns exec ns2 ping -c 2 -W 2 $(ns_ip 1)"
check "host 1 has checked the VLANs" roam_barrier mig-vlans 300
