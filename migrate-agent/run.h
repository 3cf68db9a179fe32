/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h: run a helper program (roam-port, ovs-ofctl, ovs-vsctl) the way
 * the agent needs it: no shell, its stdin from a string, its stdout
 * collected, a time limit.
 */
#ifndef ROAM_AGENT_RUN_H
#define ROAM_AGENT_RUN_H

/*
 * run_cmd - run ARGV[0] (found on PATH) with ARGV, feeding it IN (may be
 * NULL) and, if OUT is not NULL, storing its stdout, NUL-terminated, in a
 * malloc()ed *OUT.  Its stderr goes to ours.  A helper still running
 * after TIMEOUT_MS is killed.  Returns its exit status, or -1 (with a
 * message on stderr) if it could not run, was killed or timed out.
 */
int run_cmd(const char *const argv[], const char *in, char **out, int timeout_ms);

#endif
