// SPDX-License-Identifier: GPL-2.0
/*
 * run-test: run_cmd (run.c) against real programs, as TAP (meson test
 * agent-run, suite unit): output collected whole, stdin fed in full
 * while the child writes (no deadlock on big pipes), exit statuses, a
 * missing program, and a child past its time limit killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

static int n, failed;

static void point(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, what);
	failed += !ok;
}

int main(void)
{
	const char *echo[] = { "sh", "-c", "printf 'a\\nb\\n'", NULL };
	const char *cat[] = { "cat", NULL };
	const char *status[] = { "sh", "-c", "exit 3", NULL };
	const char *missing[] = { "roam-no-such-program", NULL };
	const char *slow[] = { "sleep", "10", NULL };
	size_t big = 1 << 20, i;
	struct timespec t0, t1;
	char *out, *in;
	int rc;

	printf("TAP version 13\n1..9\n");
	rc = run_cmd(echo, NULL, &out, 5000);
	point(rc == 0 && out && !strcmp(out, "a\nb\n"), "stdout is collected whole");
	free(out);

	in = malloc(big + 1);
	if (!in)
		return 1;
	for (i = 0; i < big; i++)
		in[i] = 'a' + i % 26;
	in[big] = '\0';
	rc = run_cmd(cat, in, &out, 20000);
	point(rc == 0, "a 1 MiB stdin fed to a child that writes it back (no deadlock)");
	point(out && strlen(out) == big && !memcmp(out, in, big), "... and read back intact");
	free(out);
	free(in);

	rc = run_cmd(status, NULL, &out, 5000);
	point(rc == 3, "the child's exit status is returned");
	point(out && !strcmp(out, ""), "an empty stdout reads as empty, not as a failure");
	free(out);

	rc = run_cmd(missing, NULL, &out, 5000);
	point(rc == -1 && !out, "a missing program is -1, with no output");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run_cmd(slow, NULL, &out, 300);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	point(rc == -1 && !out, "a child past its time limit is -1");
	point(t1.tv_sec - t0.tv_sec < 5, "... and killed, not waited for");

	rc = run_cmd(cat, "x", NULL, 5000);
	point(rc == 0, "output can be ignored (OUT NULL)");
	printf("# %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
