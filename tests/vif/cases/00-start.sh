# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The hooks go where `meson install` puts them, and the host runs what
# they hook into: Open vSwitch started by systemd as the package starts
# it, and libvirtd restarted, since it looks for hooks only when it
# starts.  The xenstore test double stands in for Xen's tools (Xen itself
# cannot run here: README, "What is not tested here").
#
#   host: ovsdb-server  ovs-vswitchd  libvirtd (hook qemu.d/roamswitch)
#         /etc/xen/scripts/vif-roamswitch, xenstore-{read,write,rm} double

# shellcheck source=../vif.sh
. ./vif.sh

# shellcheck disable=SC2153 # the runner's (tests/vm/README.md)
check "booted in full mode, under systemd" test "$ROAM_BOOT" = full
: >"$LOG_ALLOWED"
: >"$BOOT_TIMES"
check "meson install's tree goes to /" cp -a install/root/. /
for f in "$ROAM_PORT" "$XEN_HOOK" "$QEMU_HOOK"; do
	check "$f is installed and executable" test -x "$f"
done
check_output "the qemu hook runs the installed roam-port" \
	"exec $ROAM_PORT libvirt-hook \"\$@\"" tail -n 1 "$QEMU_HOOK"
xenstore_double() {
	local t

	for t in read write rm; do
		ln -sf "$PWD/xenstore/xenstore-double" "/usr/local/bin/xenstore-$t" ||
			return 1
	done
}
check "the xenstore double is on PATH as xenstore-read, -write and -rm" \
	xenstore_double
check "systemctl start openvswitch-switch" systemctl start openvswitch-switch
check "$KEEP, a bridge for the whole suite (see topo.sh)" \
	"${VSCTL[@]}" --may-exist add-br "$KEEP"
check "libvirtd restarts, and finds the hook" systemctl restart libvirtd
check "virsh answers" virsh -q version
guest_files() {
	mkdir -p /var/lib/roam-guest &&
		cp "$ROAM_GUEST/bzImage" "$ROAM_GUEST/initramfs.cpio.gz" /var/lib/roam-guest/
}
check "the nested guest's kernel and initramfs are where domains boot them" \
	guest_files
