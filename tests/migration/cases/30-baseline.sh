# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The scenario without the agents (mig.sh scenario): what libvirt, Open
# vSwitch and the vif hooks do alone, one round trip, for the suite's
# baseline line.
# roam: limit 900

# shellcheck source=../mig.sh
. ./mig.sh

mig_case baseline && return 0
scenario baseline "${MIG_BASELINE_TRIPS:-1}"
peer_done
