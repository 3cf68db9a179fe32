# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ovs.sh: Debian's Open vSwitch inside a test host, for the kernel suite's
# vswitchd case and the ovs suite.  Sourced; every helper returns non-zero
# and says why rather than exiting.
#
#   ovs_unit UNIT KEY     run UNIT.service's KEY= line (ExecStart,
#                         ExecStop, ExecReload) as systemd would
#   ovs_start, ovs_stop   both daemons, the way the package's units do
#   ovs_running           both daemons run
#   ovs_gone              no process of either is left
#   no_log_problems [ALLOWED]
#                         ovs-vswitchd.log holds no WARN, ERR or EMER line
#                         but the two the README lists and those a case
#                         provoked on purpose (ALLOWED)

# shellcheck disable=SC2034 # used by the scripts that source this file
OVS_CTL=/usr/share/openvswitch/scripts/ovs-ctl
VSWITCHD_LOG=/var/log/openvswitch/ovs-vswitchd.log
OVS_RUNDIR=/run/openvswitch

# ovs_unit UNIT KEY: run the KEY= command of /lib/systemd/system/UNIT.service
# the way systemd runs it, for the fast boot, which has no systemd: in a
# shell of its own with the unit's RuntimeDirectory, LimitNOFILE,
# Environment and EnvironmentFile, its AssertPathIsReadWrite checked, and
# $VARIABLES expanded and split as systemd does.  The units are the
# package's own, read from the image, so the daemons start the way
# `systemctl start openvswitch-switch` starts them.
ovs_unit() {
	local file=/lib/systemd/system/$1.service key=$2 text line
	local cmd='' envs=() envfile='' nofile='' rundir='' assert=''

	[ -r "$file" ] || { echo "ovs_unit: no $file"; return 1; }
	# Continuation lines joined: "a \<newline>   b" is "a b".
	text=$(sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ta' -e '}' "$file") ||
		return 1
	while IFS= read -r line; do
		case "$line" in
		"$key="*) cmd=${line#*=} ;;
		Environment=*) envs+=("${line#*=}") ;;
		EnvironmentFile=*) envfile=${line#*=} ;;
		LimitNOFILE=*) nofile=${line#*=} ;;
		RuntimeDirectory=*) rundir=/run/${line#*=} ;;
		AssertPathIsReadWrite=*) assert=${line#*=} ;;
		esac
	done <<<"$text"
	[ -n "$cmd" ] || { echo "ovs_unit: $1.service has no $key= line"; return 1; }
	if [ "$key" = ExecStart ] && [ -n "$assert" ] && [ ! -w "$assert" ]; then
		echo "ovs_unit: $1.service asserts that $assert is writable; it is not"
		return 1
	fi
	(
		[ -z "$rundir" ] || mkdir -p "$rundir" || exit 1
		[ -z "$nofile" ] || ulimit -n "$nofile" || exit 1
		for e in ${envs[@]+"${envs[@]}"}; do
			export "${e?}"
		done
		# "-FILE": read it if it exists.
		envfile=${envfile#-}
		if [ -n "$envfile" ] && [ -r "$envfile" ]; then
			set -a
			# shellcheck source=/dev/null
			. "$envfile"
			set +a
		fi
		# Unset variables expand to nothing, as in systemd.
		set +u
		eval "set -- $cmd"
		exec "$@"
	)
}

# ovs_running: ovsdb-server and ovs-vswitchd both run (ovs-ctl's own test:
# pidfile and process).
ovs_running() {
	"$OVS_CTL" status >/dev/null 2>&1
}

# ovs_gone: no ovs-vswitchd or ovsdb-server process is left (a stop may
# take a moment: wait_for it).
ovs_gone() {
	! pgrep -x 'ovs-vswitchd|ovsdb-server'
}

# ovs_start: start what is not running, the database first, as the
# ovs-vswitchd unit requires.
ovs_start() {
	ovs_running && return 0
	ovs_unit ovsdb-server ExecStart && ovs_unit ovs-vswitchd ExecStart
}

# ovs_stop: stop both, ovs-vswitchd first (systemd's reverse order).
ovs_stop() {
	local rc=0

	ovs_unit ovs-vswitchd ExecStop || rc=1
	ovs_unit ovsdb-server ExecStop || rc=1
	return "$rc"
}

# log_problems [ALLOWED]: ovs-vswitchd.log's WARN, ERR and EMER lines but
# those that only say the emulated CPU is slow (the README lists them, with
# reasons): timeval's "Unreasonably long ...ms poll interval" with its
# rusage lines, from any thread, and ovs_rcu's "blocked ... ms waiting";
# and but those that
# match an ERE line of the file ALLOWED, which a case that provokes a
# warning on purpose writes (as Open vSwitch's own tests list theirs when
# they stop the daemons).  A missing or empty log is a problem too.
log_problems() {
	local allowed=${1:-}

	[ -s "$VSWITCHD_LOG" ] || { echo "$VSWITCHD_LOG is missing or empty"; return 0; }
	grep -E '\|(WARN|ERR|EMER)\|' "$VSWITCHD_LOG" |
		grep -vE '\|timeval(\([a-z0-9_]*\))?\|WARN\||\|ovs_rcu\([a-z0-9_]*\)\|WARN\|blocked [0-9]+ ms waiting' |
		if [ -n "$allowed" ] && [ -s "$allowed" ]; then
			grep -vE -f "$allowed"
		else
			cat
		fi
}

# no_log_problems [ALLOWED]: there are none; show them if there are.
no_log_problems() {
	local found

	found=$(log_problems "$@")
	[ -z "$found" ] || { printf '%s\n' "$found"; return 1; }
}
