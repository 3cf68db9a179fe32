# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: on-demand
# roam: limit 1200
#
# An operator's install of our datapath, the way Debian's
# openvswitch-datapath-dkms installed the old out-of-tree one (README,
# "Use it"): `meson install` puts the module's sources and dkms.conf in
# /usr/src/roamswitch-VERSION and registers them with `dkms add`; dkms
# builds the module against the running kernel's build tree
# (/lib/modules/RELEASE/build, which build-host.sh puts in the image) and
# installs it under updates/, where modprobe finds it before the kernel's
# own; Open vSwitch comes up on it.
#
#   ns1 eth0 --- p1 ---+--- br-dkms (NORMAL) --- p2 --- eth0 ns2
#
# launch.sh ran `meson install --destdir` on the build machine: install/root
# is exactly what meson installs, and install/dkms-add.sh the install script
# meson runs after it, which runs here as meson runs it with no DESTDIR.
# Before: no daemon, no module, nothing under updates/ (the runner's copy
# of our module for the first pass goes) and a fresh Open vSwitch
# database, an operator's first start.  After: dkms remove takes the
# module out of updates/ and `modprobe openvswitch` resolves to the
# in-tree module again, as every other case expects.
#
# The compile dominates: dkms build took 234 to 475 s under TCG with
# other test VMs on the build machine's two cores (README,
# "Budget"); hence the limit, and it runs only when named (meson's
# ovs-dkms): CI's 90 minutes have no room for the compile.  On the debug
# kernel the case skips: the same build of the same sources, several
# times slower under KASAN, which the host kernel's boot (ovs-dkms)
# makes.

if [ "${ROAM_DEBUG_KERNEL:-0}" = 1 ]; then
	tap_ok "an operator's install through dkms # SKIP on the debug kernel: the host kernel's boot (ovs-dkms) makes the same build"
	return 0
fi

# shellcheck source=../topo.sh
. ./topo.sh

REL=$(uname -r)
UPDATES=/lib/modules/$REL/updates
STAGED=$PWD/install/root
# dkms on Debian installs into updates/dkms whatever dkms.conf asks for
# under updates/ (its override_dest_module_location).
KO=$UPDATES/dkms/openvswitch.ko
BRIDGE="br-dkms"

case_cleanup() {
	"${VSCTL[@]}" --if-exists del-br "$BRIDGE"
	ovs_stop
	ns_del 1 2
	dp_unload
	[ -z "${VERSION:-}" ] || dkms remove -m roamswitch -v "$VERSION" --all
	rm -rf /usr/src/roamswitch-* "$UPDATES" /var/lib/dkms/roamswitch
	depmod -a
}

# updates_modules: every module file under updates/, one a line.
updates_modules() {
	[ ! -d "$UPDATES" ] || find "$UPDATES" -name '*.ko*'
}

# make_log: the end of dkms's make.log, for a build that failed.
make_log() {
	tail -n 20 "/var/lib/dkms/roamswitch/$VERSION/build/make.log" 2>&1 |
		sed 's/^/#   make.log: /'
}

# The host as an operator's would be before the install.
if ovs_running; then
	for br in $("${VSCTL[@]}" list-br); do
		"${VSCTL[@]}" del-br "$br"
	done
	ovs_stop >/dev/null
fi
rm -f /etc/openvswitch/conf.db /etc/openvswitch/.conf.db.~lock~ \
	/var/log/openvswitch/*.log
dp_unload
rm -rf "$UPDATES"
depmod -a

VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' \
	"$STAGED"/usr/src/roamswitch-*/dkms.conf 2>/dev/null)
SRC=/usr/src/roamswitch-$VERSION
tap_diag "roamswitch $VERSION from meson install, for $REL"
check "meson install laid out $SRC with dkms.conf, Kbuild and the sources" \
	test -s "$STAGED$SRC/dkms.conf" -a -s "$STAGED$SRC/Kbuild" \
	-a -s "$STAGED$SRC/main.c"
check "the running kernel's build tree is there for dkms" \
	test -s "/lib/modules/$REL/build/.config" \
	-a -s "/lib/modules/$REL/build/Module.symvers"
check_output "before the install modprobe resolves openvswitch to the in-tree module" \
	"$INTREE_KO" modinfo -n openvswitch

check "the staged tree goes to $SRC, as meson install puts it" \
	cp -a "$STAGED$SRC" /usr/src/
check "meson's install script, without DESTDIR, registers it with dkms" \
	env -u DESTDIR bash install/dkms-add.sh "$SRC" roamswitch "$VERSION"
check_output "dkms status: added" "roamswitch/$VERSION: added" \
	dkms status -m roamswitch -v "$VERSION"

t0=$(date +%s)
check "dkms build for $REL" \
	dkms build -m roamswitch -v "$VERSION" -k "$REL" || make_log
tap_diag "dkms build took $(($(date +%s) - t0)) s"
check "dkms install for $REL" dkms install -m roamswitch -v "$VERSION" -k "$REL"
check_output "dkms status: installed for $REL" \
	"roamswitch/$VERSION, $REL, x86_64: installed" \
	dkms status -m roamswitch -v "$VERSION"
check_output "the module landed in updates/ and is the only one there" \
	"$KO" updates_modules
check_output "modprobe resolves openvswitch to it" "$KO" modinfo -n openvswitch

check "modprobe openvswitch" modprobe openvswitch
check "the loaded module is that file (srcversion, out-of-tree taint)" \
	roam_dp_prove ours "$KO"
check_output "it is the passes' module built again: same srcversion as bin/openvswitch.ko" \
	"$(modinfo -F srcversion "$OURS_KO")" cat /sys/module/openvswitch/srcversion
check_output "its version is the package's" "$VERSION" \
	cat /sys/module/openvswitch/version

check "ovsdb-server and ovs-vswitchd start from their units" ovs_start
check "ovs-vswitchd runs on the dkms-installed module" roam_dp_prove ours "$KO"
check "ns1, cabled to p1" ns_add 1
check "ns2, cabled to p2" ns_add 2
check "$BRIDGE with p1 and p2" \
	"${VSCTL[@]}" add-br "$BRIDGE" -- add-port "$BRIDGE" p1 -- add-port "$BRIDGE" p2
check_output "the datapath holds $BRIDGE, p1 and p2" \
	"$(printf '%s\n' "$BRIDGE" ovs-system p1 p2)" dp_names ovs-system
check "ping ns1 -> ns2 across $BRIDGE" nsx 1 "${PING[@]}" "$(ns_ip 2)"
check "ovs-vswitchd.log has no WARN, ERR or EMER line" no_log_problems

check "del-br $BRIDGE" "${VSCTL[@]}" del-br "$BRIDGE"
ns_del 1 2
check "ovs-vswitchd and ovsdb-server stop" ovs_stop
check "ovs-vswitchd.log still has no WARN, ERR or EMER line" no_log_problems
check_unload

check "dkms remove" dkms remove -m roamswitch -v "$VERSION" --all
check_output "dkms knows no roamswitch" "" dkms status -m roamswitch
check_output "nothing is left in updates/" "" updates_modules
check_output "modprobe resolves openvswitch to the in-tree module again" \
	"$INTREE_KO" modinfo -n openvswitch
