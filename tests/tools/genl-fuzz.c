// SPDX-License-Identifier: GPL-2.0
/*
 * genl-fuzz: a bounded, seeded fuzzer of the datapath's Generic Netlink
 * families and of the frames that reach a port.
 *
 *   genl-fuzz [--seed S] [--count N] [--frames IFNAME]
 *             [--family datapath|vport|flow|packet|redirect|openvswitch|all]
 *             [--answers FILE]
 *   genl-fuzz --replay FILE
 *   genl-fuzz --send FAMILY:CMD --dp DP [--port PORT]
 *
 * It makes a datapath of its own, "fzdp", and starts every request from a
 * valid one for a command of a family (a datapath, an internal vport, a
 * flow, a packet to execute, on fzdp; and with our module, whose
 * roam_redirect family the in-tree one lacks, a redirect of one of
 * fzdp's ports to another), then mutates its attributes: bits
 * flipped, lengths and types rewritten, values replaced by edge cases,
 * attributes duplicated or added, the whole nested up to 40 deep, the end
 * cut off.  --family openvswitch is the four openvswitch families, the
 * ones both modules have; all adds roam_redirect where it is there (it
 * says so when it is not).  N requests per family (default 1,000), each
 * asking for an
 * acknowledgement; every request must be answered, an acknowledgement or
 * an error, within 5 s.  --frames IFNAME also sends N mutated Ethernet
 * frames (VLAN stacks, IPv4, IPv6, ARP, cut short or bit-flipped) out of
 * IFNAME, with AF_PACKET.
 *
 * --answers FILE writes every request's answer, a line each, "FAMILY N
 * CMD FLAGS ANSWER ATTRS" (an errno's name, OK, or none when no answer
 * came; the attributes in hex): the same seed on two modules, line
 * against line.  --replay FILE sends the requests of such lines again,
 * unmutated, to fzdp, writes their answers the same way, and exits 1 if
 * any answer differs from its line's (a finding kept as a regression
 * test: tests/hardening/findings).
 *
 * The same seed gives the same requests and frames (default: the time,
 * printed first so that a run can be repeated).  Prints one line per
 * family, "family F: N requests, A accepted, E errors, U unanswered
 * (EINVAL 700, ...)", the three commonest errors in brackets, and
 * exits 1 when a request went unanswered or the setup failed.  fzdp and
 * what the requests made in it are deleted at the end; other datapaths
 * are never named, so their traffic keeps flowing.
 *
 * --send sends one valid request, unmutated, to the existing datapath DP
 * (and its port PORT, default "fzport"), for the privilege checks: the
 * commands that ovs-dpctl never sends.  FAMILY:CMD is one of
 * datapath:new, datapath:get, datapath:set, vport:new, vport:get,
 * vport:set, vport:del, flow:new, flow:get, flow:set, flow:del and
 * packet:execute.  Prints "FAMILY:CMD: accepted" and exits 0, or says
 * the error (or that no answer came) on stderr and exits 1; 2 on bad
 * options.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/openvswitch.h>
#include "roam_redirect.h"
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FZ_DP "fzdp"
#define MAX_MSG 4096
#define MAX_ATTRS 256
#define MAX_ERRNO 255

static const char *prog = "genl-fuzz";

/* xorshift64*: small, and the same sequence on every machine. */
static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545F4914F6CDD1DULL) >> 32;
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

struct family {
	const char *name;	/* as --family names it */
	const char *genl;	/* Generic Netlink family name */
	int id;
	int version;
	/* Puts a valid request's attributes for @cmd into @msg. */
	void (*seed)(struct nl_msg *msg, int cmd);
	const int *cmds;	/* the commands to start from, 0-terminated */
	bool ours_only;		/* roam_redirect: absent from the in-tree
				 * module, then skipped (id -1) */
	unsigned int requests, accepted, errors, unanswered;
	unsigned int by_errno[MAX_ERRNO + 1];	/* the errors, by errno */
};

static int fz_ifindex;
/* What the seeds name: fzdp and its port, or --send's --dp and --port. */
static const char *target_dp = FZ_DP;
static const char *target_port = "fzport";

static void put_key(struct nl_msg *msg, int type)
{
	struct ovs_key_ethernet eth = {
		.eth_src = { 2, 0, 0, 0, 0, 1 },
		.eth_dst = { 2, 0, 0, 0, 0, 2 },
	};
	struct ovs_key_ipv4 ip = {
		.ipv4_src = htonl(0xc6336401),	/* 198.51.100.1 */
		.ipv4_dst = htonl(0xc63364c8),	/* 198.51.100.200 */
		.ipv4_proto = 17, .ipv4_ttl = 64,
	};
	struct ovs_key_udp udp = { .udp_src = htons(1024),
				   .udp_dst = htons(6000) };
	struct nlattr *nest = nla_nest_start(msg, type);

	nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, 0);
	nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_IP));
	nla_put(msg, OVS_KEY_ATTR_IPV4, sizeof(ip), &ip);
	nla_put(msg, OVS_KEY_ATTR_UDP, sizeof(udp), &udp);
	nla_nest_end(msg, nest);
}

static void put_actions(struct nl_msg *msg, int type)
{
	struct ovs_action_push_vlan vlan = {
		.vlan_tpid = htons(ETH_P_8021Q),
		.vlan_tci = htons(0x1000 | 10),
	};
	struct nlattr *nest = nla_nest_start(msg, type);

	nla_put(msg, OVS_ACTION_ATTR_PUSH_VLAN, sizeof(vlan), &vlan);
	nla_put_u32(msg, OVS_ACTION_ATTR_OUTPUT, 0);
	nla_put_flag(msg, OVS_ACTION_ATTR_POP_VLAN);
	nla_nest_end(msg, nest);
}

static void seed_datapath(struct nl_msg *msg, int cmd)
{
	nla_put_string(msg, OVS_DP_ATTR_NAME, target_dp);
	if (cmd == OVS_DP_CMD_NEW || cmd == OVS_DP_CMD_SET) {
		nla_put_u32(msg, OVS_DP_ATTR_UPCALL_PID, 0);
		nla_put_u32(msg, OVS_DP_ATTR_USER_FEATURES,
			    OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS);
		nla_put_u32(msg, OVS_DP_ATTR_MASKS_CACHE_SIZE, 256);
	}
}

static void seed_vport(struct nl_msg *msg, int cmd)
{
	nla_put_string(msg, OVS_VPORT_ATTR_NAME, target_port);
	if (cmd == OVS_VPORT_CMD_NEW) {
		nla_put_u32(msg, OVS_VPORT_ATTR_TYPE, OVS_VPORT_TYPE_INTERNAL);
		nla_put_u32(msg, OVS_VPORT_ATTR_UPCALL_PID, 0);
	}
}

/* An exact mask for put_key()'s key: every bit of every field it has. */
static void put_mask(struct nl_msg *msg)
{
	struct ovs_key_ethernet eth;
	struct ovs_key_ipv4 ip;
	struct ovs_key_udp udp;
	struct nlattr *nest = nla_nest_start(msg, OVS_FLOW_ATTR_MASK);

	memset(&eth, 0xff, sizeof(eth));
	memset(&ip, 0xff, sizeof(ip));
	memset(&udp, 0xff, sizeof(udp));
	nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
	nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	nla_put(msg, OVS_KEY_ATTR_IPV4, sizeof(ip), &ip);
	nla_put(msg, OVS_KEY_ATTR_UDP, sizeof(udp), &udp);
	nla_nest_end(msg, nest);
}

static void seed_flow(struct nl_msg *msg, int cmd)
{
	put_key(msg, OVS_FLOW_ATTR_KEY);
	if (cmd == OVS_FLOW_CMD_NEW || cmd == OVS_FLOW_CMD_SET) {
		put_mask(msg);
		put_actions(msg, OVS_FLOW_ATTR_ACTIONS);
	}
}

static const uint8_t frame_udp[] = {
	2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x0a,
	0x08, 0x00, 0x45, 0, 0, 32, 0, 0, 0, 0, 64, 17, 0, 0,
	198, 51, 100, 1, 198, 51, 100, 200, 0x04, 0x00, 0x17, 0x70,
	0, 12, 0, 0, 'r', 'o', 'a', 'm',
};

static void seed_packet(struct nl_msg *msg, int cmd)
{
	(void)cmd;
	nla_put(msg, OVS_PACKET_ATTR_PACKET, sizeof(frame_udp), frame_udp);
	put_key(msg, OVS_PACKET_ATTR_KEY);
	put_actions(msg, OVS_PACKET_ATTR_ACTIONS);
}

/* fzdp's port 1 (fzport, made before this family's turn) sent out of its
 * local port 0, tagged. */
static void seed_redirect(struct nl_msg *msg, int cmd)
{
	nla_put_u32(msg, ROAM_REDIRECT_ATTR_PORT, 1);
	if (cmd == ROAM_REDIRECT_CMD_SET) {
		nla_put_u32(msg, ROAM_REDIRECT_ATTR_TARGET, 0);
		nla_put_u16(msg, ROAM_REDIRECT_ATTR_VLAN, 10);
	}
}

static const int dp_cmds[] = { OVS_DP_CMD_NEW, OVS_DP_CMD_GET,
	OVS_DP_CMD_SET, 0 };
static const int vport_cmds[] = { OVS_VPORT_CMD_NEW, OVS_VPORT_CMD_GET,
	OVS_VPORT_CMD_SET, OVS_VPORT_CMD_DEL, 0 };
static const int flow_cmds[] = { OVS_FLOW_CMD_NEW, OVS_FLOW_CMD_GET,
	OVS_FLOW_CMD_SET, OVS_FLOW_CMD_DEL, 0 };
static const int packet_cmds[] = { OVS_PACKET_CMD_EXECUTE, 0 };
static const int redirect_cmds[] = { ROAM_REDIRECT_CMD_SET,
	ROAM_REDIRECT_CMD_GET, ROAM_REDIRECT_CMD_DEL, 0 };

static struct family families[] = {
	{ .name = "datapath", .genl = OVS_DATAPATH_FAMILY,
	  .version = OVS_DATAPATH_VERSION, .seed = seed_datapath,
	  .cmds = dp_cmds },
	{ .name = "vport", .genl = OVS_VPORT_FAMILY,
	  .version = OVS_VPORT_VERSION, .seed = seed_vport,
	  .cmds = vport_cmds },
	{ .name = "flow", .genl = OVS_FLOW_FAMILY,
	  .version = OVS_FLOW_VERSION, .seed = seed_flow, .cmds = flow_cmds },
	{ .name = "packet", .genl = OVS_PACKET_FAMILY,
	  .version = OVS_PACKET_VERSION, .seed = seed_packet,
	  .cmds = packet_cmds },
	/* last: the openvswitch families' requests are the same for a seed
	 * whether it is there or not */
	{ .name = "redirect", .genl = ROAM_REDIRECT_FAMILY,
	  .version = ROAM_REDIRECT_VERSION, .seed = seed_redirect,
	  .cmds = redirect_cmds, .ours_only = true },
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

/* The offsets of every attribute header in buf[0..len), nested ones too. */
static unsigned int find_attrs(const uint8_t *buf, size_t len, size_t base,
			       size_t *out, unsigned int n, int depth)
{
	size_t off = 0;

	while (off + NLA_HDRLEN <= len && n < MAX_ATTRS) {
		const struct nlattr *a = (const struct nlattr *)(buf + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			break;
		out[n++] = base + off;
		if (depth < 8 && a->nla_len > 2 * NLA_HDRLEN)
			n = find_attrs(buf + off + NLA_HDRLEN,
				       a->nla_len - NLA_HDRLEN,
				       base + off + NLA_HDRLEN, out, n,
				       depth + 1);
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

static const uint32_t edges[] = {
	0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0x7fff, 0x8000,
	0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

/* Apply one mutation to buf[0..*len), which has room for MAX_MSG. */
static void mutate(uint8_t *buf, size_t *len)
{
	size_t offs[MAX_ATTRS];
	unsigned int n = find_attrs(buf, *len, 0, offs, 0, 0);
	struct nlattr *a = n ? (struct nlattr *)(buf + offs[below(n)]) : NULL;
	size_t i, depth, size;

	switch (below(8)) {
	case 0:		/* bit flips */
		for (i = 1 + below(4); i && *len; i--)
			buf[below(*len)] ^= 1 << below(8);
		break;
	case 1:		/* a length rewritten */
		if (a)
			a->nla_len = below(2) ? below(a->nla_len + 16) :
						edges[below(sizeof(edges) /
							    sizeof(edges[0]))];
		break;
	case 2:		/* a type rewritten, nested flag and all */
		if (a)
			a->nla_type = below(4) ? below(40) | (below(2) ?
							       NLA_F_NESTED : 0) :
						 rnd();
		break;
	case 3:		/* a value replaced by an edge case */
		if (a && a->nla_len >= NLA_HDRLEN + 4) {
			uint32_t v = edges[below(sizeof(edges) /
						 sizeof(edges[0]))];

			memcpy((uint8_t *)a + NLA_HDRLEN +
				       4 * below((a->nla_len - NLA_HDRLEN) / 4),
			       &v, sizeof(v));
		}
		break;
	case 4:		/* an attribute repeated at the end */
		if (a && *len + NLA_ALIGN(a->nla_len) <= MAX_MSG &&
		    (uint8_t *)a + a->nla_len <= buf + *len) {
			memmove(buf + *len, a, a->nla_len);
			*len += NLA_ALIGN(a->nla_len);
		}
		break;
	case 5:		/* a random attribute added */
		size = below(64);
		if (*len + NLA_HDRLEN + NLA_ALIGN(size) <= MAX_MSG) {
			struct nlattr *b = (struct nlattr *)(buf + *len);

			b->nla_len = NLA_HDRLEN + size;
			b->nla_type = below(40);
			for (i = 0; i < size; i++)
				buf[*len + NLA_HDRLEN + i] = rnd();
			*len += NLA_HDRLEN + NLA_ALIGN(size);
		}
		break;
	case 6:		/* everything nested, up to 40 deep */
		depth = 1 + below(40);
		if (*len + depth * NLA_HDRLEN > MAX_MSG)
			break;
		memmove(buf + depth * NLA_HDRLEN, buf, *len);
		*len += depth * NLA_HDRLEN;
		for (i = 0; i < depth; i++) {
			struct nlattr *b = (struct nlattr *)(buf +
							     i * NLA_HDRLEN);

			b->nla_len = *len - i * NLA_HDRLEN;
			b->nla_type = below(40) | NLA_F_NESTED;
		}
		break;
	default:	/* the end cut off */
		*len = below(*len + 1);
		break;
	}
}

static int on_error(struct sockaddr_nl *peer, struct nlmsgerr *err,
		    void *arg)
{
	(void)peer;
	*(int *)arg = err->error ? -err->error : 0;
	return NL_STOP;
}

static int on_done(struct nl_msg *msg, void *arg)
{
	(void)msg;
	*(int *)arg = 0;
	return NL_STOP;
}

/*
 * Send one request to @f and wait for its answer.  Return: 0 accepted, a
 * positive errno, or -1 when no answer came.
 */
static int transact(struct nl_sock *sk, struct family *f, int cmd, int flags,
		    const void *attrs, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_size(MAX_MSG + 256);
	struct ovs_header *oh;
	struct nl_cb *cb;
	int answer = -1;

	if (!msg)
		return -1;
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, f->id, sizeof(*oh),
			 NLM_F_ACK | flags, cmd, f->version);
	if (!oh || nlmsg_append(msg, (void *)attrs, len, 0) < 0) {
		nlmsg_free(msg);
		return -1;
	}
	oh->dp_ifindex = fz_ifindex;
	if (nl_send_auto(sk, msg) < 0) {
		nlmsg_free(msg);
		return -1;
	}
	nlmsg_free(msg);

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -1;
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &answer);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_done, &answer);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_done, &answer);
	/* nl_recvmsgs_report() gives 0 or an error when SO_RCVTIMEO ran
	 * out with nothing read: no answer.
	 */
	while (answer == -1)
		if (nl_recvmsgs_report(sk, cb) <= 0 && answer == -1)
			break;
	nl_cb_put(cb);
	return answer;
}

/* A valid request's attributes for @cmd of @f, into buf. */
static size_t seed_attrs(struct family *f, int cmd, uint8_t *buf)
{
	struct nl_msg *msg = nlmsg_alloc_size(MAX_MSG + 256);
	size_t len = 0;

	if (!msg)
		return 0;
	f->seed(msg, cmd);
	len = nlmsg_datalen(nlmsg_hdr(msg));
	if (len > MAX_MSG)
		len = 0;
	memcpy(buf, nlmsg_data(nlmsg_hdr(msg)), len);
	nlmsg_free(msg);
	return len;
}

/* An errno's name, as EINVAL, or "other" for one glibc cannot name. */
static const char *errno_name(int e)
{
	return strerrorname_np(e) ?: "other";
}

/* An answer as --answers writes it: OK, an errno's name, or none. */
static const char *answer_name(int answer)
{
	if (!answer)
		return "OK";
	if (answer < 0)
		return "none";
	return errno_name(answer);
}

static void write_answer(FILE *answers, const struct family *f,
			 unsigned int i, int cmd, int flags, int answer,
			 const uint8_t *buf, size_t len)
{
	size_t j;

	fprintf(answers, "%s %u %d %#x %s ", f->name, i, cmd, flags,
		answer_name(answer));
	for (j = 0; j < len; j++)
		fprintf(answers, "%02x", buf[j]);
	fputc('\n', answers);
}

/*
 * Fuzz @f with @count requests; with @answers, write a line per request
 * there: "FAMILY N CMD FLAGS ANSWER ATTRS", ANSWER an errno name, OK or
 * none, ATTRS the request's attributes in hex.
 */
static void fuzz_family(struct nl_sock *sk, struct family *f,
			unsigned int count, FILE *answers)
{
	uint8_t buf[MAX_MSG];
	unsigned int i, m, n_cmds = 0;
	size_t len;
	int cmd, answer, flags;

	while (f->cmds[n_cmds])
		n_cmds++;
	for (i = 0; i < count; i++) {
		cmd = f->cmds[below(n_cmds)];
		/* Zeroes in the padding mutations leave, not the stack's
		 * leftovers: a seed's requests must be the same every run.
		 */
		memset(buf, 0, sizeof(buf));
		len = seed_attrs(f, cmd, buf);
		for (m = 1 + below(3); m; m--)
			mutate(buf, &len);
		if (!below(16))
			cmd = below(8);		/* any command, even none */
		flags = below(8) ? 0 : NLM_F_DUMP;
		if (!below(4))
			flags |= NLM_F_CREATE | (below(2) ? NLM_F_EXCL : 0);
		answer = transact(sk, f, cmd, flags, buf, len);
		if (answers)
			write_answer(answers, f, i, cmd, flags, answer, buf,
				     len);
		f->requests++;
		if (answer < 0)
			f->unanswered++;
		else if (answer) {
			f->by_errno[answer > MAX_ERRNO ? 0 : answer]++;
			f->errors++;
		} else
			f->accepted++;
	}
}

/* The three commonest errors of @f, as "EINVAL 700, ENOENT 200". */
static void print_errnos(const struct family *f)
{
	unsigned int seen[MAX_ERRNO + 1], i, k, best;

	memcpy(seen, f->by_errno, sizeof(seen));
	for (k = 0; k < 3; k++) {
		best = 0;
		for (i = 1; i <= MAX_ERRNO; i++)
			if (seen[i] > seen[best])
				best = i;
		if (!seen[best])
			break;
		printf("%s%s %u", k ? ", " : "",
		       best ? errno_name(best) : "other", seen[best]);
		seen[best] = 0;
	}
}

/* Send COUNT mutated frames out of IFNAME. */
static int fuzz_frames(const char *ifname, unsigned int count)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x0806, 0x8100,
		0x88a8, 0x8847, 0x8848, 0x88cc, 0x0000, 0xffff };
	uint8_t frame[1600];
	unsigned int i, sent = 0;
	size_t len, j;
	int fd;

	to.sll_ifindex = if_nametoindex(ifname);
	if (!to.sll_ifindex) {
		fprintf(stderr, "%s: no interface %s\n", prog, ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return -1;
	}
	for (i = 0; i < count; i++) {
		memcpy(frame, frame_udp, sizeof(frame_udp));
		len = sizeof(frame_udp) + below(64);
		for (j = sizeof(frame_udp); j < len; j++)
			frame[j] = rnd();
		/* the tag's type, or the one after it, rewritten */
		if (below(2)) {
			uint16_t t = htons(types[below(sizeof(types) /
							sizeof(types[0]))]);

			memcpy(frame + (below(2) ? 12 : 16), &t, sizeof(t));
		}
		for (j = below(6); j; j--)
			frame[below(len)] ^= 1 << below(8);
		if (!below(4))
			len = 14 + below(len - 13);
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) == (ssize_t)len)
			sent++;
	}
	close(fd);
	printf("frames on %s: %u sent of %u\n", ifname, sent, count);
	return 0;
}

static int fz_dp(struct nl_sock *sk, int cmd)
{
	uint8_t buf[MAX_MSG];
	size_t len = seed_attrs(&families[0], cmd, buf);

	return transact(sk, &families[0], cmd, 0, buf, len);
}

/* fzdp's port fzport, made if it is not there (an answer either way). */
static int fz_port(struct nl_sock *sk)
{
	uint8_t buf[MAX_MSG];
	size_t len = seed_attrs(&families[1], OVS_VPORT_CMD_NEW, buf);

	return transact(sk, &families[1], OVS_VPORT_CMD_NEW, 0, buf, len);
}

/* --send's requests: a family (its index in families[]) and a command. */
static const struct {
	const char *name;
	unsigned int family;
	int cmd;
} sends[] = {
	{ "datapath:new", 0, OVS_DP_CMD_NEW },
	{ "datapath:get", 0, OVS_DP_CMD_GET },
	{ "datapath:set", 0, OVS_DP_CMD_SET },
	{ "vport:new", 1, OVS_VPORT_CMD_NEW },
	{ "vport:get", 1, OVS_VPORT_CMD_GET },
	{ "vport:set", 1, OVS_VPORT_CMD_SET },
	{ "vport:del", 1, OVS_VPORT_CMD_DEL },
	{ "flow:new", 2, OVS_FLOW_CMD_NEW },
	{ "flow:get", 2, OVS_FLOW_CMD_GET },
	{ "flow:set", 2, OVS_FLOW_CMD_SET },
	{ "flow:del", 2, OVS_FLOW_CMD_DEL },
	{ "packet:execute", 3, OVS_PACKET_CMD_EXECUTE },
};

static int send_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(sends) / sizeof(sends[0]); i++)
		if (!strcmp(sends[i].name, name))
			return i;
	return -1;
}

/* --send: one valid request of sends[@which] to target_dp. */
static int send_one(struct nl_sock *sk, int which)
{
	struct family *f = &families[sends[which].family];
	uint8_t buf[MAX_MSG];
	size_t len;
	int answer;

	fz_ifindex = if_nametoindex(target_dp);
	len = seed_attrs(f, sends[which].cmd, buf);
	answer = transact(sk, f, sends[which].cmd, 0, buf, len);
	if (!answer) {
		printf("%s: accepted\n", sends[which].name);
		return 0;
	}
	fprintf(stderr, "%s: %s: %s\n", prog, sends[which].name,
		answer > 0 ? strerror(answer) : "no answer");
	return 1;
}

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "%s: %s\n", prog, why);
	fprintf(stderr, "usage: %s [--seed S] [--count N] [--frames IFNAME] [--family datapath|vport|flow|packet|redirect|openvswitch|all] [--answers FILE]\n"
		"       %s --send FAMILY:CMD --dp DP [--port PORT]\n"
		"       %s --replay FILE\n",
		prog, prog, prog);
	return 2;
}

/* Parse @s as a whole number up to @max into *@v; 0 on success. */
static int number(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' || *v > max;
}

static struct family *family_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_FAMILIES; i++)
		if (!strcmp(families[i].name, name))
			return &families[i];
	return NULL;
}

/*
 * --replay: send every request of @path, lines as --answers writes them
 * ("#" lines are comments), unmutated, to fzdp; write each answer in the
 * same form to stdout.  Return the number of requests answered otherwise
 * than the line says, or -1 when the file cannot be read or parsed.
 */
static int replay(struct nl_sock *sk, const char *path)
{
	char line[2 * MAX_MSG + 256], name[32], want[32], hex[2 * MAX_MSG + 1];
	unsigned int n, flags, lineno = 0, sent = 0;
	int cmd, answer, differ = 0;
	uint8_t buf[MAX_MSG];
	struct family *f;
	size_t len, j;
	FILE *in;

	in = fopen(path, "r");
	if (!in) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		hex[0] = '\0';
		if (sscanf(line, "%31s %u %d %i %31s %8192s", name, &n, &cmd,
			   &flags, want, hex) < 5 ||
		    !(f = family_named(name)) || strlen(hex) % 2) {
			fprintf(stderr, "%s:%u: not a request line\n", path,
				lineno);
			fclose(in);
			return -1;
		}
		len = strlen(hex) / 2;
		for (j = 0; j < len; j++)
			if (sscanf(hex + 2 * j, "%2hhx", &buf[j]) != 1) {
				fprintf(stderr, "%s:%u: bad hex\n", path,
					lineno);
				fclose(in);
				return -1;
			}
		answer = transact(sk, f, cmd, flags, buf, len);
		write_answer(stdout, f, n, cmd, flags, answer, buf, len);
		if (strcmp(want, answer_name(answer)))
			differ++;
		sent++;
	}
	fclose(in);
	printf("replayed %u requests, %d answered otherwise than recorded\n",
	       sent, differ);
	return differ;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "family", required_argument, NULL, 'f' },
		{ "frames", required_argument, NULL, 'F' },
		{ "send", required_argument, NULL, 'S' },
		{ "dp", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "answers", required_argument, NULL, 'a' },
		{ "replay", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = "all", *frames = NULL, *dp = NULL, *replayed = NULL;
	bool replay_failed = false;
	int send = -1;
	FILE *answers = NULL;
	unsigned long long seed = time(NULL);
	unsigned int count = 1000, i, unanswered = 0;
	uint64_t saved_rng;
	unsigned long long n;
	struct timeval tv = { .tv_sec = 5 };
	struct nl_sock *sk;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (number(optarg, ULLONG_MAX, &seed))
				return usage("--seed wants a number");
			break;
		case 'n':
			if (number(optarg, 10000000, &n) || !n)
				return usage("--count wants a number from 1 to 10000000");
			count = n;
			break;
		case 'f':
			only = optarg;
			if (strcmp(only, "all") && strcmp(only, "openvswitch") &&
			    !family_named(only))
				return usage("--family wants datapath, vport, flow, packet, redirect, openvswitch or all");
			break;
		case 'F':
			frames = optarg;
			break;
		case 'S':
			send = send_named(optarg);
			if (send < 0)
				return usage("--send wants FAMILY:CMD, as in vport:set");
			break;
		case 'd':
			dp = optarg;
			break;
		case 'p':
			target_port = optarg;
			break;
		case 'r':
			replayed = optarg;
			break;
		case 'a':
			answers = fopen(optarg, "w");
			if (!answers) {
				perror(optarg);
				return 2;
			}
			break;
		default:
			return usage(NULL);
		}
	}
	if (optind != argc)
		return usage("no arguments but options");
	if ((send < 0) != !dp)
		return usage("--send and --dp go together");
	if ((send >= 0 || replayed) && (frames || strcmp(only, "all")))
		return usage("--send and --replay fuzz nothing: no --frames or --family");
	if (send >= 0 && replayed)
		return usage("--send or --replay, not both");
	if (dp)
		target_dp = dp;
	rng_state = seed ? seed : 1;
	if (send < 0 && !replayed) {
		printf("seed %llu\n", seed);
		fflush(stdout);
	}

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "%s: cannot open a Generic Netlink socket\n",
			prog);
		return 1;
	}
	nl_socket_disable_auto_ack(sk);
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	for (i = 0; i < N_FAMILIES; i++) {
		families[i].id = genl_ctrl_resolve(sk, families[i].genl);
		if (families[i].id < 0 && (!families[i].ours_only ||
					   !strcmp(only, families[i].name))) {
			fprintf(stderr, "%s: no family %s: is the module loaded?\n",
				prog, families[i].genl);
			return 1;
		}
	}
	if (send >= 0) {
		err = send_one(sk, send);
		nl_socket_free(sk);
		return err;
	}
	fz_dp(sk, OVS_DP_CMD_DEL);	/* a leftover of an earlier run */
	err = fz_dp(sk, OVS_DP_CMD_NEW);
	fz_ifindex = if_nametoindex(FZ_DP);
	if (err || !fz_ifindex) {
		fprintf(stderr, "%s: cannot make datapath %s (%s)\n", prog,
			FZ_DP, err > 0 ? strerror(err) : "no answer");
		return 1;
	}

	if (replayed) {
		/* a file that cannot be read fails like a failed setup */
		replay_failed = replay(sk, replayed) != 0;
		goto delete_fzdp;
	}
	for (i = 0; i < N_FAMILIES; i++) {
		struct family *f = &families[i];

		if (!strcmp(only, "openvswitch") ? f->ours_only :
		    strcmp(only, "all") && strcmp(only, f->name))
			continue;
		if (f->id < 0) {
			printf("family %s: not in this module (%s), not fuzzed\n",
			       f->name, f->genl);
			continue;
		}
		/* its seeds name fzdp's port 1: there is one, if the vport
		 * family's requests left none; and it draws from a stream of
		 * its own, so that the frames after it are the same on both
		 * modules */
		saved_rng = rng_state;
		if (f->ours_only) {
			fz_port(sk);
			rng_state = ~seed ? ~seed : 1;
		}
		fuzz_family(sk, f, count, answers);
		if (f->ours_only)
			rng_state = saved_rng;
		printf("family %s: %u requests, %u accepted, %u errors, %u unanswered (",
		       f->name, f->requests, f->accepted, f->errors,
		       f->unanswered);
		print_errnos(f);
		printf(")\n");
		fflush(stdout);
		unanswered += f->unanswered;
		/* A fuzzed request may have deleted it (make it again), or
		 * deleted it and made it anew under another ifindex.
		 */
		if (!if_nametoindex(FZ_DP))
			fz_dp(sk, OVS_DP_CMD_NEW);
		fz_ifindex = if_nametoindex(FZ_DP);
	}
	if (answers && fclose(answers)) {
		perror("--answers");
		return 1;
	}
	if (frames && fuzz_frames(frames, count))
		return 1;

delete_fzdp:
	fz_ifindex = if_nametoindex(FZ_DP);
	err = fz_dp(sk, OVS_DP_CMD_DEL);
	if (err) {
		fprintf(stderr, "%s: cannot delete datapath %s (%s)\n", prog,
			FZ_DP, err > 0 ? strerror(err) : "no answer");
		return 1;
	}
	nl_socket_free(sk);
	if (unanswered)
		fprintf(stderr, "%s: %u requests went unanswered\n", prog,
			unanswered);
	return unanswered || replay_failed ? 1 : 0;
}
