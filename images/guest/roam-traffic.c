// SPDX-License-Identifier: GPL-2.0
/*
 * roam-traffic: a tiny traffic generator and sink for measuring how long a
 * flow is interrupted while a VM live-migrates.
 *
 *   roam-traffic udp-send HOST PORT INTERVAL_MS [COUNT]
 *   roam-traffic udp-recv PORT [SECONDS]
 *   roam-traffic tcp-send HOST PORT INTERVAL_MS [COUNT]
 *   roam-traffic tcp-recv PORT [SECONDS]
 *
 * HOST is a numeric IPv4 address.  Senders send one 16-byte record (64-bit sequence number, 64-bit send
 * time in ns, both big-endian) every INTERVAL_MS, COUNT times (0 or absent:
 * until killed).  Receivers count the records and print one summary line
 * when SECONDS have passed (0 or absent: never), when the stream ends
 * (TCP), on SIGINT/SIGTERM (then exit) and on SIGUSR1 (then go on):
 *
 *   udp-recv: received=N lost=L max_gap_ms=G max_seq_jump=J
 *   tcp-recv: received=N max_gap_ms=G
 *
 * max_gap_ms is the longest time between two consecutive arrivals;
 * lost and max_seq_jump (the most datagrams missing in a row) come from the
 * sequence numbers.  Exit status 0, or 1 with a message on stderr.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>

struct record {
	uint64_t seq;
	uint64_t sent_ns;
};

static volatile sig_atomic_t stop_flag, report_flag;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report_flag = 1;
	else
		stop_flag = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "roam-traffic: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static long number(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "roam-traffic: bad %s '%s'\n", what, s);
		exit(1);
	}
	return v;
}

/* IPv4 only, numeric addresses only: the guest has no resolver. */
static int open_socket(int type, const char *host, const char *port,
		       int listening)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd, one = 1;

	sin.sin_port = htons(number(port, "port"));
	if (host && inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "roam-traffic: bad IPv4 address '%s'\n", host);
		exit(1);
	}
	fd = socket(AF_INET, type, 0);
	if (fd < 0)
		die("socket");
	if (listening) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
			die("bind");
		if (type == SOCK_STREAM && listen(fd, 1))
			die("listen");
	} else {
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			die("connect");
		if (type == SOCK_STREAM)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
	}
	return fd;
}

static int do_send(int type, char **argv, int argc)
{
	long interval_ms, count;
	struct timespec next;
	struct record r;
	uint64_t seq;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: roam-traffic %s-send HOST PORT INTERVAL_MS [COUNT]\n",
			type == SOCK_DGRAM ? "udp" : "tcp");
		return 1;
	}
	interval_ms = number(argv[2], "interval");
	count = argc == 4 ? number(argv[3], "count") : 0;
	fd = open_socket(type, argv[0], argv[1], 0);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (seq = 0; !stop_flag && (count == 0 || seq < (uint64_t)count); seq++) {
		r.seq = htobe64(seq);
		r.sent_ns = htobe64(now_ns());
		/* UDP: a refused or unreachable datagram is just lost */
		if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) < 0 &&
		    type == SOCK_STREAM)
			die("send");
		next.tv_nsec += interval_ms * 1000000;
		next.tv_sec += next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR && !stop_flag)
			;
	}
	close(fd);
	return 0;
}

struct stats {
	uint64_t received, lost, max_jump;
	uint64_t first_seq, next_seq, last_ns, max_gap_ns;
};

static void account(struct stats *s, uint64_t seq, int udp)
{
	uint64_t t = now_ns();

	if (s->received && t - s->last_ns > s->max_gap_ns)
		s->max_gap_ns = t - s->last_ns;
	s->last_ns = t;
	if (!s->received)
		s->first_seq = s->next_seq = seq;
	s->received++;
	if (udp && seq >= s->next_seq) {
		if (seq - s->next_seq > s->max_jump)
			s->max_jump = seq - s->next_seq;
		s->lost += seq - s->next_seq;
		s->next_seq = seq + 1;
	} else if (udp && s->lost) {
		s->lost--;	/* a late datagram counted as lost before */
	}
}

static void report(const struct stats *s, int udp)
{
	if (udp)
		printf("udp-recv: received=%llu lost=%llu max_gap_ms=%.1f max_seq_jump=%llu\n",
		       (unsigned long long)s->received,
		       (unsigned long long)s->lost, s->max_gap_ns / 1e6,
		       (unsigned long long)s->max_jump);
	else
		printf("tcp-recv: received=%llu max_gap_ms=%.1f\n",
		       (unsigned long long)s->received, s->max_gap_ns / 1e6);
	fflush(stdout);
}

static int do_recv(int type, char **argv, int argc)
{
	int udp = type == SOCK_DGRAM, fd, conn;
	struct stats s = { 0 };
	uint64_t deadline = 0;
	unsigned char buf[sizeof(struct record)];
	size_t have = 0;
	struct record r;

	if (argc < 1 || argc > 2) {
		fprintf(stderr, "usage: roam-traffic %s-recv PORT [SECONDS]\n",
			udp ? "udp" : "tcp");
		return 1;
	}
	if (argc == 2 && number(argv[1], "seconds"))
		deadline = now_ns() + number(argv[1], "seconds") * 1000000000ull;
	fd = open_socket(type, NULL, argv[0], 1);
	conn = fd;
	if (!udp) {
		conn = accept(fd, NULL, NULL);
		if (conn < 0) {
			if (errno == EINTR && stop_flag)
				goto out;
			die("accept");
		}
	}
	while (!stop_flag && (!deadline || now_ns() < deadline)) {
		struct pollfd p = { .fd = conn, .events = POLLIN };
		ssize_t n;

		if (report_flag) {
			report_flag = 0;
			report(&s, udp);
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(conn, buf + have, sizeof(buf) - have, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("recv");
		}
		if (n == 0 && !udp)
			break;
		if (!udp) {
			have += n;
			if (have < sizeof(buf))
				continue;
			have = 0;
		} else if ((size_t)n != sizeof(buf)) {
			continue;
		}
		memcpy(&r, buf, sizeof(r));
		account(&s, be64toh(r.seq), udp);
	}
out:
	report(&s, udp);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	if (argc >= 2 && !strcmp(argv[1], "udp-send"))
		return do_send(SOCK_DGRAM, argv + 2, argc - 2);
	if (argc >= 2 && !strcmp(argv[1], "tcp-send"))
		return do_send(SOCK_STREAM, argv + 2, argc - 2);
	if (argc >= 2 && !strcmp(argv[1], "udp-recv"))
		return do_recv(SOCK_DGRAM, argv + 2, argc - 2);
	if (argc >= 2 && !strcmp(argv[1], "tcp-recv"))
		return do_recv(SOCK_STREAM, argv + 2, argc - 2);
	fprintf(stderr,
		"usage: roam-traffic udp-send|tcp-send HOST PORT INTERVAL_MS [COUNT]\n"
		"       roam-traffic udp-recv|tcp-recv PORT [SECONDS]\n");
	return 1;
}
