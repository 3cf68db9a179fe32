// SPDX-License-Identifier: GPL-2.0
/*
 * key-oracle: print, one stable line per case, how the loaded datapath
 * parses and echoes flow keys and masks and which key it extracts from a
 * frame, so that two modules' outputs can be compared line by line.
 *
 *   key-oracle
 *
 * Creates the datapath "keyoracle" (deleting a leftover one first) and runs
 * two kinds of case against it:
 *
 *   flow:   OVS_FLOW_CMD_NEW, NLM_F_ECHO, with a crafted OVS_FLOW_ATTR_KEY,
 *           an optional crafted OVS_FLOW_ATTR_MASK and no actions; prints
 *           the answer and the KEY and MASK of the echoed flow.  All flows
 *           are flushed again before the next case.
 *   packet: OVS_PACKET_CMD_EXECUTE of a crafted frame whose only action is
 *           userspace(pid = this program's socket); prints the answer and
 *           the OVS_PACKET_ATTR_KEY of the OVS_PACKET_CMD_ACTION upcall.
 *
 * then deletes the datapath.  Lines read
 *
 *   flow NAME RESULT [key{ATTRS}] [mask{ATTRS}]
 *   packet NAME RESULT [key{ATTRS}]
 *
 * RESULT is OK or the errno's symbolic name (EINVAL); a part the kernel
 * did not send is left out.  ATTRS are the attributes in the kernel's
 * order, space separated, each NAME=HEX with the payload bytes as they are
 * on the wire (host order for the u32 metadata), or NAME{ATTRS} for the
 * nested encap and tunnel attributes, e.g.
 *
 *   flow vlan-arp OK key{... eth_type=8100 vlan=100a encap{eth_type=0806
 *   arp=...}} mask{...}
 *
 * Nests are sent without NLA_F_NESTED, as ovs-vswitchd sends them.  Exit
 * status 0 when every request was answered, 1 otherwise (the line then
 * reads "no-answer").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/openvswitch.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#define DP_NAME		"keyoracle"
#define REQUEST_SIZE	8192
#define MAX_FRAME	2048
/* Deeper than any key the cases send or the kernel echoes. */
#define MAX_PRINT_DEPTH	4

static const char *prog = "key-oracle";

static struct nl_sock *sk;
static int dp_family, flow_family, packet_family;
static int dp_ifindex;
static bool failed;

static const char *const key_attr_names[OVS_KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_ENCAP] = "encap",
	[OVS_KEY_ATTR_PRIORITY] = "priority",
	[OVS_KEY_ATTR_IN_PORT] = "in_port",
	[OVS_KEY_ATTR_ETHERNET] = "eth",
	[OVS_KEY_ATTR_VLAN] = "vlan",
	[OVS_KEY_ATTR_ETHERTYPE] = "eth_type",
	[OVS_KEY_ATTR_IPV4] = "ipv4",
	[OVS_KEY_ATTR_IPV6] = "ipv6",
	[OVS_KEY_ATTR_TCP] = "tcp",
	[OVS_KEY_ATTR_UDP] = "udp",
	[OVS_KEY_ATTR_ICMP] = "icmp",
	[OVS_KEY_ATTR_ICMPV6] = "icmpv6",
	[OVS_KEY_ATTR_ARP] = "arp",
	[OVS_KEY_ATTR_ND] = "nd",
	[OVS_KEY_ATTR_SKB_MARK] = "skb_mark",
	[OVS_KEY_ATTR_TUNNEL] = "tunnel",
	[OVS_KEY_ATTR_SCTP] = "sctp",
	[OVS_KEY_ATTR_TCP_FLAGS] = "tcp_flags",
	[OVS_KEY_ATTR_DP_HASH] = "dp_hash",
	[OVS_KEY_ATTR_RECIRC_ID] = "recirc_id",
	[OVS_KEY_ATTR_MPLS] = "mpls",
	[OVS_KEY_ATTR_CT_STATE] = "ct_state",
	[OVS_KEY_ATTR_CT_ZONE] = "ct_zone",
	[OVS_KEY_ATTR_CT_MARK] = "ct_mark",
	[OVS_KEY_ATTR_CT_LABELS] = "ct_labels",
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4] = "ct_tuple4",
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6] = "ct_tuple6",
	[OVS_KEY_ATTR_NSH] = "nsh",
	[OVS_KEY_ATTR_PACKET_TYPE] = "packet_type",
	[OVS_KEY_ATTR_ND_EXTENSIONS] = "nd_ext",
	[OVS_KEY_ATTR_TUNNEL_INFO] = "tunnel_info",
	[OVS_KEY_ATTR_IPV6_EXTHDRS] = "ipv6_exthdrs",
};

static const char *const tunnel_attr_names[OVS_TUNNEL_KEY_ATTR_MAX + 1] = {
	[OVS_TUNNEL_KEY_ATTR_ID] = "id",
	[OVS_TUNNEL_KEY_ATTR_IPV4_SRC] = "ipv4_src",
	[OVS_TUNNEL_KEY_ATTR_IPV4_DST] = "ipv4_dst",
	[OVS_TUNNEL_KEY_ATTR_TOS] = "tos",
	[OVS_TUNNEL_KEY_ATTR_TTL] = "ttl",
	[OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT] = "df",
	[OVS_TUNNEL_KEY_ATTR_CSUM] = "csum",
	[OVS_TUNNEL_KEY_ATTR_OAM] = "oam",
	[OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS] = "geneve",
	[OVS_TUNNEL_KEY_ATTR_TP_SRC] = "tp_src",
	[OVS_TUNNEL_KEY_ATTR_TP_DST] = "tp_dst",
	[OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS] = "vxlan",
	[OVS_TUNNEL_KEY_ATTR_IPV6_SRC] = "ipv6_src",
	[OVS_TUNNEL_KEY_ATTR_IPV6_DST] = "ipv6_dst",
	[OVS_TUNNEL_KEY_ATTR_PAD] = "pad",
	[OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS] = "erspan",
	[OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE] = "info_bridge",
};

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "%s: %s\n", prog, what);
	exit(1);
}

/* ---- Building requests ---- */

static struct nl_msg *request_start(int family, int flags, int cmd,
				    int version)
{
	struct ovs_header *oh;
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(REQUEST_SIZE);
	if (!msg)
		die("out of memory");
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, sizeof(*oh),
			 NLM_F_ACK | flags, cmd, version);
	if (!oh)
		die("no room for the request's header");
	oh->dp_ifindex = dp_ifindex;
	return msg;
}

static void put(struct nl_msg *msg, int type, const void *data, int len)
{
	if (nla_put(msg, type, len, data) < 0)
		die("request too long");
}

static void put_u32(struct nl_msg *msg, int type, uint32_t value)
{
	put(msg, type, &value, sizeof(value));
}

static void put_be16(struct nl_msg *msg, int type, uint16_t host_value)
{
	uint16_t value = htons(host_value);

	put(msg, type, &value, sizeof(value));
}

/* A nest opened here is closed by nest_end(); no NLA_F_NESTED, see top. */
static struct nlattr *nest_start(struct nl_msg *msg, int type)
{
	struct nlattr *nest = (struct nlattr *)nlmsg_tail(nlmsg_hdr(msg));

	put(msg, type, NULL, 0);
	return nest;
}

static void nest_end(struct nl_msg *msg, struct nlattr *nest)
{
	nest->nla_len = (char *)nlmsg_tail(nlmsg_hdr(msg)) - (char *)nest;
}

/* ---- Printing answers ---- */

static void print_hex(FILE *out, const void *data, int len)
{
	const unsigned char *bytes = data;
	int i;

	for (i = 0; i < len; i++)
		fprintf(out, "%02x", bytes[i]);
}

static const char *attr_name(const char *const *names, int max, int type,
			     char *fallback, size_t size)
{
	if (type <= max && names[type])
		return names[type];
	snprintf(fallback, size, "attr%d", type);
	return fallback;
}

/* ATTRS as described at the top; TUNNEL selects the tunnel names. */
static void print_attrs(FILE *out, const struct nlattr *attrs, int len,
			bool tunnel, int depth)
{
	const struct nlattr *a;
	const char *sep = "";
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		int type = nla_type(a);
		char fallback[16];
		const char *name;

		if (tunnel)
			name = attr_name(tunnel_attr_names,
					 OVS_TUNNEL_KEY_ATTR_MAX, type,
					 fallback, sizeof(fallback));
		else
			name = attr_name(key_attr_names, OVS_KEY_ATTR_MAX,
					 type, fallback, sizeof(fallback));
		fprintf(out, "%s%s", sep, name);
		sep = " ";
		if (!tunnel && depth < MAX_PRINT_DEPTH &&
		    (type == OVS_KEY_ATTR_ENCAP ||
		     type == OVS_KEY_ATTR_TUNNEL)) {
			fprintf(out, "{");
			print_attrs(out, nla_data(a), nla_len(a),
				    type == OVS_KEY_ATTR_TUNNEL, depth + 1);
			fprintf(out, "}");
			continue;
		}
		fprintf(out, "=");
		print_hex(out, nla_data(a), nla_len(a));
	}
	if (rem)
		fprintf(out, "%s<%d trailing bytes>", sep, rem);
}

static void print_key_attr(FILE *out, const char *label,
			   const struct nlattr *key)
{
	fprintf(out, " %s{", label);
	print_attrs(out, nla_data(key), nla_len(key), false, 0);
	fprintf(out, "}");
}

/* A reply to the flow request: the echoed flow's KEY and MASK. */
static void print_flow_reply(FILE *out, struct nlmsghdr *nlh)
{
	struct nlattr *tb[OVS_FLOW_ATTR_MAX + 1];

	if (nlh->nlmsg_type != flow_family)
		return;
	if (genlmsg_parse(nlh, sizeof(struct ovs_header), tb,
			  OVS_FLOW_ATTR_MAX, NULL) < 0) {
		fprintf(out, " unparsable-reply");
		return;
	}
	if (tb[OVS_FLOW_ATTR_KEY])
		print_key_attr(out, "key", tb[OVS_FLOW_ATTR_KEY]);
	if (tb[OVS_FLOW_ATTR_MASK])
		print_key_attr(out, "mask", tb[OVS_FLOW_ATTR_MASK]);
}

/* The userspace action's upcall: its key. */
static void print_upcall(FILE *out, struct nlmsghdr *nlh)
{
	struct nlattr *tb[OVS_PACKET_ATTR_MAX + 1];
	const struct genlmsghdr *gh = nlmsg_data(nlh);

	if (nlh->nlmsg_type != packet_family ||
	    gh->cmd != OVS_PACKET_CMD_ACTION)
		return;
	if (genlmsg_parse(nlh, sizeof(struct ovs_header), tb,
			  OVS_PACKET_ATTR_MAX, NULL) < 0) {
		fprintf(out, " unparsable-upcall");
		return;
	}
	if (tb[OVS_PACKET_ATTR_KEY])
		print_key_attr(out, "key", tb[OVS_PACKET_ATTR_KEY]);
	else
		fprintf(out, " upcall-without-key");
}

typedef void (*reply_printer)(FILE *out, struct nlmsghdr *nlh);

/*
 * Send MSG (and free it).  Every message that arrives before the answer
 * goes to PRINT, if given, which writes to OUT.  Returns 0 or the positive
 * errno of the answer, -1 if none arrived.
 */
static int transact(struct nl_msg *msg, reply_printer print, FILE *out)
{
	int err;

	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return -1;
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, answer = -1;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			return -1;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(nlh);

				answer = -e->error;
			} else if (print) {
				print(out, nlh);
			}
		}
		free(buf);
		if (answer >= 0)
			return answer;
	}
}

/* Print "KIND NAME RESULT" and the details DETAILS collected. */
static void print_case(const char *kind, const char *name, int answer,
		       const char *details)
{
	const char *errname;

	printf("%s %s ", kind, name);
	if (answer < 0) {
		printf("no-answer\n");
		failed = true;
		return;
	}
	errname = answer ? strerrorname_np(answer) : "OK";
	if (errname)
		printf("%s", errname);
	else
		printf("errno-%d", answer);
	printf("%s\n", details);
	fflush(stdout);
}

/* Run one request, printing its case line. */
static void run_case(const char *kind, const char *name, struct nl_msg *msg,
		     reply_printer print)
{
	char *details = NULL;
	size_t size = 0;
	FILE *out;
	int answer;

	out = open_memstream(&details, &size);
	if (!out)
		die("out of memory");
	answer = transact(msg, print, out);
	if (fclose(out))
		die("out of memory");
	print_case(kind, name, answer, details);
	free(details);
}

/* ---- Flow cases: key and mask builders ---- */

static const uint8_t eth_addrs[12] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06,	/* eth_src */
	0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,	/* eth_dst */
};

static const uint8_t all_ones[64] = {
	[0 ... 63] = 0xff,
};

/* The metadata ovs-vswitchd puts in every key: port 1, all else zero. */
static void put_metadata_key(struct nl_msg *msg)
{
	put_u32(msg, OVS_KEY_ATTR_RECIRC_ID, 0);
	put_u32(msg, OVS_KEY_ATTR_DP_HASH, 0);
	put_u32(msg, OVS_KEY_ATTR_PRIORITY, 0);
	put_u32(msg, OVS_KEY_ATTR_IN_PORT, 1);
	put_u32(msg, OVS_KEY_ATTR_SKB_MARK, 0);
}

/* recirc_id, priority and in_port exact; dp_hash and skb_mark wild. */
static void put_metadata_mask(struct nl_msg *msg)
{
	put_u32(msg, OVS_KEY_ATTR_RECIRC_ID, UINT32_MAX);
	put_u32(msg, OVS_KEY_ATTR_DP_HASH, 0);
	put_u32(msg, OVS_KEY_ATTR_PRIORITY, UINT32_MAX);
	put_u32(msg, OVS_KEY_ATTR_IN_PORT, UINT32_MAX);
	put_u32(msg, OVS_KEY_ATTR_SKB_MARK, 0);
}

static void put_eth(struct nl_msg *msg)
{
	put(msg, OVS_KEY_ATTR_ETHERNET, eth_addrs, sizeof(eth_addrs));
}

static void put_eth_exact(struct nl_msg *msg)
{
	put(msg, OVS_KEY_ATTR_ETHERNET, all_ones,
	    sizeof(struct ovs_key_ethernet));
}

/* The key's start: metadata, addresses and ETHERTYPE. */
static void put_l2_key(struct nl_msg *msg, uint16_t ethertype)
{
	put_metadata_key(msg);
	put_eth(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ethertype);
}

/* The mask's start: metadata mask, exact addresses and ethertype. */
static void put_l2_mask(struct nl_msg *msg)
{
	put_metadata_mask(msg);
	put_eth_exact(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
}

/* 198.51.100.1 > 198.51.100.2, TTL 64. */
static void put_ipv4(struct nl_msg *msg, uint8_t proto, uint8_t frag)
{
	struct ovs_key_ipv4 ip = {
		.ipv4_src = htonl(0xc6336401),
		.ipv4_dst = htonl(0xc6336402),
		.ipv4_proto = proto,
		.ipv4_ttl = 64,
		.ipv4_frag = frag,
	};

	put(msg, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
}

/* Source and destination port as given, in host order. */
static void put_ports(struct nl_msg *msg, int type, uint16_t src,
		      uint16_t dst)
{
	uint16_t ports[2] = { src, dst };

	put(msg, type, ports, sizeof(ports));
}

static void put_arp(struct nl_msg *msg, uint16_t op)
{
	struct ovs_key_arp arp = {
		.arp_sip = 1,
		.arp_tip = 2,
		.arp_op = htons(op),
	};

	put(msg, OVS_KEY_ATTR_ARP, &arp, sizeof(arp));
}

/* fe80::1 > ::, the rest as given. */
static void put_ipv6(struct nl_msg *msg, uint8_t proto, uint8_t hlimit,
		     uint8_t frag, uint32_t label)
{
	struct ovs_key_ipv6 ip = {
		.ipv6_src = { htonl(0xfe800000), 0, 0, htonl(1) },
		.ipv6_label = htonl(label),
		.ipv6_proto = proto,
		.ipv6_hlimit = hlimit,
		.ipv6_frag = frag,
	};

	put(msg, OVS_KEY_ATTR_IPV6, &ip, sizeof(ip));
}

/* A TCP/IPv4 flow, every field exact. */
static void key_tcp4(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_IP);
	put_ipv4(msg, IPPROTO_TCP, OVS_FRAG_TYPE_NONE);
	put_ports(msg, OVS_KEY_ATTR_TCP, htons(1000), htons(80));
	put_be16(msg, OVS_KEY_ATTR_TCP_FLAGS, 0);
}

/* Addresses masked by a non-trivial pattern, TCP dst port only, and an
 * empty tunnel mask.
 */
static void mask_tcp4_partial(struct nl_msg *msg)
{
	struct nlattr *tunnel;

	put_metadata_mask(msg);
	put_eth(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put(msg, OVS_KEY_ATTR_IPV4, all_ones, sizeof(struct ovs_key_ipv4));
	put_ports(msg, OVS_KEY_ATTR_TCP, 0, 0xffff);
	put_be16(msg, OVS_KEY_ATTR_TCP_FLAGS, 0);
	tunnel = nest_start(msg, OVS_KEY_ATTR_TUNNEL);
	nest_end(msg, tunnel);
}

static void put_tunnel_ttl_mask(struct nl_msg *msg, uint8_t ttl)
{
	struct nlattr *tunnel;

	tunnel = nest_start(msg, OVS_KEY_ATTR_TUNNEL);
	put(msg, OVS_TUNNEL_KEY_ATTR_TTL, &ttl, sizeof(ttl));
	nest_end(msg, tunnel);
}

/* L2 exact, L3 up wild, a tunnel mask with TTL 0. */
static void mask_tunnel_ttl_zero(struct nl_msg *msg)
{
	put_l2_mask(msg);
	put_tunnel_ttl_mask(msg, 0);
}

/* No ethertype mask, and a tunnel mask matching TTL bit 0. */
static void mask_tunnel_ttl_one(struct nl_msg *msg)
{
	put_metadata_mask(msg);
	put_eth_exact(msg);
	put_tunnel_ttl_mask(msg, 1);
}

/* IPv4 fields matched but the ethertype wildcarded. */
static void mask_ipv4_without_ethertype(struct nl_msg *msg)
{
	put_metadata_mask(msg);
	put_eth_exact(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0);
	put(msg, OVS_KEY_ATTR_IPV4, all_ones, sizeof(struct ovs_key_ipv4));
}

/* UDP/IPv4 with recirc_id but none of the other metadata. */
static void key_udp4_no_in_port(struct nl_msg *msg)
{
	put_u32(msg, OVS_KEY_ATTR_RECIRC_ID, 0);
	put_eth(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_IP);
	put_ipv4(msg, IPPROTO_UDP, OVS_FRAG_TYPE_NONE);
	put_ports(msg, OVS_KEY_ATTR_UDP, 1, 2);
}

/* A mask naming only in_port (with a value other than all-ones). */
static void mask_in_port_only(struct nl_msg *msg)
{
	put_u32(msg, OVS_KEY_ATTR_IN_PORT, 5);
	put_u32(msg, OVS_KEY_ATTR_RECIRC_ID, UINT32_MAX);
}

/* An 802.2 frame: Ethernet without OVS_KEY_ATTR_ETHERTYPE. */
static void key_eth_no_ethertype(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_eth(msg);
}

/* An ARP request inside one 802.1Q tag (VID 10). */
static void key_vlan_arp(struct nl_msg *msg)
{
	struct nlattr *encap;

	put_l2_key(msg, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 10);
	encap = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_ARP);
	put_arp(msg, ARPOP_REQUEST);
	nest_end(msg, encap);
}

/* An ICMP echo inside 802.1ad VID 10 and 802.1Q VID 20. */
static void key_qinq_icmp4(struct nl_msg *msg)
{
	struct nlattr *outer, *inner;
	const uint8_t echo[2] = { 8, 0 };

	put_l2_key(msg, ETH_P_8021AD);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 10);
	outer = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 20);
	inner = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_IP);
	put_ipv4(msg, IPPROTO_ICMP, OVS_FRAG_TYPE_NONE);
	put(msg, OVS_KEY_ATTR_ICMP, echo, sizeof(echo));
	nest_end(msg, inner);
	nest_end(msg, outer);
}

/* Outer TCI exact, inner only its "present" bit, inner ethertype exact. */
static void mask_qinq(struct nl_msg *msg)
{
	struct nlattr *outer, *inner;

	put_l2_mask(msg);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1fff);
	outer = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000);
	inner = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	nest_end(msg, inner);
	nest_end(msg, outer);
}

/* A tag truncated away: TCI 0 and an empty encap. */
static void key_vlan_truncated(struct nl_msg *msg)
{
	struct nlattr *encap;

	put_l2_key(msg, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0);
	encap = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	nest_end(msg, encap);
}

/* Three nested tags, one more than a key can hold. */
static void key_vlan_three_tags(struct nl_msg *msg)
{
	struct nlattr *encap[3];
	int i;

	put_l2_key(msg, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 10);
	encap[0] = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 20);
	encap[1] = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 0x1000 | 30);
	encap[2] = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	for (i = 2; i >= 0; i--)
		nest_end(msg, encap[i]);
}

/* A non-zero TCI without the "present" bit (0x1000). */
static void key_vlan_without_present_bit(struct nl_msg *msg)
{
	struct nlattr *encap;

	put_l2_key(msg, ETH_P_8021Q);
	put_be16(msg, OVS_KEY_ATTR_VLAN, 10);
	encap = nest_start(msg, OVS_KEY_ATTR_ENCAP);
	nest_end(msg, encap);
}

/* An IPv6 neighbour solicitation, with hop-by-hop/dest exthdr bits. */
static void key_ipv6_nd(struct nl_msg *msg)
{
	const uint8_t solicit[2] = { ND_NEIGHBOR_SOLICIT, 0 };
	struct ovs_key_nd nd = {
		.nd_target = { htonl(0xfe800000), 0, 0, htonl(2) },
		.nd_sll = { 1, 2, 3, 4, 5, 6 },
	};
	/* OVS_KEY_ATTR_IPV6_EXTHDRS bits: hop-by-hop and destination. */
	uint16_t exthdrs = 0x48;

	put_l2_key(msg, ETH_P_IPV6);
	put_ipv6(msg, IPPROTO_ICMPV6, 255, OVS_FRAG_TYPE_NONE, 5);
	put(msg, OVS_KEY_ATTR_IPV6_EXTHDRS, &exthdrs, sizeof(exthdrs));
	put(msg, OVS_KEY_ATTR_ICMPV6, solicit, sizeof(solicit));
	put(msg, OVS_KEY_ATTR_ND, &nd, sizeof(nd));
}

/* ND fields matched, ICMPv6 type matched by ICMPV6_TYPE_MASK. */
static void put_nd_mask(struct nl_msg *msg, uint8_t icmpv6_type_mask)
{
	const uint8_t icmpv6[2] = { icmpv6_type_mask, 0 };
	struct ovs_key_ipv6 ip = { .ipv6_proto = 0xff };

	put_metadata_mask(msg);
	put_eth(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put(msg, OVS_KEY_ATTR_IPV6, &ip, sizeof(ip));
	put(msg, OVS_KEY_ATTR_ICMPV6, icmpv6, sizeof(icmpv6));
	put(msg, OVS_KEY_ATTR_ND, all_ones, sizeof(struct ovs_key_nd));
}

static void mask_nd(struct nl_msg *msg)
{
	put_nd_mask(msg, 0xff);
}

/* The ND fields matched though the ICMPv6 type is only partly matched. */
static void mask_nd_partial_type(struct nl_msg *msg)
{
	put_nd_mask(msg, 0x0f);
}

/* IPv4 proto TCP, but no OVS_KEY_ATTR_TCP. */
static void key_tcp4_no_l4(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_IP);
	put_ipv4(msg, IPPROTO_TCP, OVS_FRAG_TYPE_NONE);
}

/* A later fragment: no L4 attribute expected. */
static void key_ipv4_later_fragment(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_IP);
	put_ipv4(msg, IPPROTO_TCP, OVS_FRAG_TYPE_LATER);
}

/* ipv4_frag beyond the last OVS_FRAG_TYPE_*. */
static void key_ipv4_bad_frag_type(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_IP);
	put_ipv4(msg, IPPROTO_UDP, __OVS_FRAG_TYPE_MAX);
	put_ports(msg, OVS_KEY_ATTR_UDP, 1, 2);
}

/* A conntrack field, which a kernel with conntrack support accepts. */
static void key_ct_state(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_u32(msg, OVS_KEY_ATTR_CT_STATE, 0);
	put_eth(msg);
}

static void key_ct_state_new(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_u32(msg, OVS_KEY_ATTR_CT_STATE,
		OVS_CS_F_TRACKED | OVS_CS_F_NEW);
	put_eth(msg);
}

static void key_eth_twice(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_eth(msg);
	put_eth(msg);
}

/* OVS_KEY_ATTR_ETHERTYPE is a be16; four bytes are wrong. */
static void key_ethertype_four_bytes(struct nl_msg *msg)
{
	uint32_t ethertype = htons(ETH_P_IP);

	put_metadata_key(msg);
	put_eth(msg);
	put(msg, OVS_KEY_ATTR_ETHERTYPE, &ethertype, sizeof(ethertype));
}

/* An 802.3 length where an ethertype (>= 0x600) belongs. */
static void key_ethertype_below_0x600(struct nl_msg *msg)
{
	put_l2_key(msg, 0x0500);
}

/* An L3 packet: an IPv4 key without OVS_KEY_ATTR_ETHERNET. */
static void key_ipv4_without_eth(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, ETH_P_IP);
	put_ipv4(msg, 0, OVS_FRAG_TYPE_NONE);
}

/* OVS_KEY_ATTR_PACKET_TYPE is userspace's own: not for the kernel. */
static void key_packet_type(struct nl_msg *msg)
{
	put_metadata_key(msg);
	put_eth(msg);
	put_u32(msg, OVS_KEY_ATTR_PACKET_TYPE, 0);
}

/* A port number at the 16-bit limit (DP_MAX_PORTS is 65535). */
static void key_in_port_65535(struct nl_msg *msg)
{
	put_u32(msg, OVS_KEY_ATTR_IN_PORT, 65535);
	put_eth(msg);
}

/* ARP opcodes above 255 cannot be matched. */
static void key_arp_op_over_255(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_ARP);
	put_arp(msg, 0x101);
}

/* An ARP key that also carries an IPv4 attribute. */
static void key_arp_with_ipv4(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_ARP);
	put_arp(msg, ARPOP_REPLY);
	put_ipv4(msg, IPPROTO_TCP, OVS_FRAG_TYPE_NONE);
}

/* ...with a mask that does not mention the IPv4 attribute. */
static void mask_arp(struct nl_msg *msg)
{
	put_l2_mask(msg);
	put(msg, OVS_KEY_ATTR_ARP, all_ones, sizeof(struct ovs_key_arp));
}

static void key_mpls(struct nl_msg *msg)
{
	uint32_t lse = htonl(0x1234);

	put_l2_key(msg, ETH_P_MPLS_UC);
	put(msg, OVS_KEY_ATTR_MPLS, &lse, sizeof(lse));
}

/* SCTP over IPv6, first fragment. */
static void key_sctp6_first_fragment(struct nl_msg *msg)
{
	put_l2_key(msg, ETH_P_IPV6);
	put_ipv6(msg, IPPROTO_SCTP, 0, OVS_FRAG_TYPE_FIRST, 0);
	put_ports(msg, OVS_KEY_ATTR_SCTP, 7, 9);
}

struct flow_case {
	const char *name;
	void (*key)(struct nl_msg *msg);
	void (*mask)(struct nl_msg *msg);	/* NULL: an exact match */
};

static const struct flow_case flow_cases[] = {
	{ "tcp4-exact", key_tcp4, NULL },
	{ "tcp4-partial-mask", key_tcp4, mask_tcp4_partial },
	{ "tcp4-tunnel-ttl-zero-mask", key_tcp4, mask_tunnel_ttl_zero },
	{ "tcp4-tunnel-ttl-mask", key_tcp4, mask_tunnel_ttl_one },
	{ "tcp4-ipv4-mask-without-ethertype", key_tcp4,
	  mask_ipv4_without_ethertype },
	{ "udp4-no-in-port", key_udp4_no_in_port, NULL },
	{ "udp4-mask-in-port-only", key_udp4_no_in_port, mask_in_port_only },
	{ "eth-no-ethertype", key_eth_no_ethertype, NULL },
	{ "eth-no-ethertype-masked", key_eth_no_ethertype, put_l2_mask },
	{ "vlan-arp", key_vlan_arp, NULL },
	{ "qinq-icmp4", key_qinq_icmp4, NULL },
	{ "qinq-icmp4-masked", key_qinq_icmp4, mask_qinq },
	{ "vlan-truncated", key_vlan_truncated, NULL },
	{ "vlan-truncated-masked", key_vlan_truncated, put_l2_mask },
	{ "vlan-three-tags", key_vlan_three_tags, NULL },
	{ "vlan-without-present-bit", key_vlan_without_present_bit, NULL },
	{ "ipv6-nd", key_ipv6_nd, NULL },
	{ "ipv6-nd-masked", key_ipv6_nd, mask_nd },
	{ "ipv6-nd-partial-type-mask", key_ipv6_nd, mask_nd_partial_type },
	{ "tcp4-no-l4", key_tcp4_no_l4, NULL },
	{ "ipv4-later-fragment", key_ipv4_later_fragment, NULL },
	{ "ipv4-bad-frag-type", key_ipv4_bad_frag_type, NULL },
	{ "ct-state", key_ct_state, NULL },
	{ "ct-state-new", key_ct_state_new, NULL },
	{ "eth-twice", key_eth_twice, NULL },
	{ "ethertype-four-bytes", key_ethertype_four_bytes, NULL },
	{ "ethertype-below-0x600", key_ethertype_below_0x600, NULL },
	{ "ipv4-without-eth", key_ipv4_without_eth, NULL },
	{ "packet-type", key_packet_type, NULL },
	{ "in-port-65535", key_in_port_65535, NULL },
	{ "arp-op-over-255", key_arp_op_over_255, NULL },
	{ "arp-with-ipv4", key_arp_with_ipv4, NULL },
	{ "arp-with-ipv4-masked", key_arp_with_ipv4, mask_arp },
	{ "mpls", key_mpls, NULL },
	{ "sctp6-first-fragment", key_sctp6_first_fragment, NULL },
};

static void flush_flows(void)
{
	struct nl_msg *msg;

	msg = request_start(flow_family, 0, OVS_FLOW_CMD_DEL,
			    OVS_FLOW_VERSION);
	if (transact(msg, NULL, NULL))
		die("flushing the flows failed");
}

static void run_flow_case(const struct flow_case *c)
{
	struct nlattr *nest;
	struct nl_msg *msg;

	msg = request_start(flow_family, NLM_F_ECHO | NLM_F_CREATE,
			    OVS_FLOW_CMD_NEW, OVS_FLOW_VERSION);
	nest = nest_start(msg, OVS_FLOW_ATTR_KEY);
	c->key(msg);
	nest_end(msg, nest);
	if (c->mask) {
		nest = nest_start(msg, OVS_FLOW_ATTR_MASK);
		c->mask(msg);
		nest_end(msg, nest);
	}
	nest = nest_start(msg, OVS_FLOW_ATTR_ACTIONS);
	nest_end(msg, nest);
	run_case("flow", c->name, msg, print_flow_reply);
	flush_flows();
}

/* ---- Packet cases ---- */

/* dst 0a:0b:0c:0d:0e:0f, src 01:02:03:04:05:06 */
#define ETH		"0a0b0c0d0e0f 010203040506 "
/* IPv4 198.51.100.1 > 198.51.100.2, TTL 64, checksum not filled in. */
#define IPV4(proto, frag_off, total_len) \
	"4500" total_len "0001" frag_off "40" proto "0000 c6336401 c6336402 "
#define IPV6_LL		"fe800000000000000000000000000001 " \
			"fe800000000000000000000000000002 "
#define TCP_SYN_ACK	"04d2 0050 00000001 00000000 5012 ffff 0000 0000"
#define UDP_DNS		"04d2 0035 0008 0000"

struct packet_case {
	const char *name;
	const char *frame;	/* hex digits, spaces ignored */
};

static const struct packet_case packet_cases[] = {
	{ "tcp4", ETH "0800" IPV4("06", "4000", "0028") TCP_SYN_ACK },
	{ "udp4-vlan", ETH "8100 200a 0800" IPV4("11", "0000", "001c")
	  UDP_DNS },
	{ "arp-qinq", ETH "88a8 e00a 8100 0014 0806 0001 0800 06 04 0001 "
	  "010203040506 c0000201 000000000000 c0000202" },
	{ "snap-ipv4", ETH "0030 aaaa03 000000 0800"
	  IPV4("11", "0000", "001c") UDP_DNS },
	{ "llc", ETH "0030 4242 03 000000000000000000000000000000" },
	{ "snap-other-oui", ETH "0030 aaaa03 000001 0800 00000000" },
	{ "ipv4-truncated", ETH "0800 4500 0028 0001 0000" },
	{ "ipv4-ihl-too-long", ETH "0800 4f00 0028 0001 0000 4006 0000 "
	  "c6336401 c6336402" },
	{ "tcp-truncated", ETH "0800" IPV4("06", "0000", "0028")
	  "04d2 0050 0000" },
	{ "tcp-data-offset-too-long", ETH "0800" IPV4("06", "0000", "0028")
	  "04d2 0050 00000001 00000000 f012 ffff 0000 0000" },
	{ "icmp4", ETH "0800" IPV4("01", "0000", "001c")
	  "0800 0000 0001 0001" },
	{ "ipv4-later-fragment", ETH "0800" IPV4("06", "0010", "0028")
	  TCP_SYN_ACK },
	{ "ipv4-first-fragment", ETH "0800" IPV4("11", "2000", "0028")
	  UDP_DNS },
	{ "ipv6-hop-dest-frag-tcp", ETH "86dd 6abcdef5 0030 00 40" IPV6_LL
	  "3c00 0000 0000 0000 " "2c00 0000 0000 0000 "
	  "0600 0001 1234 5678 "
	  "04d2 0050 00000001 00000000 5002 ffff 0000 0000" },
	{ "ipv6-later-fragment", ETH "86dd 60000000 0010 2c 40" IPV6_LL
	  "0600 0010 1234 5678 " "04d2 0050 00000001" },
	{ "ipv6-frag-then-routing", ETH "86dd 60000000 0018 2c 40" IPV6_LL
	  "2b00 0001 1234 5678 " "3a00 0000 0000 0000 "
	  "8000 0000 0001 0001" },
	{ "ipv6-no-next-header", ETH "86dd 60000000 0008 00 40" IPV6_LL
	  "3b00 0000 0000 0000" },
	{ "ipv6-nd-solicit", ETH "86dd 60000000 0020 3a ff "
	  "fe800000000000000000000000000001 "
	  "ff020000000000000000000000000002 "
	  "8700 0000 00000000 fe800000000000000000000000000099 "
	  "0101 a1a2a3a4a5a6" },
	{ "ipv6-nd-advert-two-tll", ETH "86dd 60000000 0028 3a ff "
	  "fe800000000000000000000000000001 "
	  "ff020000000000000000000000000002 "
	  "8800 0000 00000000 fe800000000000000000000000000099 "
	  "0201 a1a2a3a4a5a6 0201 b1b2b3b4b5b6" },
	{ "ipv6-truncated", ETH "86dd 60000000 0020 3a ff fe80" },
	{ "sctp6", ETH "86dd 60000000 000c 84 40" IPV6_LL
	  "1111 2222 00000000 00000000" },
	{ "vlan-truncated", ETH "8100 00" },
	{ "shorter-than-ethernet", "0a0b0c0d0e0f 0102" },
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The frame's bytes into FRAME; their number. */
static int parse_frame(const char *name, const char *hex, uint8_t *frame,
		       int size)
{
	int len = 0;

	while (*hex) {
		int high, low;

		if (*hex == ' ') {
			hex++;
			continue;
		}
		high = hex_digit(hex[0]);
		low = high < 0 ? -1 : hex_digit(hex[1]);
		if (low < 0 || len == size) {
			fprintf(stderr, "%s: packet case %s: bad frame\n",
				prog, name);
			exit(1);
		}
		frame[len++] = high << 4 | low;
		hex += 2;
	}
	return len;
}

static void run_packet_case(const struct packet_case *c)
{
	struct nlattr *actions, *userspace, *key;
	uint8_t frame[MAX_FRAME];
	struct nl_msg *msg;
	int len;

	len = parse_frame(c->name, c->frame, frame, sizeof(frame));
	msg = request_start(packet_family, 0, OVS_PACKET_CMD_EXECUTE,
			    OVS_PACKET_VERSION);
	put(msg, OVS_PACKET_ATTR_PACKET, frame, len);
	/* The metadata the frame is executed with; the rest is extracted. */
	key = nest_start(msg, OVS_PACKET_ATTR_KEY);
	put_u32(msg, OVS_KEY_ATTR_PRIORITY, 7);
	put_u32(msg, OVS_KEY_ATTR_SKB_MARK, 9);
	nest_end(msg, key);
	actions = nest_start(msg, OVS_PACKET_ATTR_ACTIONS);
	userspace = nest_start(msg, OVS_ACTION_ATTR_USERSPACE);
	put_u32(msg, OVS_USERSPACE_ATTR_PID, nl_socket_get_local_port(sk));
	nest_end(msg, userspace);
	nest_end(msg, actions);
	run_case("packet", c->name, msg, print_upcall);
}

/* ---- The datapath ---- */

static int dp_request(int cmd)
{
	struct nl_msg *msg;

	msg = request_start(dp_family, 0, cmd, OVS_DATAPATH_VERSION);
	put(msg, OVS_DP_ATTR_NAME, DP_NAME, sizeof(DP_NAME));
	if (cmd == OVS_DP_CMD_NEW)
		put_u32(msg, OVS_DP_ATTR_UPCALL_PID, 0);
	return transact(msg, NULL, NULL);
}

static void dp_create(void)
{
	int err;

	err = dp_request(OVS_DP_CMD_DEL);
	if (err && err != ENODEV)
		die("deleting a leftover datapath " DP_NAME " failed");
	if (dp_request(OVS_DP_CMD_NEW))
		die("creating the datapath " DP_NAME " failed");
	dp_ifindex = if_nametoindex(DP_NAME);
	if (!dp_ifindex)
		die("the datapath " DP_NAME " has no device");
}

static void open_socket(void)
{
	struct timeval timeout = { .tv_sec = 10 };

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0)
		die("cannot open a generic netlink socket");
	/* The answer to a lost request reads "no-answer", not a hang. */
	if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO,
		       &timeout, sizeof(timeout)))
		die("cannot set the socket's receive timeout");
	dp_family = genl_ctrl_resolve(sk, OVS_DATAPATH_FAMILY);
	flow_family = genl_ctrl_resolve(sk, OVS_FLOW_FAMILY);
	packet_family = genl_ctrl_resolve(sk, OVS_PACKET_FAMILY);
	if (dp_family < 0 || flow_family < 0 || packet_family < 0)
		die("the ovs_datapath, ovs_flow and ovs_packet families are not registered");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 1;
	}
	open_socket();
	dp_create();
	for (i = 0; i < sizeof(flow_cases) / sizeof(flow_cases[0]); i++)
		run_flow_case(&flow_cases[i]);
	for (i = 0; i < sizeof(packet_cases) / sizeof(packet_cases[0]); i++)
		run_packet_case(&packet_cases[i]);
	dp_ifindex = 0;
	if (dp_request(OVS_DP_CMD_DEL))
		die("deleting the datapath " DP_NAME " failed");
	nl_socket_free(sk);
	return failed;
}
