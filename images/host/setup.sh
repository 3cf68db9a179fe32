#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh: configure the test-host root filesystem.  build-host.sh runs
# it inside the freshly bootstrapped chroot (mmdebstrap customize hook),
# after the overlay files are in place.  Contract: idempotent, no
# network, exits non-zero on any failure.
set -euo pipefail

# Root logs in without a password (serial console, autologin).
passwd -d root >/dev/null
echo roam-host >/etc/hostname
printf '# the root filesystem is /dev/vda, mounted rw by the kernel\n' >/etc/fstab

# Open vSwitch must not start at boot: the harness loads the requested
# datapath module first and tests start OVS themselves.  Disabled, not
# masked, so `systemctl start openvswitch-switch` still works.
systemctl disable openvswitch-switch.service ovsdb-server.service \
	ovs-vswitchd.service ovs-record-hostname.service 2>/dev/null || true

# libvirtd for live migration across the private host link (FACTS.md).
sed -i -e 's/^#\?listen_tcp = .*/listen_tcp = 1/' \
	-e 's/^#\?auth_tcp = .*/auth_tcp = "none"/' /etc/libvirt/libvirtd.conf
grep -qx 'listen_tcp = 1' /etc/libvirt/libvirtd.conf
grep -qx 'auth_tcp = "none"' /etc/libvirt/libvirtd.conf
echo 'LIBVIRTD_ARGS=""' >/etc/default/libvirtd
sed -i -e 's/^#\? *security_driver = .*/security_driver = "none"/' \
	/etc/libvirt/qemu.conf
grep -qx 'security_driver = "none"' /etc/libvirt/qemu.conf
echo 'namespaces = [ ]' >>/etc/libvirt/qemu.conf
rm -f /etc/libvirt/qemu/networks/autostart/default.xml
systemctl enable libvirtd.service libvirtd.socket libvirtd-tcp.socket \
	virtlogd.socket

# Host identity comes from cloud-init rendering systemd-networkd config.
# Nothing waits for the network: the runner waits for the host-link
# address itself, and a single host has no link at all.
systemctl enable systemd-networkd.service roam-job.service
systemctl mask systemd-networkd-wait-online.service \
	serial-getty@hvc0.service getty@tty1.service

# cloud-init runs no config or final modules (90-roam.cfg): skip those two
# stages, about 30 s of Python start-up under TCG.
systemctl mask cloud-config.service cloud-final.service

# Nothing periodic or slow on a short-lived TCG host.
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
	fstrim.timer logrotate.timer man-db.timer dpkg-db-backup.timer \
	systemd-tmpfiles-clean.timer 2>/dev/null || true

apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
