#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# full.sh [launch.sh OPTIONS...]: every test of Open vSwitch's kernel
# testsuite on both modules of the host kernel, in one boot (the in-tree
# pass, then ours), as `./roam test ovs-full` runs it; then the per-test
# table of both passes, written to tests/ovs-kmod/results.md (or
# $OVS_KMOD_RESULTS) for committing.  Prints launch.sh's TAP stream and
# exits with its status; the table is written from the stream's
# "# kmod-result" comments, also when some tests failed.  OVS_KMOD_TESTS=
# FIRST-LAST runs only those tests (default all).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
results=${OVS_KMOD_RESULTS:-$here/results.md}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
rc=0
"$top/tests/kernel/launch.sh" --suite ovs-kmod --pass in-tree --pass ours \
	--env OVS_KMOD_TESTS="${OVS_KMOD_TESTS:-all}" "$@" | tee "$out" || rc=$?
secs=$(($(date +%s) - t0))

source_version=$(sed -n 's/.*built from openvswitch-source \([^ ,]*\).*/\1/p' "$out" | sed -n 1p)
{
	cat <<-EOT
		# Open vSwitch's kernel testsuite on both modules

		Written by \`tests/ovs-kmod/full.sh\` (\`./roam test ovs-full\`): every
		test (\`OVS_KMOD_TESTS=${OVS_KMOD_TESTS:-all}\`) of \`tests/system-kmod-testsuite\` from Debian's openvswitch-source
		${source_version:-(version not seen)}, on the host kernel, the in-tree
		module's pass then ours, in one boot.  Started $started, took ${secs} s,
		launch.sh exited $rc.  \`pass\`, \`FAIL (where)\`, \`skip (where)\` as
		the testsuite reported it; \`timeout\`: killed at the per-test limit;
		\`not run\`: the run ended before it.  The last column is the
		point the suite gave ours: \`ok\`, \`skip\` (the testsuite skipped it,
		or \`tests/ovs-kmod/expect\` lists the difference) or \`not ok\`.

		| # | test | in-tree | s | ours | s | ours' point |
		|---:|---|---|---:|---|---:|---|
	EOT
	tr -d '\r' <"$out" | awk '
		/^# kmod-result / {
			pass = $3; n = $4; res = $5; s = $6
			t = $0; sub(/^# kmod-result [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", t)
			title[n] = t; r[pass, n] = res; sec[pass, n] = s
			if (!(n in seen)) { order[++count] = n; seen[n] = 1 }
			next
		}
		/^(not )?ok [0-9]+ - \[ours\] [0-9]+: / {
			line = $0; sub(/^(not )?ok [0-9]+ - \[ours\] /, "", line)
			n = line; sub(/:.*/, "", n)
			point[n] = ($0 ~ /^not ok/) ? "not ok" : ($0 ~ /# SKIP/) ? "skip" : "ok"
		}
		function cell(x) {
			if (x == "") return "not run"
			if (x == "fail") return "FAIL"
			return x
		}
		END {
			for (i = 1; i <= count; i++) {
				n = order[i]
				printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, title[n],
					cell(r["in-tree", n]), sec["in-tree", n],
					cell(r["ours", n]), sec["ours", n], point[n]
			}
		}'
	echo
	tr -d '\r' <"$out" | awk '
		/^# kmod-result / { c[$3 " " $5]++; s[$3] += $6 }
		END {
			for (p in s)
				printf "- %s: %d pass, %d fail, %d skip, %d timeout, %d error; %d s of tests\n",
					p, c[p " pass"], c[p " fail"], c[p " skip"], c[p " timeout"],
					c[p " error"], s[p]
		}' | sort
} >"$results.tmp" && mv "$results.tmp" "$results"
echo "# results table: $results"
exit "$rc"
