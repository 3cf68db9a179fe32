// SPDX-License-Identifier: GPL-2.0
/*
 * flow-churn: change and read a datapath's flow table as fast as Generic
 * Netlink allows, for the races the kernel suite provokes.
 *
 *   flow-churn put DP COUNT
 *   flow-churn dump DP SECONDS
 *   flow-churn swap DP SECONDS [PAUSE_MS]
 *   flow-churn rate DP COUNT BATCH
 *
 * put:  COUNT flow puts (OVS_FLOW_CMD_NEW with NLM_F_CREATE), each with its
 *       own UFID and key, in_port(1),eth(),eth_type(0x0800),ipv4(src=...,
 *       dst=...) with actions 2 (up to 65536 of them); then prints "put OK N", "put ENOMEM N" and
 *       "put other N" (the first other errno is named on stderr).  The
 *       flows are left in place.
 * dump: dumps the flows again and again for SECONDS; prints "dumps N"
 *       (complete dumps), "flows N" (flows seen in all of them together)
 *       and "maskless N" (flows dumped without OVS_FLOW_ATTR_MASK).
 * swap: installs flows whose masks all differ, all with actions 2, in this
 *       order: S1 in_port(1),eth(),eth_type(0x0800),ipv4(proto=17),udp();
 *       twenty ARP flows A0..A19 in_port(1),eth(),eth_type(0x0806),
 *       arp(tha=B/B) with B the target address with bit N alone set, for N
 *       from 0 to 19: no IPv4 packet matches them, a lookup tries each in
 *       turn, and none covers another; and S2
 *       in_port(1),eth(),eth_type(0x0800),ipv4(dst=198.51.100.2).  Then for
 *       SECONDS deletes and re-adds S1, then S2, so that a UDP packet from
 *       port 1 to 198.51.100.2 always has at least one of S1 and S2 to
 *       match, waiting PAUSE_MS (default 10) after each add: a lookup that
 *       walks the masks while both flows change could otherwise miss with
 *       no fault of the table's, having found neither flow in its slot
 *       when it looked.  Prints "cycles N" and deletes its flows.
 *
 * rate: the control plane's speed.  The flows of put, COUNT of them
 *       (at most 65536), sent BATCH requests to a sendmsg() (the kernel
 *       runs every request of a buffer in turn), then every ack read;
 *       then a wait until the host is quiet (settle()), then one dump of
 *       them all; prints "flows N" (installed), "installs_per_s R",
 *       "settle_busy_ms M" (the CPU time the installs left behind, which
 *       R counts), "dumped N" (flows the dump returned) and
 *       "dumped_per_s R".  The flows are left in place.
 *
 * Exit status 0 when every request got an answer (for swap: the answer it
 * expected), 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/openvswitch.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "flow-churn";

static struct nl_sock *sk;
static int flow_family;
static int dp_ifindex;

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct nl_msg *flow_request(int cmd, int flags)
{
	struct ovs_header *oh;
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		die("nlmsg_alloc", ENOMEM);
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, flow_family,
			 sizeof(*oh), flags, cmd, OVS_FLOW_VERSION);
	if (!oh)
		die("genlmsg_put", EMSGSIZE);
	oh->dp_ifindex = dp_ifindex;
	return msg;
}

/*
 * Send MSG (consumed) and read until its acknowledgement: 0 or a positive
 * errno.  Other messages (notifications, echoes) are ignored.
 */
static int transact(struct nl_msg *msg)
{
	int err = nl_send_auto(sk, msg);

	nlmsg_free(msg);
	if (err < 0)
		die("sending", EIO);
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, answer = -1;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0)
			die("receiving", EIO);
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len))
			if (nlh->nlmsg_type == NLMSG_ERROR)
				answer = -((struct nlmsgerr *)nlmsg_data(nlh))->error;
		free(buf);
		if (answer >= 0)
			return answer;
	}
}

/*
 * One IPv4 flow's key or mask attribute, nested as TYPE.  A UDP key must
 * name its ports, if only as wildcards: they are left all zero.
 */
static void put_ipv4_match(struct nl_msg *msg, int type, uint32_t in_port,
			   uint16_t eth_type, const struct ovs_key_ipv4 *ip,
			   bool udp)
{
	struct ovs_key_ethernet eth = { 0 };
	struct ovs_key_udp ports = { 0 };
	struct nlattr *nest;

	nest = nla_nest_start(msg, type);
	if (!nest || nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, in_port) ||
	    nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth) ||
	    nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE, htons(eth_type)) ||
	    nla_put(msg, OVS_KEY_ATTR_IPV4, sizeof(*ip), ip) ||
	    (udp && nla_put(msg, OVS_KEY_ATTR_UDP, sizeof(ports), &ports)))
		die("building a key", EMSGSIZE);
	nla_nest_end(msg, nest);
}

/* An ARP flow's key or mask: only bit BIT of the target MAC is set. */
static void put_arp_match(struct nl_msg *msg, int type, uint32_t in_port,
			  uint16_t eth_type, int bit)
{
	struct ovs_key_ethernet eth = { 0 };
	struct ovs_key_arp arp = { 0 };
	struct nlattr *nest;

	arp.arp_tha[5 - bit / 8] = 1 << (bit % 8);

	nest = nla_nest_start(msg, type);
	if (!nest || nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, in_port) ||
	    nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth) ||
	    nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE, htons(eth_type)) ||
	    nla_put(msg, OVS_KEY_ATTR_ARP, sizeof(arp), &arp))
		die("building a key", EMSGSIZE);
	nla_nest_end(msg, nest);
}

static void put_ufid(struct nl_msg *msg, uint32_t id)
{
	uint32_t ufid[4] = { 0x43686e72, 0x75636b21, 0, id };

	if (nla_put(msg, OVS_FLOW_ATTR_UFID, sizeof(ufid), ufid))
		die("building a UFID", EMSGSIZE);
}

static void put_output(struct nl_msg *msg, uint32_t port)
{
	struct nlattr *nest = nla_nest_start(msg, OVS_FLOW_ATTR_ACTIONS);

	if (!nest || nla_put_u32(msg, OVS_ACTION_ATTR_OUTPUT, port))
		die("building actions", EMSGSIZE);
	nla_nest_end(msg, nest);
}

/* The flows swap installs, by UFID: S1, S2, then A0 to A19. */
enum { FLOW_S1 = 1, FLOW_S2, FLOW_A };
#define NR_A 20

static int add_swap_flow(uint32_t which)
{
	struct ovs_key_ipv4 key = { 0 }, mask = { 0 };
	struct nl_msg *msg;

	msg = flow_request(OVS_FLOW_CMD_NEW, NLM_F_ACK | NLM_F_CREATE);
	put_ufid(msg, which);
	switch (which) {
	case FLOW_S1:
		key.ipv4_proto = 17;
		mask.ipv4_proto = 0xff;
		break;
	case FLOW_S2:
		key.ipv4_dst = inet_addr("198.51.100.2");
		mask.ipv4_dst = 0xffffffff;
		break;
	}
	if (which >= FLOW_A) {
		put_arp_match(msg, OVS_FLOW_ATTR_KEY, 1, 0x0806,
			      which - FLOW_A);
		put_arp_match(msg, OVS_FLOW_ATTR_MASK, 0xffffffff, 0xffff,
			      which - FLOW_A);
	} else {
		put_ipv4_match(msg, OVS_FLOW_ATTR_KEY, 1, 0x0800, &key,
			       which == FLOW_S1);
		put_ipv4_match(msg, OVS_FLOW_ATTR_MASK, 0xffffffff, 0xffff,
			       &mask, which == FLOW_S1);
	}
	put_output(msg, 2);
	return transact(msg);
}

static int del_flow(uint32_t id)
{
	struct nl_msg *msg = flow_request(OVS_FLOW_CMD_DEL, NLM_F_ACK);

	put_ufid(msg, id);
	return transact(msg);
}

/* Put's flow number I: one (203.0.113.0/24, 198.51.100.0/24) pair each. */
static struct nl_msg *put_request(long i)
{
	struct ovs_key_ipv4 key = { 0 }, mask = { 0 };
	struct nl_msg *msg;

	key.ipv4_src = htonl(0xcb007100 + (uint32_t)(i % 256));
	key.ipv4_dst = htonl(0xc6336400 + (uint32_t)(i / 256 % 256));
	mask.ipv4_src = 0xffffffff;
	mask.ipv4_dst = 0xffffffff;
	msg = flow_request(OVS_FLOW_CMD_NEW, NLM_F_ACK | NLM_F_CREATE);
	put_ufid(msg, 0x10000 + (uint32_t)i);
	put_ipv4_match(msg, OVS_FLOW_ATTR_KEY, 1, 0x0800, &key, false);
	put_ipv4_match(msg, OVS_FLOW_ATTR_MASK, 0xffffffff, 0xffff, &mask,
		       false);
	put_output(msg, 2);
	return msg;
}

static int cmd_put(long count)
{
	long ok = 0, nomem = 0, other = 0, i;

	for (i = 0; i < count; i++) {
		int err = transact(put_request(i));

		if (!err) {
			ok++;
		} else if (err == ENOMEM) {
			nomem++;
		} else {
			if (!other)
				fprintf(stderr, "%s: put %ld: %s\n", prog, i,
					strerror(err));
			other++;
		}
	}
	printf("put OK %ld\nput ENOMEM %ld\nput other %ld\n", ok, nomem,
	       other);
	return 0;
}

/* One flow dump, counted into *FLOWS and *MASKLESS. */
static void dump_once(long *flows, long *maskless)
{
	struct nl_msg *msg = flow_request(OVS_FLOW_CMD_GET,
					  NLM_F_DUMP | NLM_F_ACK);
	bool done = false;

	if (nl_send_auto(sk, msg) < 0)
		die("sending a dump", EIO);
	nlmsg_free(msg);
	while (!done) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0)
			die("receiving a dump", EIO);
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			struct nlattr *tb[OVS_FLOW_ATTR_MAX + 1];

			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(nlh);

				if (e->error)
					die("dumping", -e->error);
				continue;
			}
			if (nlh->nlmsg_type != flow_family ||
			    genlmsg_parse(nlh, sizeof(struct ovs_header), tb,
					  OVS_FLOW_ATTR_MAX, NULL) < 0)
				continue;
			(*flows)++;
			if (!tb[OVS_FLOW_ATTR_MASK])
				(*maskless)++;
		}
		free(buf);
	}
}

static int cmd_dump(double seconds)
{
	long dumps = 0, flows = 0, maskless = 0;
	double end = now() + seconds;

	while (now() < end) {
		dump_once(&flows, &maskless);
		dumps++;
	}
	printf("dumps %ld\nflows %ld\nmaskless %ld\n", dumps, flows, maskless);
	return 0;
}

/* Read N acks; returns how many said an error (the first is named). */
static long read_acks(long n)
{
	long failed = 0;

	while (n > 0) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0)
			die("receiving acks", EIO);
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e = nlmsg_data(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			n--;
			if (e->error && !failed++)
				fprintf(stderr, "%s: put: %s\n", prog,
					strerror(-e->error));
		}
		free(buf);
	}
	return failed;
}

/* The host's CPU time so far, in clock ticks (/proc/stat's "cpu" line). */
struct cpu_ticks {
	unsigned long long busy;	/* neither idle nor waiting for I/O */
	unsigned long long all;
};

static struct cpu_ticks cpu_ticks(void)
{
	unsigned long long v[8];
	struct cpu_ticks t = { 0 };
	FILE *f;
	int i;

	f = fopen("/proc/stat", "r");
	if (!f)
		die("opening /proc/stat", errno);
	i = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (i != 8)
		die("reading /proc/stat's cpu line", EPROTO);
	for (i = 0; i < 8; i++)
		t.all += v[i];
	t.busy = t.all - v[3] - v[4];
	return t;
}

/*
 * Wait until the host is quiet, a tenth of a second in which its CPUs
 * were busy a tenth of the time at most (10 s at most), and return the
 * CPU time they were busy before that, in seconds.  That is work the
 * installs left to kernel workers, done by the time their acks came on
 * the in-tree module, after them on ours (rhashtable resizes its tables
 * in a worker): it belongs to the installs' time, and the dump that
 * follows should not pay for it.
 */
static double settle(void)
{
	const struct timespec tenth = { .tv_nsec = 100000000 };
	struct cpu_ticks start, a, b;
	int i;

	start = a = cpu_ticks();
	for (i = 0; i < 100; i++) {
		nanosleep(&tenth, NULL);
		b = cpu_ticks();
		if ((b.busy - a.busy) * 10 <= b.all - a.all)
			return (double)(a.busy - start.busy) /
			       sysconf(_SC_CLK_TCK);
		a = b;
	}
	die("waiting for the host to go quiet", ETIMEDOUT);
	return 0;
}

static int cmd_rate(long count, long batch)
{
	long i = 0, failed = 0, flows = 0, maskless = 0;
	double t0, t1, t2, t3, busy;
	unsigned char *buf;
	size_t room;

	if (count > 65536 || batch < 1 || batch > 1024) {
		fprintf(stderr, "%s: rate: COUNT 1-65536, BATCH 1-1024\n", prog);
		return 1;
	}
	room = (size_t)batch * 1024;
	buf = malloc(room);
	if (!buf)
		die("malloc", ENOMEM);
	t0 = now();
	while (i < count) {
		size_t len = 0;
		long n;

		for (n = 0; n < batch && i < count; n++, i++) {
			struct nl_msg *msg = put_request(i);
			struct nlmsghdr *nlh;

			nl_complete_msg(sk, msg);
			nlh = nlmsg_hdr(msg);
			if (len + NLMSG_ALIGN(nlh->nlmsg_len) > room)
				die("batching", EMSGSIZE);
			memcpy(buf + len, nlh, nlh->nlmsg_len);
			len += NLMSG_ALIGN(nlh->nlmsg_len);
			nlmsg_free(msg);
		}
		if (nl_sendto(sk, buf, len) < 0)
			die("sending a batch", EIO);
		failed += read_acks(n);
	}
	t1 = now();
	busy = settle();
	t2 = now();
	dump_once(&flows, &maskless);
	t3 = now();
	free(buf);
	printf("flows %ld\ninstalls_per_s %.0f\nsettle_busy_ms %.0f\n",
	       count - failed, count / (t1 - t0 + busy), busy * 1000);
	printf("dumped %ld\ndumped_per_s %.0f\n", flows, flows / (t3 - t2));
	return failed ? 1 : 0;
}

/* One step of swap: a failure is reported and ends the churn. */
static bool step(const char *what, int err, bool *ok)
{
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
		*ok = false;
	}
	return !err;
}

static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static int cmd_swap(double seconds, long pause)
{
	double end = now() + seconds;
	long cycles = 0;
	bool ok = true;

	int i;

	if (!step("add S1", add_swap_flow(FLOW_S1), &ok))
		return 1;
	for (i = 0; i < NR_A; i++)
		if (!step("add an A", add_swap_flow(FLOW_A + i), &ok))
			return 1;
	if (!step("add S2", add_swap_flow(FLOW_S2), &ok))
		return 1;
	while (ok && now() < end) {
		if (!step("del S1", del_flow(FLOW_S1), &ok) ||
		    !step("add S1", add_swap_flow(FLOW_S1), &ok))
			break;
		pause_ms(pause);
		if (!step("del S2", del_flow(FLOW_S2), &ok) ||
		    !step("add S2", add_swap_flow(FLOW_S2), &ok))
			break;
		pause_ms(pause);
		cycles++;
	}
	printf("cycles %ld\n", cycles);
	step("del S1", del_flow(FLOW_S1), &ok);
	step("del S2", del_flow(FLOW_S2), &ok);
	for (i = 0; i < NR_A; i++)
		step("del an A", del_flow(FLOW_A + i), &ok);
	return ok ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s put DP COUNT | dump DP SECONDS | swap DP SECONDS [PAUSE_MS] | rate DP COUNT BATCH\n",
		prog);
	exit(1);
}

int main(int argc, char **argv)
{
	double arg;

	if (argc != 4 && !(argc == 5 && (!strcmp(argv[1], "swap") ||
					   !strcmp(argv[1], "rate"))))
		usage();
	arg = atof(argv[3]);
	if (arg <= 0)
		usage();

	sk = nl_socket_alloc();
	if (!sk)
		die("nl_socket_alloc", ENOMEM);
	if (genl_connect(sk) < 0)
		die("genl_connect", EIO);
	nl_socket_enable_msg_peek(sk);
	flow_family = genl_ctrl_resolve(sk, OVS_FLOW_FAMILY);
	if (flow_family < 0)
		die("resolving " OVS_FLOW_FAMILY, ENOENT);
	dp_ifindex = (int)if_nametoindex(argv[2]);
	if (!dp_ifindex)
		die(argv[2], ENODEV);

	if (!strcmp(argv[1], "put"))
		return cmd_put((long)arg);
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(arg);
	if (!strcmp(argv[1], "swap"))
		return cmd_swap(arg, argc == 5 ? atol(argv[4]) : 10);
	if (!strcmp(argv[1], "rate") && argc == 5)
		return cmd_rate((long)arg, atol(argv[4]));
	usage();
	return 1;
}
