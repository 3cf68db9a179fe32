// SPDX-License-Identifier: GPL-2.0
/*
 * Building a flow key from a packet.
 *
 * Userspace installs megaflows from the keys we report in upcalls and
 * expects every later packet of the same shape to produce the same key, so
 * the rules here follow the in-tree datapath's, including how truncated or
 * odd headers come out: a header too short to hold a field leaves that
 * field zero rather than failing, and only a failure to pull headers into
 * the linear area (memory) or a frame shorter than an Ethernet header makes
 * the packet unparseable.
 *
 * skb->data stays at the Ethernet header throughout; offsets below are from
 * there.  What the skb looks like on return is rsw_flow_key_extract()'s
 * contract, in flow_key.h.
 */

#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/llc.h>
#include <linux/openvswitch.h>
#include <linux/sctp.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#include <asm/unaligned.h>
#include "flow_key.h"

/* OVS_KEY_ATTR_IPV6_EXTHDRS bits, numbered as OpenFlow 1.2's OFPIEH_*. */
enum {
	EH_NONEXT	= BIT(0),	/* a "no next header" was reached */
	EH_ESP		= BIT(1),
	EH_AUTH		= BIT(2),
	EH_DEST		= BIT(3),	/* one or two destination options */
	EH_FRAG		= BIT(4),
	EH_ROUTER	= BIT(5),
	EH_HOP		= BIT(6),
	EH_UNREP	= BIT(7),	/* a header repeated unexpectedly */
	EH_UNSEQ	= BIT(8),	/* headers out of RFC 2460's order */
};

/* An ARP packet for IPv4 over Ethernet, the only kind the key describes. */
struct eth_arp {
	struct arphdr hdr;
	u8 sha[ETH_ALEN];
	u8 sip[4];
	u8 tha[ETH_ALEN];
	u8 tip[4];
} __packed;

/* LLC header with SNAP: DSAP, SSAP, control, OUI[3], Ethernet type. */
#define SNAP_HLEN 8

/*
 * What became of a header that ends @end bytes into the frame, once its
 * caller asked for it in the linear area: there whole, cut short by the
 * end of the packet (which most headers then match as absent), or left
 * in the fragments for want of memory (which drops the packet).
 */
enum hdr_fate {
	HDR_LINEAR,
	HDR_TRUNCATED,
	HDR_NOMEM,
};

static enum hdr_fate linearize_header(struct sk_buff *skb, unsigned int end)
{
	if (unlikely(skb->len < end))
		return HDR_TRUNCATED;
	if (unlikely(!pskb_may_pull(skb, end)))
		return HDR_NOMEM;
	return HDR_LINEAR;
}

static __be16 be16_at(const struct sk_buff *skb, unsigned int off)
{
	return get_unaligned((const __be16 *)(skb->data + off));
}

/*
 * The frame's own tag right after the MAC addresses, if there is a whole
 * one followed by a type: 1 with @tag filled, 0 without, or -ENOMEM.
 */
static int frame_tag(struct sk_buff *skb, struct rsw_vlan_tag *tag)
{
	const unsigned int end = 2 * ETH_ALEN + VLAN_HLEN + sizeof(__be16);
	__be16 tpid = be16_at(skb, 2 * ETH_ALEN);

	if (likely(!eth_type_vlan(tpid)) || skb->len < end)
		return 0;
	if (unlikely(!pskb_may_pull(skb, end)))
		return -ENOMEM;

	tag->tpid = tpid;
	tag->tci = be16_at(skb, 2 * ETH_ALEN + 2) | htons(VLAN_CFI_MASK);
	return 1;
}

/*
 * Up to two tags: the outer one from metadata or, failing that, from the
 * frame (then moved into metadata, so the inner tag, if any, is always
 * right after the MAC addresses).  Sets *@off past the tags.
 */
static int parse_tags(struct sk_buff *skb, struct rsw_flow_key *key,
		      unsigned int *off)
{
	u16 tci;
	int err;

	*off = 2 * ETH_ALEN;
	if (skb_vlan_tag_present(skb)) {
		key->vlan.tpid = skb->vlan_proto;
		key->vlan.tci = htons(skb_vlan_tag_get(skb) | VLAN_CFI_MASK);
	} else {
		err = frame_tag(skb, &key->vlan);
		if (err <= 0)
			return err;
		err = __skb_vlan_pop(skb, &tci);
		if (unlikely(err))
			return err;
		__vlan_hwaccel_put_tag(skb, key->vlan.tpid, tci);
	}

	err = frame_tag(skb, &key->cvlan);
	if (err <= 0)
		return err;
	*off += VLAN_HLEN;
	return 0;
}

/*
 * The type after the tags: Ethernet II as is, 802.3 with SNAP and a zero
 * OUI as the SNAP type, any other 802.3 frame as ETH_P_802_2.  Returns 0
 * (never a valid type) when pulling fails.
 */
static __be16 parse_type(struct sk_buff *skb, unsigned int *off)
{
	__be16 type = be16_at(skb, *off);
	const u8 *llc;

	*off += sizeof(__be16);
	if (eth_proto_is_802_3(type))
		return type;

	if (skb->len < *off + SNAP_HLEN)
		return htons(ETH_P_802_2);
	if (unlikely(!pskb_may_pull(skb, *off + SNAP_HLEN)))
		return 0;

	llc = skb->data + *off;
	if (llc[0] != LLC_SAP_SNAP || llc[1] != LLC_SAP_SNAP ||
	    (llc[3] | llc[4] | llc[5]))
		return htons(ETH_P_802_2);

	*off += SNAP_HLEN;
	type = be16_at(skb, *off - sizeof(__be16));
	return eth_proto_is_802_3(type) ? type : htons(ETH_P_802_2);
}

static void parse_arp(struct sk_buff *skb, struct rsw_flow_key *key,
		      unsigned int nh)
{
	const struct eth_arp *arp;
	u16 op;

	if (!pskb_may_pull(skb, nh + sizeof(*arp)))
		return;
	arp = (const struct eth_arp *)(skb->data + nh);
	if (arp->hdr.ar_hrd != htons(ARPHRD_ETHER) ||
	    arp->hdr.ar_pro != htons(ETH_P_IP) ||
	    arp->hdr.ar_hln != ETH_ALEN || arp->hdr.ar_pln != 4)
		return;

	/* The key has room for the low byte of the opcode only. */
	op = ntohs(arp->hdr.ar_op);
	key->ip_proto = op <= 0xff ? op : 0;
	memcpy(&key->arp.sip, arp->sip, sizeof(key->arp.sip));
	memcpy(&key->arp.tip, arp->tip, sizeof(key->arp.tip));
	memcpy(key->arp.sha, arp->sha, ETH_ALEN);
	memcpy(key->arp.tha, arp->tha, ETH_ALEN);
}

/*
 * Target and link-layer address options of a neighbour solicitation or
 * advertisement at @th.  A repeated address option voids all three.
 */
static void parse_nd(const struct sk_buff *skb, struct rsw_flow_key *key,
		     unsigned int th)
{
	unsigned int off = th + sizeof(struct nd_msg);
	struct in6_addr target_buf;
	const struct in6_addr *target;

	if (skb->len < off)
		return;
	target = skb_header_pointer(skb, th + offsetof(struct nd_msg, target),
				    sizeof(target_buf), &target_buf);
	if (!target)
		return;
	key->nd.target = *target;

	while (skb->len - off >= 8) {
		u8 opt_buf[8], *lla;
		const u8 *opt;
		unsigned int len;

		opt = skb_header_pointer(skb, off, sizeof(opt_buf), opt_buf);
		if (!opt)
			return;
		len = opt[1] * 8;
		if (!len || len > skb->len - off)
			return;

		if (len == 8 && opt[0] == ND_OPT_SOURCE_LL_ADDR)
			lla = key->nd.sll;
		else if (len == 8 && opt[0] == ND_OPT_TARGET_LL_ADDR)
			lla = key->nd.tll;
		else
			lla = NULL;

		if (lla) {
			if (!is_zero_ether_addr(lla)) {
				memset(&key->nd, 0, sizeof(key->nd));
				return;
			}
			memcpy(lla, opt + 2, ETH_ALEN);
		}
		off += len;
	}
}

/*
 * Transport fields of an IPv4 or IPv6 packet whose L4 header starts at
 * @th.  A header too short for its fields leaves them zero.
 */
static void parse_l4(struct sk_buff *skb, struct rsw_flow_key *key,
		     unsigned int th)
{
	bool v6 = key->eth_type == htons(ETH_P_IPV6);
	const struct tcphdr *tcp;
	const u8 *l4;

	switch (key->ip_proto) {
	case IPPROTO_TCP:
		if (!pskb_may_pull(skb, th + sizeof(*tcp)))
			return;
		tcp = (const struct tcphdr *)(skb->data + th);
		if (tcp->doff * 4 < sizeof(*tcp) ||
		    skb->len < th + tcp->doff * 4)
			return;
		key->tp_src = tcp->source;
		key->tp_dst = tcp->dest;
		/* The 12 bits after the data offset: flags, reserved, NS. */
		key->tcp_flags = be16_at(skb, th + 12) & htons(0x0fff);
		return;
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		/* Both start with the two ports. */
		if (!pskb_may_pull(skb, th + (key->ip_proto == IPPROTO_UDP ?
					      sizeof(struct udphdr) :
					      sizeof(struct sctphdr))))
			return;
		key->tp_src = be16_at(skb, th);
		key->tp_dst = be16_at(skb, th + 2);
		return;
	case IPPROTO_ICMP:
		if (v6 || !pskb_may_pull(skb, th + sizeof(struct icmphdr)))
			return;
		break;
	case IPPROTO_ICMPV6:
		if (!v6 || !pskb_may_pull(skb, th + sizeof(struct icmp6hdr)))
			return;
		break;
	default:
		return;
	}

	/* ICMP and ICMPv6 both start with type and code. */
	l4 = skb->data + th;
	key->tp_src = htons(l4[0]);
	key->tp_dst = htons(l4[1]);
	if (v6 && l4[1] == 0 && (l4[0] == NDISC_NEIGHBOUR_SOLICITATION ||
				 l4[0] == NDISC_NEIGHBOUR_ADVERTISEMENT))
		parse_nd(skb, key, th);
}

/*
 * A network header cut short by the end of the packet is matched as an
 * empty one: no L3 or L4 fields, and no transport header past it.
 */
static int l3_truncated(struct sk_buff *skb)
{
	skb->transport_header = skb->network_header;
	return 0;
}

static int parse_ipv4(struct sk_buff *skb, struct rsw_flow_key *key,
		      unsigned int nh)
{
	const struct iphdr *iph;
	unsigned int ihl;

	switch (linearize_header(skb, nh + sizeof(*iph))) {
	case HDR_NOMEM:
		return -ENOMEM;
	case HDR_TRUNCATED:
		return l3_truncated(skb);
	case HDR_LINEAR:
		break;
	}
	iph = (const struct iphdr *)(skb->data + nh);
	ihl = iph->ihl * 4;
	/* Options the packet does not hold make the header truncated too. */
	if (ihl < sizeof(*iph) || skb->len < nh + ihl)
		return l3_truncated(skb);

	skb_set_transport_header(skb, nh + ihl);
	key->ipv4.src = iph->saddr;
	key->ipv4.dst = iph->daddr;
	key->ip_proto = iph->protocol;
	key->ip_tos = iph->tos;
	key->ip_ttl = iph->ttl;

	if (iph->frag_off & htons(IP_OFFSET)) {
		key->ip_frag = OVS_FRAG_TYPE_LATER;
		return 0;
	}
	if ((iph->frag_off & htons(IP_MF)) ||
	    (skb_shinfo(skb)->gso_type & SKB_GSO_UDP))
		key->ip_frag = OVS_FRAG_TYPE_FIRST;

	parse_l4(skb, key, nh + ihl);
	return 0;
}

/*
 * Which extension headers precede each one in RFC 2460's recommended
 * order; anything else set before it marks the chain out of sequence.
 */
static u16 eh_expected_before(u8 type)
{
	switch (type) {
	case NEXTHDR_ROUTING:
		return EH_HOP | EH_DEST;
	case NEXTHDR_FRAGMENT:
		return EH_HOP | EH_DEST | EH_ROUTER;
	case NEXTHDR_AUTH:
		return EH_HOP | EH_DEST | EH_ROUTER | EH_FRAG;
	}
	return 0;
}

static u16 eh_bit(u8 type)
{
	switch (type) {
	case NEXTHDR_ROUTING:
		return EH_ROUTER;
	case NEXTHDR_FRAGMENT:
		return EH_FRAG;
	case NEXTHDR_AUTH:
		return EH_AUTH;
	}
	return 0;
}

/*
 * The OVS_KEY_ATTR_IPV6_EXTHDRS summary of the chain after the IPv6
 * header at @nh: which headers appear, and whether any repeats or comes
 * out of order.  Every header is stepped over by its 8-octet length field,
 * as the in-tree datapath does.
 */
static u16 ipv6_exthdr_bits(const struct sk_buff *skb, unsigned int nh,
			    u8 next)
{
	unsigned int off = nh + sizeof(struct ipv6hdr);
	unsigned int ndest = 0;
	u16 bits = 0;

	while (ipv6_ext_hdr(next)) {
		struct ipv6_opt_hdr buf;
		const struct ipv6_opt_hdr *hdr;

		switch (next) {
		case NEXTHDR_NONE:
			return bits | EH_NONEXT;
		case NEXTHDR_HOP:
			if (bits & EH_HOP)
				bits |= EH_UNREP;
			/* Hop-by-hop options belong first and only first. */
			bits |= bits ? EH_UNSEQ : EH_HOP;
			break;
		case NEXTHDR_DEST:
			/* One may come early, a second late, a third never. */
			if (ndest == 0) {
				if (bits & ~(EH_HOP | EH_UNREP))
					bits |= EH_UNSEQ;
				bits |= EH_DEST;
			} else if (ndest == 1) {
				if (bits & ~(EH_HOP | EH_DEST | EH_ROUTER |
					     EH_FRAG | EH_AUTH | EH_ESP |
					     EH_UNREP))
					bits |= EH_UNSEQ;
			} else {
				bits |= EH_UNREP;
			}
			ndest++;
			break;
		default:
			if (bits & eh_bit(next))
				bits |= EH_UNREP;
			if ((bits & ~(eh_expected_before(next) | EH_UNREP)) ||
			    ndest >= 2)
				bits |= EH_UNSEQ;
			bits |= eh_bit(next);
			break;
		}

		hdr = skb_header_pointer(skb, off, sizeof(buf), &buf);
		if (!hdr)
			break;
		next = hdr->nexthdr;
		off += ipv6_optlen(hdr);
	}
	return bits;
}

static int parse_ipv6(struct sk_buff *skb, struct rsw_flow_key *key,
		      unsigned int nh)
{
	const struct ipv6hdr *ip6;
	unsigned short frag_off;
	unsigned int th = 0;
	int flags = 0;
	int proto;

	switch (linearize_header(skb, nh + sizeof(*ip6))) {
	case HDR_NOMEM:
		return -ENOMEM;
	case HDR_TRUNCATED:
		return l3_truncated(skb);
	case HDR_LINEAR:
		break;
	}

	ip6 = ipv6_hdr(skb);
	key->ipv6.src = ip6->saddr;
	key->ipv6.dst = ip6->daddr;
	key->ipv6.label = get_unaligned((const __be32 *)ip6) &
			  htonl(IPV6_FLOWINFO_FLOWLABEL);
	key->ip_tos = ipv6_get_dsfield(ip6);
	key->ip_ttl = ip6->hop_limit;
	key->ipv6_exthdrs = ipv6_exthdr_bits(skb, nh, ip6->nexthdr);
	key->ip_proto = NEXTHDR_NONE;

	proto = ipv6_find_hdr(skb, &th, -1, &frag_off, &flags);
	if (flags & IP6_FH_F_FRAG) {
		if (frag_off) {
			/* No L4 header in a later fragment. */
			key->ip_frag = OVS_FRAG_TYPE_LATER;
			key->ip_proto = NEXTHDR_FRAGMENT;
			return 0;
		}
		key->ip_frag = OVS_FRAG_TYPE_FIRST;
	}
	if (proto < 0) {
		/* A broken chain: keep the L3 fields, match no L4. */
		skb->transport_header = skb->network_header;
		return 0;
	}

	skb_set_transport_header(skb, th);
	key->ip_proto = proto;
	if (skb_shinfo(skb)->gso_type & SKB_GSO_UDP)
		key->ip_frag = OVS_FRAG_TYPE_FIRST;

	parse_l4(skb, key, th);
	return 0;
}

static int parse_packet(struct sk_buff *skb, struct rsw_flow_key *key)
{
	const struct ethhdr *eth;
	unsigned int nh;

	memset((u8 *)key + RSW_FLOW_KEY_PACKET_OFFSET, 0,
	       sizeof(*key) - RSW_FLOW_KEY_PACKET_OFFSET);
	skb_reset_mac_header(skb);

	/* Without a whole Ethernet header there is no frame to match. */
	switch (linearize_header(skb, ETH_HLEN)) {
	case HDR_NOMEM:
		return -ENOMEM;
	case HDR_TRUNCATED:
		return -EINVAL;
	case HDR_LINEAR:
		break;
	}
	eth = eth_hdr(skb);
	ether_addr_copy(key->eth_src, eth->h_source);
	ether_addr_copy(key->eth_dst, eth->h_dest);

	if (unlikely(parse_tags(skb, key, &nh)))
		return -ENOMEM;
	key->eth_type = parse_type(skb, &nh);
	if (unlikely(!key->eth_type))
		return -ENOMEM;

	/*
	 * With a second tag still in the frame, the protocol is that tag's
	 * TPID, which is what popping the outer tag later expects.
	 */
	if (key->cvlan.tci)
		skb->protocol = key->cvlan.tpid;
	else
		skb->protocol = key->eth_type;
	skb_set_network_header(skb, nh);
	skb_reset_mac_len(skb);

	switch (ntohs(key->eth_type)) {
	case ETH_P_IP:
		return parse_ipv4(skb, key, nh);
	case ETH_P_IPV6:
		return parse_ipv6(skb, key, nh);
	case ETH_P_ARP:
	case ETH_P_RARP:
		parse_arp(skb, key, nh);
		return 0;
	}
	return 0;
}

int rsw_flow_key_extract(struct sk_buff *skb, u32 in_port,
			 struct rsw_flow_key *key)
{
	key->recirc_id = 0;
	key->dp_hash = 0;
	key->in_port = in_port;
	key->priority = skb->priority;
	key->skb_mark = skb->mark;
	key->ct_state = 0;
	memset(key->pad0, 0, sizeof(key->pad0));
	return parse_packet(skb, key);
}

int rsw_flow_key_reparse(struct sk_buff *skb, struct rsw_flow_key *key)
{
	return parse_packet(skb, key);
}
