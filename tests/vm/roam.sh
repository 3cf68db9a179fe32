# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# roam.sh: helpers for scripts that tests/vm-run.sh runs inside test hosts.
# Source it with `. "$ROAM_LIB"`.  Contract: every helper returns non-zero
# (and says why on stderr) rather than exiting, so that a test decides.
#
# Environment (set by the runner, see tests/vm-run.sh):
#   ROAM_HOST        roam-host1 | roam-host2
#   ROAM_HOST_INDEX  1 | 2
#   ROAM_HOSTS       number of hosts in this run
#   ROAM_DATAPATH    ours | in-tree
#   ROAM_DEBUG_KERNEL 0 | 1
#   ROAM_BOOT        fast | full
#   ROAM_LINK        host-link interface (eth0) when ROAM_HOSTS is 2
#   ROAM_ADDR        this host's host-link address (192.0.2.N)
#   ROAM_PEER        the other host's host-link address
#   ROAM_SHARED      a directory shared by all hosts of this run (9p)
#   ROAM_LIB         this file
#   ROAM_GUEST       with vm-run --guest: the nested guest (bzImage,
#                    initramfs.cpio.gz, roam-traffic; read-only)

# roam_barrier NAME [TIMEOUT]: wait until every host of the run has reached
# the barrier NAME (default timeout 600 s).  Each NAME is used once.
roam_barrier() {
	local name=$1 timeout=${2:-600} deadline i

	: >"$ROAM_SHARED/.barrier.$name.$ROAM_HOST_INDEX"
	deadline=$(($(date +%s) + timeout))
	for ((i = 1; i <= ROAM_HOSTS; i++)); do
		while [ ! -e "$ROAM_SHARED/.barrier.$name.$i" ]; do
			if [ "$(date +%s)" -ge "$deadline" ]; then
				echo "roam_barrier $name: host $i did not arrive within ${timeout}s" >&2
				return 1
			fi
			sleep 0.2
		done
	done
}

# roam_put KEY VALUE: publish VALUE under KEY for the other hosts.
roam_put() {
	printf '%s\n' "$2" >"$ROAM_SHARED/.kv.$1.tmp.$ROAM_HOST_INDEX"
	mv "$ROAM_SHARED/.kv.$1.tmp.$ROAM_HOST_INDEX" "$ROAM_SHARED/.kv.$1"
}

# roam_get KEY [TIMEOUT]: print the value published under KEY, waiting for
# it up to TIMEOUT seconds (default 600).
roam_get() {
	local key=$1 timeout=${2:-600} deadline

	deadline=$(($(date +%s) + timeout))
	while [ ! -e "$ROAM_SHARED/.kv.$key" ]; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "roam_get $key: nothing published within ${timeout}s" >&2
			return 1
		fi
		sleep 0.2
	done
	cat "$ROAM_SHARED/.kv.$key"
}
