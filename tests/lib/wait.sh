# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# wait.sh: waiting for a process, on the build machine (scripts/lib.sh
# sources it) and in the test hosts (the job's lib/, which launch.sh
# fills from tests/lib).

# wait_for_exit PID SECONDS: true once PID has exited, false on timeout.
wait_for_exit() {
	local pid=$1 i

	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
