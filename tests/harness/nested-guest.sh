#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nested-guest.sh: runs inside a test host and checks, as TAP, that the
# nested test guest (images/build-guest.sh) boots under KVM in the host and
# runs roam-traffic; prints how long that took.
#   tests/vm-run.sh --guest tests/harness/nested-guest.sh
set -euo pipefail

echo "TAP version 13"
echo "1..3"
if [ -c /dev/kvm ] && grep -qw svm /proc/cpuinfo; then
	echo "ok 1 - /dev/kvm and SVM are there"
else
	echo "not ok 1 - no /dev/kvm or no SVM in the host"
	exit 1
fi
[ -n "${ROAM_GUEST:-}" ] || {
	echo "Bail out! no ROAM_GUEST: run with tests/vm-run.sh --guest"
	exit 1
}
log=$PWD/guest.log
start=$(date +%s%N)
qemu-system-x86_64 -accel kvm -cpu qemu64 -m 128 -nodefaults -nic none \
	-display none -no-reboot -kernel "$ROAM_GUEST/bzImage" \
	-initrd "$ROAM_GUEST/initramfs.cpio.gz" -serial "file:$log" \
	-append 'console=ttyS0 panic=-1 roam.cmd=udp-recv,5000,1' 2>qemu.log &
qemu=$!
for ((i = 0; i < 1200; i++)); do
	grep -q 'roam-traffic exited' "$log" 2>/dev/null && break
	kill -0 "$qemu" 2>/dev/null || break
	sleep 0.1
done
elapsed=$((($(date +%s%N) - start) / 1000000))
kill "$qemu" 2>/dev/null || true
wait "$qemu" 2>/dev/null || true
rc=0
if grep -q 'roam-guest: up' "$log"; then
	echo "ok 2 - the guest booted under KVM (${elapsed} ms to the end of roam-traffic)"
else
	echo "not ok 2 - the guest did not boot"
	rc=1
fi
if grep -q '^udp-recv: received=0 lost=0' "$log"; then
	echo "ok 3 - roam-traffic ran in the guest"
else
	echo "not ok 3 - roam-traffic did not run in the guest"
	tr -d '\r' <"$log" | tail -n 20 | sed 's/^/# /'
	rc=1
fi
exit "$rc"
