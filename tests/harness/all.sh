#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh: every harness check in one boot of two full hosts (the meson test
# hosts-link): the host link both ways, the full-boot image's promises,
# which datapath is loaded, and a nested KVM guest.  Each script prints its
# own TAP; the exit status is non-zero if any of them failed.
#   tests/vm-run.sh --hosts 2 --guest tests/harness all.sh
set -uo pipefail

failed=()
for t in ping-link.sh full-host.sh datapath-loaded.sh nested-guest.sh; do
	echo "# harness: $t"
	bash "./$t" || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "# harness: failed: ${failed[*]}"
	exit 1
fi
echo "# harness: all passed"
