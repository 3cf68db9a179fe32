#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job that fails after a nested guest's QEMU log says KVM failed it, as
# libvirt writes such a log: under --guest --retry-crash the harness runs
# it twice, then fails with status 3 (tests/harness/breaks.sh).  With the
# argument "earlier", the failure is logged before the guest's last start,
# a QEMU that is gone: one attempt, status 1.  The line is the one QEMU
# logged on 2026-12-07 (README.md, "Nested guests under TCG").
# shellcheck source=../../vm/roam.sh
. "$ROAM_LIB"
echo "job start"
log=/var/log/libvirt/qemu/roam-break.log
started="2026-12-07 03:00:00.000+0000: starting up libvirt version: 9.0.0"
fault="2026-12-07T03:00:05.000000Z qemu-system-x86_64: KVM: injection failed, MSI lost (Input/output error)"
mkdir -p "${log%/*}"
if [ "${1:-}" = earlier ]; then
	printf '%s\n' "$started" "$fault" "$started" >"$log"
else
	printf '%s\n' "$started" "$fault" >"$log"
fi
roam_guest_fault roam-break && echo "job: KVM failed the guest"
exit 1
