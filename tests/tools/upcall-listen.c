// SPDX-License-Identifier: GPL-2.0
/*
 * upcall-listen: receive the datapath's upcalls and print them as text.
 *
 *   upcall-listen [-P] [-a] [-c] [-u] [-n COUNT] [-t SECONDS] PORT...
 *   upcall-listen -r SECONDS PORT...
 *
 * Points the upcalls of every named vport (OVS_VPORT_CMD_SET with
 * OVS_VPORT_ATTR_UPCALL_PID; and OVS_DP_ATTR_PER_CPU_PIDS if the datapath
 * dispatches upcalls per CPU) at this program's own Generic Netlink
 * socket, prints "pid N" (with -P: the PID to name in userspace actions)
 * and "ready", then prints each upcall it receives, OVS_PACKET_CMD_MISS or
 * OVS_PACKET_CMD_ACTION, until COUNT (default 1) have arrived.  With -a
 * only ACTION upcalls count; a miss is then only noted on stderr.  With -u
 * the datapath's OVS_DP_F_UNALIGNED feature is turned off first, so that
 * upcalls come padded as old userspace wants them.  With -c each IPv4 or
 * IPv6 packet is also checked: "packet csum" with l3=ok|bad (IPv4 header)
 * and l4=ok|bad|none|frag|short (TCP, UDP, ICMP, ICMPv6), and for TCP
 * "packet tcp seq=N payload=BYTES".  Upcalls of any size are read whole.
 * Exit status: 0 when COUNT upcalls arrived, 1 on an error, 2 on timeout
 * (default 10 s).
 *
 * With -r, the rate upcalls arrive at: after "ready", upcalls are counted,
 * not printed, for SECONDS, and what the socket had to drop (ENOBUFS) is
 * counted too; then "upcalls N", "overruns N" and "seconds S" (the time
 * from the first upcall to the end).  Exit status 0 when at least one
 * upcall arrived.
 *
 * One upcall reads, one line per item, in a fixed order ("userdata" and
 * "actions", the top-level action types of OVS_PACKET_ATTR_ACTIONS, only
 * when the message has them):
 *   miss 1             (or "action 1")
 *   userdata 0102030400000000
 *   actions 2,1
 *   key in_port=1
 *   key eth src=02:00:00:00:00:01 dst=02:00:00:00:00:02
 *   key eth_type=0x0800
 *   key ipv4 src=198.51.100.1 dst=198.51.100.2 proto=1 ttl=64
 *   key icmp type=8 code=0
 *   packet len=98
 *   packet icmp type=8 code=0 id=1234 seq=1
 *   packet hex 020000000002...
 *   hash sw=1 l4=0 value=set
 * "hash" reads OVS_PACKET_ATTR_HASH: whether software computed the skb
 * hash, whether it covers L4, and whether the hash is "set" or "zero"
 * (its value changes from boot to boot); "hash missing" without it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/openvswitch.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "upcall-listen";

/* -c: check and print the packets' checksums. */
static bool show_csums;

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
	exit(1);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A reply's handler: the message and the caller's context. */
typedef void (*reply_fn)(const struct nlmsghdr *nlh, void *arg);

/*
 * Send MSG (consumed) and wait for the kernel's acknowledgement, passing
 * every other message to ON_REPLY; 0 or a positive errno.
 */
static int transact(struct nl_sock *sk, struct nl_msg *msg, reply_fn on_reply,
		    void *arg)
{
	int err;

	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return EIO;
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len;

		err = -1;
		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			return EIO;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(nlh);

				err = -e->error;
			} else if (on_reply) {
				on_reply(nlh, arg);
			}
		}
		free(buf);
		if (err >= 0)
			return err;
	}
}

/* A request to FAMILY with the ovs_header for DP_IFINDEX. */
static struct nl_msg *request(int family, int cmd, int version, int dp_ifindex)
{
	struct ovs_header *oh;
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		die("nlmsg_alloc", ENOMEM);
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, sizeof(*oh),
			 NLM_F_ACK, cmd, version);
	if (!oh)
		die("genlmsg_put", EMSGSIZE);
	oh->dp_ifindex = dp_ifindex;
	return msg;
}

static void get_dp_ifindex(const struct nlmsghdr *nlh, void *arg)
{
	const struct ovs_header *oh = genlmsg_user_hdr(nlmsg_data(nlh));

	*(int *)arg = oh->dp_ifindex;
}

static void get_features(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[OVS_DP_ATTR_MAX + 1];

	if (genlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct ovs_header),
			  tb, OVS_DP_ATTR_MAX, NULL) < 0 ||
	    !tb[OVS_DP_ATTR_USER_FEATURES])
		return;
	*(uint32_t *)arg = nla_get_u32(tb[OVS_DP_ATTR_USER_FEATURES]);
}

/* Set the datapath's user features to FEATURES, which it had but for -u. */
static int set_features(struct nl_sock *sk, int dp_family, int dp_ifindex,
			uint32_t features)
{
	struct nl_msg *msg;

	msg = request(dp_family, OVS_DP_CMD_SET, OVS_DATAPATH_VERSION,
		      dp_ifindex);
	if (nla_put_u32(msg, OVS_DP_ATTR_USER_FEATURES, features))
		die("building OVS_DP_CMD_SET", EMSGSIZE);
	return transact(sk, msg, NULL, NULL);
}

/*
 * Point PORT's upcalls at PID; when PORT's datapath dispatches upcalls
 * per CPU instead of per vport, point every CPU's upcalls at PID too.
 * With ALIGNED, turn the datapath's OVS_DP_F_UNALIGNED off.
 */
static int set_upcall_pid(struct nl_sock *sk, int vport_family, int dp_family,
			  const char *port, uint32_t pid, bool aligned)
{
	uint32_t features = 0;
	int dp_ifindex = 0;
	struct nl_msg *msg;
	int err;

	/* A set is answered by a notification only: ask for the datapath. */
	msg = request(vport_family, OVS_VPORT_CMD_GET, OVS_VPORT_VERSION, 0);
	if (nla_put_string(msg, OVS_VPORT_ATTR_NAME, port))
		die("building OVS_VPORT_CMD_GET", EMSGSIZE);
	err = transact(sk, msg, get_dp_ifindex, &dp_ifindex);
	if (err || !dp_ifindex)
		return err ? err : ENODEV;

	msg = request(vport_family, OVS_VPORT_CMD_SET, OVS_VPORT_VERSION,
		      dp_ifindex);
	if (nla_put_string(msg, OVS_VPORT_ATTR_NAME, port) ||
	    nla_put_u32(msg, OVS_VPORT_ATTR_UPCALL_PID, pid))
		die("building OVS_VPORT_CMD_SET", EMSGSIZE);
	err = transact(sk, msg, NULL, NULL);
	if (err)
		return err;

	msg = request(dp_family, OVS_DP_CMD_GET, OVS_DATAPATH_VERSION,
		      dp_ifindex);
	err = transact(sk, msg, get_features, &features);
	if (err)
		return err;
	fprintf(stderr, "%s: %s: datapath user features 0x%x\n", prog, port,
		features);
	if (aligned && (features & OVS_DP_F_UNALIGNED)) {
		features &= ~OVS_DP_F_UNALIGNED;
		err = set_features(sk, dp_family, dp_ifindex, features);
		if (err)
			return err;
		fprintf(stderr, "%s: %s: user features now 0x%x\n", prog,
			port, features);
	}
	if (features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) {
		long cpus = sysconf(_SC_NPROCESSORS_CONF);
		uint32_t pids[1024];
		long i;

		if (cpus < 1 || cpus > 1024)
			cpus = 1024;
		for (i = 0; i < cpus; i++)
			pids[i] = pid;
		msg = request(dp_family, OVS_DP_CMD_SET, OVS_DATAPATH_VERSION,
			      dp_ifindex);
		if (nla_put_u32(msg, OVS_DP_ATTR_USER_FEATURES, features) ||
		    nla_put(msg, OVS_DP_ATTR_PER_CPU_PIDS,
			    (int)(cpus * sizeof(pids[0])), pids))
			die("building OVS_DP_CMD_SET", EMSGSIZE);
		err = transact(sk, msg, NULL, NULL);
	}
	return err;
}

static void print_mac(const char *label, const uint8_t *mac)
{
	printf(" %s=%02x:%02x:%02x:%02x:%02x:%02x", label, mac[0], mac[1],
	       mac[2], mac[3], mac[4], mac[5]);
}

static void print_ip(const char *label, const void *addr)
{
	char text[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, addr, text, sizeof(text));
	printf(" %s=%s", label, text);
}

/* The key attribute of TYPE if present with exactly LEN bytes of payload. */
static const void *key_attr(struct nlattr **tb, int type, int len)
{
	if (!tb[type] || nla_len(tb[type]) != len)
		return NULL;
	return nla_data(tb[type]);
}

static void print_key(struct nlattr *key)
{
	struct nlattr *tb[OVS_KEY_ATTR_MAX + 1];
	const struct ovs_key_ethernet *eth;
	const struct ovs_key_ipv4 *ip;
	const struct ovs_key_icmp *icmp;
	const struct ovs_key_tcp *tcp;
	const struct ovs_key_udp *udp;
	const struct ovs_key_arp *arp;
	const uint32_t *in_port;
	const uint16_t *type;

	if (nla_parse_nested(tb, OVS_KEY_ATTR_MAX, key, NULL) < 0) {
		printf("key unparsable\n");
		return;
	}
	in_port = key_attr(tb, OVS_KEY_ATTR_IN_PORT, sizeof(*in_port));
	if (in_port)
		printf("key in_port=%u\n", *in_port);
	eth = key_attr(tb, OVS_KEY_ATTR_ETHERNET, sizeof(*eth));
	if (eth) {
		printf("key eth");
		print_mac("src", eth->eth_src);
		print_mac("dst", eth->eth_dst);
		printf("\n");
	}
	type = key_attr(tb, OVS_KEY_ATTR_ETHERTYPE, sizeof(*type));
	if (type)
		printf("key eth_type=0x%04x\n", ntohs(*type));
	ip = key_attr(tb, OVS_KEY_ATTR_IPV4, sizeof(*ip));
	if (ip) {
		printf("key ipv4");
		print_ip("src", &ip->ipv4_src);
		print_ip("dst", &ip->ipv4_dst);
		printf(" proto=%u ttl=%u\n", ip->ipv4_proto, ip->ipv4_ttl);
	}
	arp = key_attr(tb, OVS_KEY_ATTR_ARP, sizeof(*arp));
	if (arp) {
		printf("key arp");
		print_ip("sip", &arp->arp_sip);
		print_ip("tip", &arp->arp_tip);
		printf(" op=%u\n", ntohs(arp->arp_op));
	}
	icmp = key_attr(tb, OVS_KEY_ATTR_ICMP, sizeof(*icmp));
	if (icmp)
		printf("key icmp type=%u code=%u\n", icmp->icmp_type,
		       icmp->icmp_code);
	tcp = key_attr(tb, OVS_KEY_ATTR_TCP, sizeof(*tcp));
	if (tcp)
		printf("key tcp src=%u dst=%u\n", ntohs(tcp->tcp_src),
		       ntohs(tcp->tcp_dst));
	udp = key_attr(tb, OVS_KEY_ATTR_UDP, sizeof(*udp));
	if (udp)
		printf("key udp src=%u dst=%u\n", ntohs(udp->udp_src),
		       ntohs(udp->udp_dst));
}

/* The 16-bit one's complement sum of LEN bytes at P, added to SUM. */
static uint32_t sum16(const uint8_t *p, int len, uint32_t sum)
{
	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static const char *verdict(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff ? "ok" : "bad";
}

/*
 * The L4 checksum of the LEN bytes at L4 (protocol PROTO), whose
 * pseudo-header sums to PSEUDO; ICMP has none.
 */
static const char *l4_verdict(const uint8_t *l4, int len, int proto,
			      uint32_t pseudo)
{
	switch (proto) {
	case 6:		/* TCP */
		if (len < 20)
			return "short";
		break;
	case 17:	/* UDP */
		if (len < 8)
			return "short";
		if (!l4[6] && !l4[7])
			return "none";
		break;
	case 1:		/* ICMP */
		pseudo = 0;
		/* fall through */
	case 58:	/* ICMPv6 */
		if (len < 4)
			return "short";
		break;
	default:
		return "none";
	}
	return verdict(sum16(l4, len, pseudo));
}

static void print_tcp(const uint8_t *tcp, int len)
{
	int doff = (tcp[12] >> 4) * 4;

	if (len < 20 || doff < 20 || doff > len)
		return;
	printf("packet tcp seq=%u payload=%d\n",
	       (unsigned int)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 | tcp[7],
	       len - doff);
}

/*
 * -c: the checksums of an IPv4 or IPv6 packet in the LEN bytes at P,
 * after the Ethernet header and any VLAN tags.  IPv6 extension headers
 * are not followed.
 */
static void print_csums(const uint8_t *p, int len)
{
	int off = 12, ihl, tot, proto;
	const uint8_t *ip, *l4;
	uint32_t pseudo;
	uint16_t type;

	for (;;) {
		if (off + 2 > len)
			return;
		type = p[off] << 8 | p[off + 1];
		if (type != 0x8100 && type != 0x88a8)
			break;
		off += 4;
	}
	ip = p + off + 2;
	len -= off + 2;
	if (type == 0x0800 && len >= 20) {
		ihl = (ip[0] & 0x0f) * 4;
		tot = ip[2] << 8 | ip[3];
		if (ihl < 20 || tot > len || tot < ihl) {
			printf("packet csum short\n");
			return;
		}
		proto = ip[9];
		pseudo = sum16(ip + 12, 8, proto + tot - ihl);
		l4 = ip + ihl;
		printf("packet csum l3=%s l4=%s\n", verdict(sum16(ip, ihl, 0)),
		       (ip[6] & 0x3f) || ip[7] ? "frag" :
		       l4_verdict(l4, tot - ihl, proto, pseudo));
		if (proto == 6)
			print_tcp(l4, tot - ihl);
	} else if (type == 0x86dd && len >= 40) {
		tot = ip[4] << 8 | ip[5];
		if (40 + tot > len) {
			printf("packet csum short\n");
			return;
		}
		proto = ip[6];
		pseudo = sum16(ip + 8, 32, proto + tot);
		l4 = ip + 40;
		printf("packet csum l4=%s\n",
		       l4_verdict(l4, tot, proto, pseudo));
		if (proto == 6)
			print_tcp(l4, tot);
	}
}

/* The datapath's OVS_PACKET_ATTR_HASH: the skb hash in the low 32 bits. */
static void print_hash(const struct nlattr *attr)
{
	uint64_t hash;

	if (nla_len(attr) != sizeof(hash)) {
		printf("hash unparsable\n");
		return;
	}
	memcpy(&hash, nla_data(attr), sizeof(hash));
	printf("hash sw=%d l4=%d value=%s\n", (int)(hash >> 32 & 1),
	       (int)(hash >> 33 & 1), (uint32_t)hash ? "set" : "zero");
}

static void print_packet(const uint8_t *p, int len)
{
	int i;

	printf("packet len=%d\n", len);
	if (show_csums)
		print_csums(p, len);
	/* Ethernet, IPv4, ICMP: the echo's identity. */
	if (len >= 14 + 20 + 8 && p[12] == 0x08 && p[13] == 0x00 &&
	    p[14 + 9] == 1) {
		const uint8_t *icmp = p + 14 + (p[14] & 0x0f) * 4;

		if (icmp + 8 <= p + len)
			printf("packet icmp type=%u code=%u id=%u seq=%u\n",
			       icmp[0], icmp[1], icmp[4] << 8 | icmp[5],
			       icmp[6] << 8 | icmp[7]);
	}
	printf("packet hex ");
	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static void print_userdata(const struct nlattr *attr)
{
	const uint8_t *p = nla_data(attr);
	int i;

	printf("userdata ");
	for (i = 0; i < nla_len(attr); i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* The top-level action types of an OVS_PACKET_ATTR_ACTIONS list. */
static void print_action_types(const struct nlattr *list)
{
	const struct nlattr *a;
	const char *sep = "";
	int rem;

	printf("actions ");
	nla_for_each_nested(a, list, rem) {
		printf("%s%d", sep, nla_type(a));
		sep = ",";
	}
	printf("\n");
}

/*
 * Print every upcall in the buffer (with @actions_only, every ACTION
 * upcall); the number of upcalls printed.
 */
static int handle(const unsigned char *buf, int len, int family, int seen,
		  bool actions_only, bool quiet)
{
	struct nlmsghdr *nlh;
	int upcalls = 0;

	for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
	     nlh = nlmsg_next(nlh, &len)) {
		struct nlattr *tb[OVS_PACKET_ATTR_MAX + 1];
		const struct genlmsghdr *gh;

		if (nlh->nlmsg_type != family)
			continue;
		gh = nlmsg_data(nlh);
		if (gh->cmd != OVS_PACKET_CMD_MISS &&
		    gh->cmd != OVS_PACKET_CMD_ACTION)
			continue;
		if (actions_only && gh->cmd == OVS_PACKET_CMD_MISS) {
			fprintf(stderr, "%s: ignored a miss\n", prog);
			continue;
		}
		if (genlmsg_parse(nlh, sizeof(struct ovs_header), tb,
				  OVS_PACKET_ATTR_MAX, NULL) < 0) {
			fprintf(stderr, "%s: unparsable upcall\n", prog);
			continue;
		}
		upcalls++;
		if (quiet)
			continue;
		printf("%s %d\n", gh->cmd == OVS_PACKET_CMD_MISS ?
		       "miss" : "action", seen + upcalls);
		if (tb[OVS_PACKET_ATTR_USERDATA])
			print_userdata(tb[OVS_PACKET_ATTR_USERDATA]);
		if (tb[OVS_PACKET_ATTR_ACTIONS])
			print_action_types(tb[OVS_PACKET_ATTR_ACTIONS]);
		if (tb[OVS_PACKET_ATTR_KEY])
			print_key(tb[OVS_PACKET_ATTR_KEY]);
		else
			printf("key missing\n");
		if (tb[OVS_PACKET_ATTR_PACKET])
			print_packet(nla_data(tb[OVS_PACKET_ATTR_PACKET]),
				     nla_len(tb[OVS_PACKET_ATTR_PACKET]));
		else
			printf("packet missing\n");
		if (tb[OVS_PACKET_ATTR_HASH])
			print_hash(tb[OVS_PACKET_ATTR_HASH]);
		else
			printf("hash missing\n");
	}
	fflush(stdout);
	return upcalls;
}

/*
 * -r: count upcalls for @seconds, and the ENOBUFS the socket reports
 * when the datapath sends faster than this reads.
 */
static int rate(struct nl_sock *sk, int family, long seconds)
{
	long long first = 0, end = now_ms() + seconds * 1000, stop;
	long upcalls = 0, overruns = 0;

	while (now_ms() < end) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(sk),
				      .events = POLLIN };
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		int len, n;

		if (poll(&pfd, 1, 100) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		if (!(pfd.revents & POLLIN))
			continue;
		len = nl_recv(sk, &peer, &buf, NULL);
		if (len == -NLE_NOMEM) {
			overruns++;
			continue;
		}
		if (len < 0) {
			fprintf(stderr, "%s: receiving: %s\n", prog,
				nl_geterror(len));
			return 1;
		}
		n = handle(buf, len, family, 0, false, true);
		free(buf);
		if (n && !upcalls)
			first = now_ms();
		upcalls += n;
	}
	stop = now_ms();
	printf("upcalls %ld\noverruns %ld\nseconds %.3f\n", upcalls, overruns,
	       upcalls ? (stop - first) / 1000.0 : 0.0);
	return upcalls ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-P] [-a] [-c] [-u] [-n COUNT] [-t SECONDS] PORT...\n"
		"       %s -r SECONDS PORT...\n", prog, prog);
	exit(1);
}

int main(int argc, char **argv)
{
	int vport_family, packet_family, dp_family, count = 1, seen = 0;
	bool print_pid = false, actions_only = false, aligned = false;
	long long deadline;
	int opt, i;
	long timeout = 10, rate_seconds = 0;
	struct nl_sock *sk;
	uint32_t pid;

	while ((opt = getopt(argc, argv, "Pacun:t:r:")) != -1) {
		switch (opt) {
		case 'a':
			actions_only = true;
			break;
		case 'c':
			show_csums = true;
			break;
		case 'u':
			aligned = true;
			break;
		case 'P':
			print_pid = true;
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 't':
			timeout = atol(optarg);
			break;
		case 'r':
			rate_seconds = atol(optarg);
			if (rate_seconds <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || count <= 0 || timeout <= 0)
		usage();

	sk = nl_socket_alloc();
	if (!sk)
		die("nl_socket_alloc", ENOMEM);
	if (genl_connect(sk) < 0)
		die("genl_connect", EIO);
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	/* Read each message whole, however large, not a page of it. */
	nl_socket_enable_msg_peek(sk);
	vport_family = genl_ctrl_resolve(sk, OVS_VPORT_FAMILY);
	packet_family = genl_ctrl_resolve(sk, OVS_PACKET_FAMILY);
	dp_family = genl_ctrl_resolve(sk, OVS_DATAPATH_FAMILY);
	if (vport_family < 0 || packet_family < 0 || dp_family < 0)
		die("resolving the ovs families", ENOENT);
	pid = nl_socket_get_local_port(sk);

	for (i = optind; i < argc; i++) {
		int err = set_upcall_pid(sk, vport_family, dp_family, argv[i],
					 pid, aligned);

		if (err) {
			fprintf(stderr, "%s: setting %s's upcall pid: %s\n",
				prog, argv[i], strerror(err));
			return 1;
		}
	}
	if (print_pid)
		printf("pid %u\n", pid);
	printf("ready\n");
	fflush(stdout);
	if (rate_seconds)
		return rate(sk, packet_family, rate_seconds);

	deadline = now_ms() + timeout * 1000;
	while (seen < count) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(sk),
				      .events = POLLIN };
		long long left = deadline - now_ms();
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		int len;

		if (left <= 0) {
			fprintf(stderr, "%s: timed out with %d of %d upcalls\n",
				prog, seen, count);
			return 2;
		}
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		if (!(pfd.revents & POLLIN))
			continue;
		len = nl_recv(sk, &peer, &buf, NULL);
		if (len < 0) {
			free(buf);
			fprintf(stderr, "%s: receiving: %s\n", prog,
				nl_geterror(len));
			return 1;
		}
		seen += handle(buf, len, packet_family, seen, actions_only,
			       false);
		free(buf);
	}
	nl_socket_free(sk);
	return 0;
}
