# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The scenario with the agents started with --uplink (mig.sh scenario,
# issue 18): at the pause the source redirects the guest's port to the
# uplink in our datapath (roam_redirect) and sends on what its tap held
# (on the in-tree module it relays from the tap alone), the destination delivers what
# comes in for the guest's MAC to its new tap, which holds it until the
# resume.  MIG_TRIPS round trips (5 in CI); then each host's timeline:
# every source redirected the guest at its pause and saw the first frame
# go out by the uplink, every destination had its delivery rules in
# before the resume.  Before the probe stops, host 1's agent is killed
# with what a kill during a migration can leave behind in place (a
# redirect of the guest's port, a delivery rule for its MAC, made by
# hand): the agent systemd starts again takes them out.
# roam: limit 1800

# shellcheck source=../mig.sh
. ./mig.sh

case_cleanup() {
	systemctl stop roam-migrate-agent
	rm -f "$AGENT_DEFAULTS"
}

# On our datapath the mode is "redirect"; on the in-tree module, which
# has no roam_redirect family, the agent relays from the taps alone:
# mode "relay", without the leftovers check (it plants a redirect).
if [ "$ROAM_DATAPATH" = ours ]; then
	mode=redirect checks=leftovers_cleared
else
	mode=relay checks=
fi
mig_case "$mode" && { rm -f "$AGENT_DEFAULTS"; return 0; }
check "host 1: the agent runs with --uplink $ROAM_UPLINK (systemd)" \
	agent_start --uplink "$ROAM_UPLINK"
check "host 2: the agent runs with --uplink (systemd)" \
	peer "agent_start --uplink \"\$ROAM_UPLINK\""
scenario "$mode" "${MIG_TRIPS:-5}" ${checks:+"$checks"}
for h in 1 2; do
	check "host $h's timeline: ports and rules ready before every resume" \
		on_host "$h" timeline_check
	tap_diag "host $h's arrivals:" "$(on_host "$h" timeline_check | grep '^floods held')"
	check "host $h's timeline: redirected at every pause, delivered at every resume" \
		on_host "$h" timeline_detours
done
phase "[$mode] timelines checked"
cp "$AGENT_TIMELINE" "$ROAM_SHARED/out/timeline.$mode.host1.json"
peer "cp '$AGENT_TIMELINE' \"\$ROAM_SHARED/out/timeline.$mode.host2.json\""
# where each migration's largest gap falls, against libvirt's events and
# QEMU's own stamps of the stop and the resume (gapmap.py)
tap_diag "$(python3 gapmap.py "$ROAM_SHARED/out" "$mode" 2>&1)"
phase "[$mode] gap map"
check "host 1: the agent stops" systemctl stop roam-migrate-agent
check "host 2: the agent stops" peer "systemctl stop roam-migrate-agent; rm -f '$AGENT_DEFAULTS'"
rm -f "$AGENT_DEFAULTS"
peer_done
