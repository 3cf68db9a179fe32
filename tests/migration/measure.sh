# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# measure.sh: reading the migration suite's measurements, apart from
# everything that needs a host, so that the unit suite can feed it what
# virsh and roam-traffic print (tests/unit/migration-measure.sh).
#
#   downtimes N      the job-completed downtimes in host N's event log
#   field LINE KEY   KEY's value in a "key=value ..." line
#   streams_answer LINE  a probe window closed with both streams answering
#   summarize FILE   the closing line for a results file

# A probe window closes on a stopped stream when that stream's last
# answer came this long before (ms), or none came: the nested guest's
# own stalls under TCG reach 1 s.
QUIET_MAX_MS=3000

# downtimes N: the downtimes (ms) of the job-completed events that host N
# reported so far, one a line.
downtimes() {
	awk '/event .job-completed./ { job = 1; next }
		job && $1 == "downtime:" { print $2; job = 0 }
		/^[^\t]/ { job = 0 }' "${MIG_EVENTS:-$MIG/events}.$1"
}

# field LINE KEY: KEY's value in a "key=value ..." line.
field() {
	sed -nE "s/.*(^| )$2=([^ ]*).*/\\2/p" <<<"$1"
}

# streams_answer LINE: the probe window LINE's last TCP echo and UDP
# answer came under QUIET_MAX_MS before it closed (tcp_quiet_ms,
# udp_quiet_ms; -1: none ever came).  The window's counts are read from
# the guest's answers, so without this a stream that stopped would read
# as one that lost nothing.
streams_answer() {
	local f q

	for f in tcp_quiet_ms udp_quiet_ms; do
		q=$(field "$1" "$f")
		[ -n "$q" ] || { echo "no $f"; return 1; }
		awk -v q="$q" -v max="$QUIET_MAX_MS" 'BEGIN { exit !(q >= 0 && q < max) }' ||
			{ echo "$f=$q"; return 1; }
	done
}

# summarize FILE: the suite's closing line for the measurements in FILE
# (one "downtime=D probe: ..." line per migration); fails, naming it, if
# a line lacks the probe's report, the downtime or the streams' quiet
# times, or if a stream had stopped when its window closed (as
# streams_answer tells): an incomplete measurement, or one of a guest
# that stopped answering, never reads as a good one.
summarize() {
	awk -v max="$QUIET_MAX_MS" '!/ tcp_sent=[0-9]/ || !/^downtime=[0-9]/ || !/ tcp_quiet_ms=/ || !/ udp_quiet_ms=/ {
		printf "migration %d has no complete measurement: %s\n", NR, $0 > "/dev/stderr"
		bad = 1
	}
	{
		delete v
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		if (("tcp_quiet_ms" in v && (v["tcp_quiet_ms"] < 0 || v["tcp_quiet_ms"] >= max)) ||
		    ("udp_quiet_ms" in v && (v["udp_quiet_ms"] < 0 || v["udp_quiet_ms"] >= max))) {
			printf "migration %d: the guest had stopped answering: %s\n", NR, $0 > "/dev/stderr"
			bad = 1
		}
		n++
		resets += v["resets"]
		lost += v["tcp_lost"]
		if (v["tcp_max_gap_ms"] + 0 > gap) gap = v["tcp_max_gap_ms"] + 0
		if (v["downtime"] + 0 > down) down = v["downtime"] + 0
		ulost += v["udp_lost"]
		sent += v["udp_sent"]
	}
	END {
		if (bad || !n)
			exit 1
		printf "migrations %d, resets %d, lost %d, max gap %.0f ms, max downtime %d ms, udp lost %d of %d\n",
			n, resets, lost, gap, down, ulost, sent
	}' "$1"
}
