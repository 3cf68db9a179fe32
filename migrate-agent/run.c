// SPDX-License-Identifier: GPL-2.0
/*
 * run.c: see run.h.  One poll() loop feeds stdin and drains stdout, so a
 * helper that writes a lot before it reads everything cannot deadlock us.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int append(char **buf, size_t *len, size_t *cap, const char *data,
		  size_t n)
{
	char *bigger;

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		bigger = realloc(*buf, *cap);
		if (!bigger)
			return -1;
		*buf = bigger;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Feed IN and drain the child's stdout until it closes it, or the time
 * limit passes (-1). */
static int exchange(int in_fd, int out_fd, const char *in, char **out,
		    long long deadline)
{
	size_t in_left = in ? strlen(in) : 0, len = 0, cap = 0;
	char chunk[4096];

	if (in_fd >= 0 && !in_left) {
		close(in_fd);
		in_fd = -1;
	}
	while (out_fd >= 0) {
		struct pollfd p[2] = {
			{ .fd = out_fd, .events = POLLIN },
			{ .fd = in_fd, .events = POLLOUT },
		};
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			goto fail;
		if (poll(p, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (p[1].revents) {
			n = write(in_fd, in, in_left);
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				in_left = 0;	/* it stopped reading */
			else if (n > 0)
				in += n, in_left -= n;
			if (!in_left) {
				close(in_fd);
				in_fd = -1;
			}
		}
		if (!p[0].revents)
			continue;
		n = read(out_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(out_fd);
			out_fd = -1;
		} else if (out && append(out, &len, &cap, chunk, n)) {
			goto fail;
		}
	}
	if (in_fd >= 0)
		close(in_fd);
	if (out && !*out)
		*out = strdup("");
	return out && !*out ? -1 : 0;
fail:
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	return -1;
}

int run_cmd(const char *const argv[], const char *in, char **out, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int to_child[2], from_child[2], status, rc;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	if (out)
		*out = NULL;
	if (pipe2(to_child, O_CLOEXEC))
		return -1;
	if (pipe2(from_child, O_CLOEXEC))
		goto err_close_to;
	if (posix_spawn_file_actions_init(&fa))
		goto err_close_from;
	posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
	/* posix_spawnp does not change argv; its prototype predates const */
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		fprintf(stderr, "roam-migrate-agent: cannot run %s: %s\n",
			argv[0], strerror(rc));
		goto err_close_from;
	}
	close(to_child[0]);
	close(from_child[1]);
	/* a blocking write of a big stdin would wait for the child, which
	 * may be waiting for us to read its stdout */
	fcntl(to_child[1], F_SETFL, O_NONBLOCK);
	rc = exchange(to_child[1], from_child[0], in, out, deadline);
	if (rc) {
		fprintf(stderr, "roam-migrate-agent: %s took over %d ms, killed\n",
			argv[0], timeout_ms);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc || !WIFEXITED(status)) {
		free(out ? *out : NULL);
		if (out)
			*out = NULL;
		return -1;
	}
	return WEXITSTATUS(status);

err_close_from:
	close(from_child[0]);
	close(from_child[1]);
err_close_to:
	close(to_child[0]);
	close(to_child[1]);
	return -1;
}
