#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# full.sh [launch.sh OPTIONS...]: the hardening suite at the issue's full
# length, as `./roam test hardening-full` runs it (on demand: about two
# hours on the host kernel; the CI's hardening-host runs it short): the
# fuzzer's FUZZ_COUNT requests per family and as many frames (default
# 200,000) and STRESS_SECONDS of stress (default 300), on both modules of
# one boot, and the differential run (cases/15-fuzz-diff.sh) with a new
# seed, FUZZ_DIFF_SEED.  FUZZ_SEED repeats a run; `--debug-kernel` (a launch.sh
# option) runs it on the debug kernel.  The options name the tools too
# (--tool FILE: genl-fuzz and flow-churn, as meson built them).  Prints
# launch.sh's TAP stream, the summary line of each pass among it, and
# exits with its status.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

envs=(--env "FUZZ_COUNT=${FUZZ_COUNT:-200000}"
	--env "STRESS_SECONDS=${STRESS_SECONDS:-300}")
[ -z "${FUZZ_SEED:-}" ] || envs+=(--env "FUZZ_SEED=$FUZZ_SEED")
# The differential run: a seed of its own, 10,000 requests per family.
envs+=(--env "FUZZ_DIFF_SEED=${FUZZ_DIFF_SEED:-$(date +%s%N | cut -c1-15)}"
	--env "FUZZ_DIFF_COUNT=${FUZZ_DIFF_COUNT:-10000}")
# A day at most: the fuzzer's own limit per request (5 s) keeps a hung
# answer from stalling it for longer.
exec "$top/tests/kernel/launch.sh" --suite hardening --pass in-tree \
	--pass ours --boot fast --timeout 86400 "${envs[@]}" "$@"
