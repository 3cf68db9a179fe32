# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Unloading the module leaves nothing behind: no module, no families, no
# devices.  The clean kernel log (no lockdep, KASAN, kmemleak or WARN
# report on the debug kernel) is the check that closes each pass in
# run.sh, right after this case.

check_unload
