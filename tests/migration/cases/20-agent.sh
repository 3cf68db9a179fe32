# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The scenario with roam-migrate-agent on both hosts (mig.sh scenario),
# MIG_TRIPS round trips (5 in CI), then each host's timeline: every
# destination had the guest's port and rules ready before the guest
# resumed.
# roam: limit 1800

# shellcheck source=../mig.sh
. ./mig.sh

mig_case agent && return 0
check "host 1: the agent runs (systemd)" agent_start
check "host 2: the agent runs (systemd)" peer agent_start
scenario agent "${MIG_TRIPS:-5}"
for h in 1 2; do
	check "host $h's timeline: ports and rules ready before every resume" \
		on_host "$h" timeline_check
done
cp "$AGENT_TIMELINE" "$ROAM_SHARED/out/timeline.host1.json"
peer "cp '$AGENT_TIMELINE' \"\$ROAM_SHARED/out/timeline.host2.json\""
# where each migration's largest gap falls, against libvirt's events and
# QEMU's own stamps of the stop and the resume (gapmap.py)
tap_diag "$(python3 gapmap.py "$ROAM_SHARED/out" agent 2>&1)"
check "host 1: the agent stops" systemctl stop roam-migrate-agent
check "host 2: the agent stops" peer "systemctl stop roam-migrate-agent"
peer_done
