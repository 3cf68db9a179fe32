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
 * sequence numbers.
 *
 * For a migrating guest, a pair that measures both directions from one
 * side, the peer's:
 *
 *   roam-traffic echo PORT [RCVBUF]
 *   roam-traffic probe HOST PORT INTERVAL_MS [TRACE]
 *
 * echo (in the guest) returns every record of any TCP connection to PORT
 * as it came (its UDP socket's receive buffer RCVBUF bytes, if given), and answers every UDP datagram to PORT with the record plus
 * the number of datagrams it has received from that sender since its
 * sequence number 0, each counted once, and the number that came again
 * (a sequence number seen among the last 65,536).  probe (the peer) keeps one TCP connection and one
 * UDP stream to the echo, one record each every INTERVAL_MS.  From the
 * answers it counts, per window:
 *
 *   probe: tcp_sent=N tcp_echoed=E tcp_lost=L tcp_dup=D resets=R
 *          tcp_max_gap_ms=G udp_sent=S udp_lost=U udp_max_gap_ms=H
 *          udp_dup=V own_frames=O tcp_quiet_ms=Q udp_quiet_ms=P
 *
 * (one line).  tcp_lost and tcp_dup are records the echo stream skipped
 * or repeated, counting the unanswered records of a connection that
 * failed; resets are failed connections that had carried a record
 * (probe reconnects, once per interval, and a refused attempt is not
 * counted again); udp_lost is
 * the datagrams the guest had not received by its newest answer, from its
 * own count, so a lost answer is not counted as a lost datagram, nor one
 * that reached the guest after later ones (a window ends seconds after
 * the traffic it measures); udp_dup the datagrams the guest got twice,
 * by its count; own_frames the frames the guest's NIC received from
 * its own MAC (echo counts them on a packet socket, and prints each on
 * its stdout); the gaps are the longest times between two answers;
 * tcp_quiet_ms and udp_quiet_ms the time since the last answer when the
 * window closes (-1: none ever came), so that a stream that stopped
 * does not read as one that lost nothing.  SIGUSR1 prints the window and opens the
 * next; SIGINT/SIGTERM print the last one and exit.  TRACE, if given,
 * gets one line per answer: "t|u MS SEQ RTT", MS the wall clock
 * (CLOCK_REALTIME, ms since the epoch), which the migration agent's
 * timeline on the same host uses too, and RTT the answer's round trip in
 * ms (MS - RTT is when its record was sent).
 *
 * Exit status 0, or 1 with a message on stderr.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
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
#include <ifaddrs.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
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

/* An echo's UDP answer: the record, then the sender's datagrams so far. */
struct answer {
	struct record r;
	uint64_t received;	/* datagrams from this sender, each once */
	uint64_t dups;		/* and those that came again */
	uint64_t own;		/* frames from the echo's own MAC it received */
};

/*
 * The echo's own frames back: a packet socket on the guest's NIC (the
 * first with an IPv4 address) that takes in only what the NIC received
 * from its own MAC, not what it sent (a classic BPF filter: the rest is
 * dropped before it is copied).  A migrated guest must never get its own
 * frames back (a stale broadcast of its own, queued in its new tap, read
 * at the resume: the duplicate-address trap).  Returns the socket; dies
 * when it cannot be made, rather than count nothing.
 */
static int own_frames_open(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 4, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),	/* k: MAC[0..3] */
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 10),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),	/* k: MAC[4..5] */
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 64),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]),
				   .filter = code };
	struct ifaddrs *ifa, *i;
	const unsigned char *mac = NULL;
	const char *nic = NULL;
	int fd;

	if (getifaddrs(&ifa))
		die("getifaddrs");
	/* the NIC is the one with an IPv4 address (a kernel may make a
	 * dummy0 of its own, with a MAC and no address) */
	for (i = ifa; i && !nic; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    !(i->ifa_flags & IFF_LOOPBACK))
			nic = i->ifa_name;
	for (i = ifa; i && nic && !mac; i = i->ifa_next) {
		struct sockaddr_ll *a = (struct sockaddr_ll *)i->ifa_addr;

		if (!a || a->sll_family != AF_PACKET || strcmp(i->ifa_name, nic) ||
		    a->sll_halen != ETH_ALEN)
			continue;
		mac = a->sll_addr;
		sll.sll_ifindex = a->sll_ifindex;
	}
	if (!mac) {
		errno = ENODEV;
		die("no NIC for the own-frame count");
	}
	code[3].k = (uint32_t)mac[0] << 24 | mac[1] << 16 | mac[2] << 8 | mac[3];
	code[5].k = (uint32_t)mac[4] << 8 | mac[5];
	freeifaddrs(ifa);
	/* protocol 0 until the filter is on: nothing unfiltered queues */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("the own-frame packet socket");
	return fd;
}

/* Count, and name on stdout (the guest's console), the own frames FD
 * has received. */
static void own_frames_read(int fd, uint64_t *own)
{
	unsigned char f[64];
	ssize_t n;

	while ((n = recv(fd, f, sizeof(f), 0)) >= 0) {
		(*own)++;
		if (n >= ETH_HLEN)
			printf("echo: own frame back: to %02x:%02x:%02x:%02x:%02x:%02x, ethertype 0x%02x%02x\n",
			       f[0], f[1], f[2], f[3], f[4], f[5], f[12], f[13]);
	}
}

/* How far back the echo remembers which sequence numbers it has seen:
 * a datagram that comes again after more than this many is counted
 * anew, not as a duplicate. */
#define ECHO_WINDOW 65536

/* The echo's view of its current UDP sender. */
struct echo_udp_state {
	struct sockaddr_in last;
	uint64_t received, dups;
	uint64_t own;			/* own frames back, since the start */
	uint64_t seen[ECHO_WINDOW];	/* seq + 1 in slot seq % ECHO_WINDOW */
};

#define ECHO_CONNS 8

/* A TCP connection of echo: what it has read of its current record. */
struct echo_conn {
	int fd;
	size_t have;
	unsigned char buf[sizeof(struct record)];
};

static void echo_udp(int fd, struct echo_udp_state *st)
{
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	struct answer a;
	uint64_t seq;
	ssize_t n;

	n = recvfrom(fd, &a.r, sizeof(a.r), 0, (struct sockaddr *)&from, &len);
	if (n != sizeof(a.r))
		return;
	seq = be64toh(a.r.seq);
	/* a new sender, or a sender that started over */
	if (!seq || from.sin_addr.s_addr != st->last.sin_addr.s_addr ||
	    from.sin_port != st->last.sin_port) {
		st->received = st->dups = 0;
		memset(st->seen, 0, sizeof(st->seen));
	}
	st->last = from;
	if (st->seen[seq % ECHO_WINDOW] == seq + 1) {
		st->dups++;
	} else {
		st->seen[seq % ECHO_WINDOW] = seq + 1;
		st->received++;
	}
	a.received = htobe64(st->received);
	a.dups = htobe64(st->dups);
	a.own = htobe64(st->own);
	sendto(fd, &a, sizeof(a), 0, (struct sockaddr *)&from, len);
}

/* Returns 0 when the connection is over (closed by the caller). */
static int echo_tcp(struct echo_conn *c)
{
	ssize_t n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, 0);

	if (n <= 0)
		return n < 0 && errno == EINTR;
	c->have += n;
	if (c->have < sizeof(c->buf))
		return 1;
	c->have = 0;
	return send(c->fd, c->buf, sizeof(c->buf), MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(c->buf);
}

static int do_echo(char **argv, int argc)
{
	struct pollfd p[3 + ECHO_CONNS];
	struct echo_conn conns[ECHO_CONNS];
	static struct echo_udp_state udp_state;
	int i, n, rcvbuf;

	if (argc < 1 || argc > 2) {
		fprintf(stderr, "usage: roam-traffic echo PORT [RCVBUF]\n");
		return 1;
	}
	rcvbuf = argc == 2 ? (int)number(argv[1], "RCVBUF") : 0;
	if (argc == 2 && rcvbuf != number(argv[1], "RCVBUF")) {
		fprintf(stderr, "roam-traffic: RCVBUF '%s' is too large\n", argv[1]);
		return 1;
	}
	p[0].fd = open_socket(SOCK_STREAM, NULL, argv[0], 1);
	p[1].fd = open_socket(SOCK_DGRAM, NULL, argv[0], 1);
	p[2].fd = own_frames_open();
	/* A migrated guest gets what was queued for it during its pause at
	 * once when it resumes: a second of the probe's datagrams is more
	 * than the default 208 KiB hold at a virtio buffer each.  RCVBUF
	 * sizes the socket for that (as root, above rmem_max). */
	if (rcvbuf > 0 &&
	    setsockopt(p[1].fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(p[1].fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF");
	for (i = 0; i < ECHO_CONNS; i++)
		conns[i].fd = -1;
	printf("echo: listening on %s\n", argv[0]);
	while (!stop_flag) {
		for (i = 0; i < 3 + ECHO_CONNS; i++) {
			if (i >= 3)
				p[i].fd = conns[i - 3].fd;
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		n = poll(p, 3 + ECHO_CONNS, -1);
		if (n < 0 && errno != EINTR)
			die("poll");
		if (n <= 0)
			continue;
		/* before the datagrams: their answers carry the count */
		if (p[2].revents)
			own_frames_read(p[2].fd, &udp_state.own);
		if (p[1].revents)
			echo_udp(p[1].fd, &udp_state);
		for (i = 0; i < ECHO_CONNS; i++) {
			if (!p[3 + i].revents || echo_tcp(&conns[i]))
				continue;
			close(conns[i].fd);
			conns[i].fd = -1;
		}
		if (!p[0].revents)
			continue;
		for (i = 0; i < ECHO_CONNS && conns[i].fd >= 0; i++)
			;
		n = accept(p[0].fd, NULL, NULL);
		if (n < 0)
			continue;
		if (i == ECHO_CONNS) {
			close(n);	/* a leaked peer must not starve the rest */
			continue;
		}
		conns[i].fd = n;
		conns[i].have = 0;
	}
	return 0;
}

/* What probe has seen in the current window, and across windows. */
struct probe {
	const char *host, *port;
	FILE *trace;
	int tcp, udp;
	int tcp_up;		/* the connection has carried a record */
	/* TCP: records sent on the current connection start at conn_seq */
	uint64_t tcp_seq, tcp_next_echo, tcp_last_ns;
	unsigned char tcp_buf[sizeof(struct record)];
	size_t tcp_have;
	/* UDP */
	uint64_t udp_seq, udp_last_ns, udp_lost_before;
	uint64_t udp_top;	/* the newest datagram answered */
	uint64_t udp_dups, udp_dups_before;	/* the echo's count, now and
						 * at the window's start */
	uint64_t own, own_before;		/* the echo's own frames back,
						 * likewise */
	/* the window's counts */
	uint64_t tcp_sent, tcp_echoed, tcp_lost, tcp_dup, resets;
	uint64_t tcp_max_gap, udp_sent, udp_max_gap;
};

/* ms since LAST_NS (an answer's time), -1 if there was none. */
static double quiet_ms(uint64_t last_ns, uint64_t t)
{
	return last_ns ? (t - last_ns) / 1e6 : -1;
}

static void probe_report(struct probe *pr, uint64_t udp_lost)
{
	uint64_t t = now_ns();

	printf("probe: tcp_sent=%llu tcp_echoed=%llu tcp_lost=%llu tcp_dup=%llu resets=%llu tcp_max_gap_ms=%.1f udp_sent=%llu udp_lost=%llu udp_max_gap_ms=%.1f udp_dup=%llu own_frames=%llu tcp_quiet_ms=%.1f udp_quiet_ms=%.1f\n",
	       (unsigned long long)pr->tcp_sent,
	       (unsigned long long)pr->tcp_echoed,
	       (unsigned long long)pr->tcp_lost,
	       (unsigned long long)pr->tcp_dup,
	       (unsigned long long)pr->resets, pr->tcp_max_gap / 1e6,
	       (unsigned long long)pr->udp_sent,
	       /* what was found missing meanwhile, less what arrived late */
	       (unsigned long long)(udp_lost > pr->udp_lost_before ?
				    udp_lost - pr->udp_lost_before : 0),
	       pr->udp_max_gap / 1e6,
	       (unsigned long long)(pr->udp_dups - pr->udp_dups_before),
	       (unsigned long long)(pr->own - pr->own_before),
	       quiet_ms(pr->tcp_last_ns, t), quiet_ms(pr->udp_last_ns, t));
	fflush(stdout);
	pr->udp_dups_before = pr->udp_dups;
	pr->own_before = pr->own;
	pr->tcp_sent = pr->tcp_echoed = pr->tcp_lost = pr->tcp_dup = 0;
	pr->resets = pr->tcp_max_gap = pr->udp_sent = pr->udp_max_gap = 0;
	pr->udp_lost_before = udp_lost;
}

static void gap(uint64_t *last_ns, uint64_t *max_gap, uint64_t t)
{
	if (*last_ns && t - *last_ns > *max_gap)
		*max_gap = t - *last_ns;
	*last_ns = t;
}

/*
 * One line per answer: its kind, when it came (ms on the wall clock),
 * its sequence number, and its round trip in ms (from the stamp the
 * record carries there and back), which dates its sending on the same
 * wall clock.
 */
static void trace(struct probe *pr, char what, const struct record *r,
		  uint64_t t)
{
	struct timespec ts;

	if (!pr->trace)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(pr->trace, "%c %lld.%03ld %llu %.3f\n", what,
		(long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
		ts.tv_nsec / 1000 % 1000, (unsigned long long)be64toh(r->seq),
		(double)(t - be64toh(r->sent_ns)) / 1e6);
}

/* (Re)connect without blocking the UDP stream: connect completes later. */
static void probe_connect(struct probe *pr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int one = 1;

	sin.sin_port = htons(number(pr->port, "port"));
	inet_pton(AF_INET, pr->host, &sin.sin_addr);
	pr->tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (pr->tcp < 0)
		die("socket");
	setsockopt(pr->tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(pr->tcp, (struct sockaddr *)&sin, sizeof(sin)) &&
	    errno != EINPROGRESS)
		die("connect");
	pr->tcp_have = 0;
	pr->tcp_next_echo = pr->tcp_seq;
}

/* The connection failed: what it did not echo is lost; the next send
 * reconnects, so a refused connection is retried once per interval. */
static void probe_reset(struct probe *pr)
{
	close(pr->tcp);
	pr->tcp = -1;
	pr->tcp_lost += pr->tcp_seq - pr->tcp_next_echo;
	pr->resets += pr->tcp_up;
	pr->tcp_up = 0;
}

static void probe_tcp_in(struct probe *pr)
{
	struct record r;
	uint64_t t, seq;
	ssize_t n;

	n = recv(pr->tcp, pr->tcp_buf + pr->tcp_have,
		 sizeof(pr->tcp_buf) - pr->tcp_have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		probe_reset(pr);
		return;
	}
	pr->tcp_have += n;
	if (pr->tcp_have < sizeof(pr->tcp_buf))
		return;
	pr->tcp_have = 0;
	memcpy(&r, pr->tcp_buf, sizeof(r));
	seq = be64toh(r.seq);
	t = now_ns();
	trace(pr, 't', &r, t);
	gap(&pr->tcp_last_ns, &pr->tcp_max_gap, t);
	pr->tcp_echoed++;
	if (seq < pr->tcp_next_echo) {
		pr->tcp_dup++;
		return;
	}
	pr->tcp_lost += seq - pr->tcp_next_echo;
	pr->tcp_next_echo = seq + 1;
}

/* Returns the datagrams lost so far by the guest's count. */
static uint64_t probe_udp_in(struct probe *pr, uint64_t lost)
{
	struct answer a;
	uint64_t t, seq;

	if (recv(pr->udp, &a, sizeof(a), 0) != sizeof(a))
		return lost;
	seq = be64toh(a.r.seq);
	t = now_ns();
	trace(pr, 'u', &a.r, t);
	gap(&pr->udp_last_ns, &pr->udp_max_gap, t);
	/* the echo's count only grows: a late answer knew less */
	if (be64toh(a.dups) > pr->udp_dups)
		pr->udp_dups = be64toh(a.dups);
	if (be64toh(a.own) > pr->own)
		pr->own = be64toh(a.own);
	/* seq + 1 were sent before this one's answer; the guest had seen
	 * received of them.  The newest answer tells: one that comes late
	 * knew less, and a datagram the guest got out of order (after a
	 * later one) is counted while it was missing, not for ever. */
	if (seq < pr->udp_top)
		return lost;
	pr->udp_top = seq;
	return seq + 1 >= be64toh(a.received) ? seq + 1 - be64toh(a.received) : 0;
}

static void probe_send(struct probe *pr)
{
	struct record r = { .sent_ns = htobe64(now_ns()) };

	r.seq = htobe64(pr->udp_seq++);
	send(pr->udp, &r, sizeof(r), MSG_NOSIGNAL);	/* may be lost */
	pr->udp_sent++;
	if (pr->tcp < 0)
		probe_connect(pr);
	r.seq = htobe64(pr->tcp_seq);
	/* a whole record or nothing: 16 bytes fit any free socket buffer;
	 * a connection still opening (or gone) makes this record lost */
	if (send(pr->tcp, &r, sizeof(r), MSG_NOSIGNAL) == sizeof(r)) {
		pr->tcp_seq++;
		pr->tcp_sent++;
		pr->tcp_up = 1;
	} else if (errno != EAGAIN && errno != ENOTCONN) {
		probe_reset(pr);
	}
}

/* The probe's UDP receive buffer: some seconds of answers at once. */
static const int probe_rcvbuf = 8 << 20;

static int do_probe(char **argv, int argc)
{
	struct probe pr = { .host = argv[0], .port = argv[1] };
	uint64_t udp_lost = 0, interval, next;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: roam-traffic probe HOST PORT INTERVAL_MS [TRACE]\n");
		return 1;
	}
	interval = number(argv[2], "interval") * 1000000ull;
	if (!interval) {
		fprintf(stderr, "roam-traffic: the interval must not be 0\n");
		return 1;
	}
	if (argc == 4) {
		pr.trace = fopen(argv[3], "w");
		if (!pr.trace)
			die(argv[3]);
		setvbuf(pr.trace, NULL, _IOLBF, 0);
	}
	pr.udp = open_socket(SOCK_DGRAM, pr.host, pr.port, 0);
	/* A guest that resumes answers a pause's datagrams at once: a
	 * burst the default 208 KiB would drop here (269 answers, seen on
	 * the peer's port, once), a gap that was not the guest's. */
	if (setsockopt(pr.udp, SOL_SOCKET, SO_RCVBUFFORCE, &probe_rcvbuf,
		       sizeof(probe_rcvbuf)) &&
	    setsockopt(pr.udp, SOL_SOCKET, SO_RCVBUF, &probe_rcvbuf,
		       sizeof(probe_rcvbuf)))
		die("SO_RCVBUF");
	probe_connect(&pr);
	next = now_ns();
	while (!stop_flag) {
		struct pollfd p[2] = {
			{ .fd = pr.tcp, .events = POLLIN },
			{ .fd = pr.udp, .events = POLLIN },
		};
		uint64_t t = now_ns();
		int timeout;

		if (report_flag) {
			report_flag = 0;
			probe_report(&pr, udp_lost);
		}
		if (t >= next) {
			probe_send(&pr);
			next += interval;
			continue;
		}
		timeout = (next - t) / 1000000 + 1;
		if (poll(p, 2, timeout) <= 0)
			continue;
		if (p[0].revents & (POLLIN | POLLERR | POLLHUP))
			probe_tcp_in(&pr);
		if (p[1].revents & POLLIN)
			udp_lost = probe_udp_in(&pr, udp_lost);
	}
	probe_report(&pr, udp_lost);
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
	if (argc >= 2 && !strcmp(argv[1], "echo"))
		return do_echo(argv + 2, argc - 2);
	if (argc >= 2 && !strcmp(argv[1], "probe"))
		return do_probe(argv + 2, argc - 2);
	fprintf(stderr,
		"usage: roam-traffic udp-send|tcp-send HOST PORT INTERVAL_MS [COUNT]\n"
		"       roam-traffic udp-recv|tcp-recv PORT [SECONDS]\n"
		"       roam-traffic echo PORT\n"
		"       roam-traffic probe HOST PORT INTERVAL_MS [TRACE]\n");
	return 1;
}
