// SPDX-License-Identifier: GPL-2.0
/*
 * Flow keys and masks as OVS_KEY_ATTR_* attribute lists, both ways.
 *
 * Userspace probes features by what the kernel accepts and rebuilds its
 * view of a flow from what the kernel dumps, so acceptance and output both
 * follow the in-tree datapath of Linux 6.1 exactly; where a rule below
 * looks odd, that is why.  Every refusal is -EINVAL.
 *
 * Parsing happens in three steps.  First the list is gathered into a table
 * indexed by attribute type (gather_attrs()), checking lengths and
 * duplicates.  Then VLAN tags are peeled: each OVS_KEY_ATTR_ENCAP level is
 * gathered into the same table, replacing the tag's own ETHERTYPE and VLAN,
 * so that the innermost type and the L3/L4 attributes end up at the top
 * level (the table's bitmap then says what the key named, as
 * mask_fits_key() needs).  Last the table is written into a key or a mask
 * (attrs_to_key()).  A mask is parsed the same way with its all-zero
 * attributes treated as absent; with no mask attribute at all, the key's
 * own list is parsed again as a mask whose every byte reads 0xff.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/openvswitch.h>
#include <net/ndisc.h>
#include "datapath.h"
#include "flow_netlink.h"
#include "refuse.h"

/* A key without IN_PORT holds this, one past the highest port number. */
#define NO_IN_PORT RSW_MAX_PORTS

/*
 * Payload length of each attribute type a key may carry: ANY_LEN for
 * nested and variable ones, 0 for types never accepted from userspace
 * (UNSPEC, and PACKET_TYPE, ND_EXTENSIONS and TUNNEL_INFO, which are
 * userspace's or the kernel's own).  Attributes listed here but not
 * understood by attrs_to_key() (conntrack, MPLS, NSH) are refused there.
 */
#define ANY_LEN (-1)

static const s8 key_attr_len[OVS_KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_ENCAP]		= ANY_LEN,
	[OVS_KEY_ATTR_PRIORITY]		= sizeof(u32),
	[OVS_KEY_ATTR_IN_PORT]		= sizeof(u32),
	[OVS_KEY_ATTR_ETHERNET]		= sizeof(struct ovs_key_ethernet),
	[OVS_KEY_ATTR_VLAN]		= sizeof(__be16),
	[OVS_KEY_ATTR_ETHERTYPE]	= sizeof(__be16),
	[OVS_KEY_ATTR_IPV4]		= sizeof(struct ovs_key_ipv4),
	[OVS_KEY_ATTR_IPV6]		= sizeof(struct ovs_key_ipv6),
	[OVS_KEY_ATTR_TCP]		= sizeof(struct ovs_key_tcp),
	[OVS_KEY_ATTR_UDP]		= sizeof(struct ovs_key_udp),
	[OVS_KEY_ATTR_ICMP]		= sizeof(struct ovs_key_icmp),
	[OVS_KEY_ATTR_ICMPV6]		= sizeof(struct ovs_key_icmpv6),
	[OVS_KEY_ATTR_ARP]		= sizeof(struct ovs_key_arp),
	[OVS_KEY_ATTR_ND]		= sizeof(struct ovs_key_nd),
	[OVS_KEY_ATTR_SKB_MARK]		= sizeof(u32),
	[OVS_KEY_ATTR_TUNNEL]		= ANY_LEN,
	[OVS_KEY_ATTR_SCTP]		= sizeof(struct ovs_key_sctp),
	[OVS_KEY_ATTR_TCP_FLAGS]	= sizeof(__be16),
	[OVS_KEY_ATTR_DP_HASH]		= sizeof(u32),
	[OVS_KEY_ATTR_RECIRC_ID]	= sizeof(u32),
	[OVS_KEY_ATTR_MPLS]		= ANY_LEN,
	[OVS_KEY_ATTR_CT_STATE]		= sizeof(u32),
	[OVS_KEY_ATTR_CT_ZONE]		= sizeof(u16),
	[OVS_KEY_ATTR_CT_MARK]		= sizeof(u32),
	[OVS_KEY_ATTR_CT_LABELS]	= sizeof(struct ovs_key_ct_labels),
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4] =
		sizeof(struct ovs_key_ct_tuple_ipv4),
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6] =
		sizeof(struct ovs_key_ct_tuple_ipv6),
	[OVS_KEY_ATTR_NSH]		= ANY_LEN,
	[OVS_KEY_ATTR_IPV6_EXTHDRS]	= sizeof(struct ovs_key_ipv6_exthdrs),
};

/* What an exact-match mask reads for every fixed-length attribute. */
static const u8 all_ones[sizeof(struct ovs_key_ipv6)] __aligned(8) = {
	[0 ... sizeof(struct ovs_key_ipv6) - 1] = 0xff
};

/*
 * A key or mask list gathered by type.  @seen has a bit per type present;
 * a peeled VLAN level clears its bits but leaves its pointers, which the
 * mask side reads (the in-tree datapath does, and masks must parse alike).
 */
struct attrs {
	const struct nlattr *a[OVS_KEY_ATTR_MAX + 1];
	u64 seen;
	bool is_mask;
	bool ones;	/* every payload byte reads as 0xff */
};

/* Whether the list names @type (a mask's all-zero attribute does not). */
static bool attr_given(const struct attrs *s, int type)
{
	return s->seen & BIT_ULL(type);
}

/* The payload of @type, all ones in a mask implied by its key. */
static const void *attr_value(const struct attrs *s, int type)
{
	return s->ones ? all_ones : nla_data(s->a[type]);
}

static __be16 attr_be16(const struct attrs *s, int type)
{
	return *(const __be16 *)attr_value(s, type);
}

static u32 attr_u32(const struct attrs *s, int type)
{
	return *(const u32 *)attr_value(s, type);
}

static bool is_zero(const struct nlattr *nla)
{
	return !memchr_inv(nla_data(nla), 0, nla_len(nla));
}

static int gather_attrs(struct attrs *s, const struct nlattr *list, bool log)
{
	const struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, list, rem) {
		int type = nla_type(nla);

		if (type > OVS_KEY_ATTR_MAX || !key_attr_len[type])
			return rsw_refuse(log, -EINVAL,
					  "key: attribute %d unknown", type);
		if (attr_given(s, type))
			return rsw_refuse(log, -EINVAL,
					  "key: attribute %d repeated", type);
		if (key_attr_len[type] != ANY_LEN &&
		    nla_len(nla) != key_attr_len[type])
			return rsw_refuse(log, -EINVAL,
					  "key: attribute %d has length %d",
					  type, nla_len(nla));
		/* A mask's all-zero attribute matches nothing: as if absent. */
		if (s->is_mask && (s->ones ? !nla_len(nla) : is_zero(nla)))
			continue;
		s->seen |= BIT_ULL(type);
		s->a[type] = nla;
	}
	if (rem)
		return rsw_refuse(log, -EINVAL, "key: %d trailing bytes", rem);
	return 0;
}

static void forget_tag_attrs(struct attrs *s)
{
	s->seen &= ~(BIT_ULL(OVS_KEY_ATTR_ETHERTYPE) |
		     BIT_ULL(OVS_KEY_ATTR_VLAN) |
		     BIT_ULL(OVS_KEY_ATTR_ENCAP));
}

/*
 * One tag level of a key: ETHERTYPE names a VLAN TPID, VLAN holds the TCI
 * with VLAN_CFI_MASK, ENCAP the rest.  A zero TCI with an empty ENCAP is a
 * tag truncated in the packet.  Returns 1 when a tag was taken.
 */
static int key_tag(struct attrs *s, struct rsw_vlan_tag *tag, bool log)
{
	__be16 tci;
	int err;

	if (!attr_given(s, OVS_KEY_ATTR_ETHERNET) ||
	    !attr_given(s, OVS_KEY_ATTR_ETHERTYPE) ||
	    !eth_type_vlan(attr_be16(s, OVS_KEY_ATTR_ETHERTYPE)))
		return 0;
	if (!attr_given(s, OVS_KEY_ATTR_VLAN) ||
	    !attr_given(s, OVS_KEY_ATTR_ENCAP))
		return rsw_refuse(log, -EINVAL,
				  "key: VLAN without its TCI or encapsulation");

	tci = attr_be16(s, OVS_KEY_ATTR_VLAN);
	if (!(tci & htons(VLAN_CFI_MASK)) &&
	    (tci || nla_len(s->a[OVS_KEY_ATTR_ENCAP])))
		return rsw_refuse(log, -EINVAL,
				  "key: VLAN TCI %#x lacks the present bit",
				  ntohs(tci));

	tag->tpid = attr_be16(s, OVS_KEY_ATTR_ETHERTYPE);
	tag->tci = tci;
	forget_tag_attrs(s);
	err = gather_attrs(s, s->a[OVS_KEY_ATTR_ENCAP], log);
	return err ? err : 1;
}

/*
 * One tag level of a mask, for a key that has a tag there: the TPID must
 * be matched exactly and the TCI mask must include the present bit.  A
 * TCI mask left all zero matches the tag's presence only: Open vSwitch
 * 3.1 sends one for a megaflow that does not depend on the VID or PCP
 * (vlan-limit 0, an 802.1ad tag).  The in-tree module takes the TCI of
 * the key's last tag as the mask there, left over from parsing the key;
 * masking less is what userspace asked for.
 */
static int mask_tag(struct attrs *s, const struct rsw_vlan_tag *key_tag,
		    struct rsw_vlan_tag *tag, bool log)
{
	__be16 tpid = 0, tci;
	int err;

	if (!attr_given(s, OVS_KEY_ATTR_ENCAP))
		return 0;
	if (!(key_tag->tci & htons(VLAN_CFI_MASK)))
		return rsw_refuse(log, -EINVAL,
				  "key: VLAN mask for an untagged key");

	if (attr_given(s, OVS_KEY_ATTR_VLAN))
		tci = attr_be16(s, OVS_KEY_ATTR_VLAN);
	else
		tci = htons(VLAN_CFI_MASK);
	if (attr_given(s, OVS_KEY_ATTR_ETHERTYPE))
		tpid = attr_be16(s, OVS_KEY_ATTR_ETHERTYPE);
	if (tpid != htons(0xffff))
		return rsw_refuse(log, -EINVAL,
				  "key: VLAN TPID mask %#x not exact",
				  ntohs(tpid));
	if (!(tci & htons(VLAN_CFI_MASK)))
		return rsw_refuse(log, -EINVAL,
				  "key: VLAN TCI mask %#x lacks the present bit",
				  ntohs(tci));

	tag->tpid = tpid;
	tag->tci = tci;
	forget_tag_attrs(s);
	err = gather_attrs(s, s->a[OVS_KEY_ATTR_ENCAP], log);
	return err ? err : 1;
}

/* Peel up to two tag levels into @out; @key is the key already parsed. */
static int peel_tags(struct attrs *s, struct rsw_flow_key *out,
		     const struct rsw_flow_key *key, bool log)
{
	int err;

	err = s->is_mask ? mask_tag(s, &key->vlan, &out->vlan, log) :
			   key_tag(s, &out->vlan, log);
	if (err <= 0 || !(key->vlan.tci & htons(VLAN_CFI_MASK)))
		return err < 0 ? err : 0;

	err = s->is_mask ? mask_tag(s, &key->cvlan, &out->cvlan, log) :
			   key_tag(s, &out->cvlan, log);
	return err < 0 ? err : 0;
}

/* Payload lengths of tunnel attributes with a fixed one. */
static const s8 tun_attr_len[OVS_TUNNEL_KEY_ATTR_MAX + 1] = {
	[OVS_TUNNEL_KEY_ATTR_ID]		= sizeof(u64),
	[OVS_TUNNEL_KEY_ATTR_IPV4_SRC]		= sizeof(u32),
	[OVS_TUNNEL_KEY_ATTR_IPV4_DST]		= sizeof(u32),
	[OVS_TUNNEL_KEY_ATTR_TOS]		= 1,
	[OVS_TUNNEL_KEY_ATTR_TTL]		= 1,
	[OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT]	= 0,
	[OVS_TUNNEL_KEY_ATTR_CSUM]		= 0,
	[OVS_TUNNEL_KEY_ATTR_OAM]		= 0,
	[OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS]	= ANY_LEN,
	[OVS_TUNNEL_KEY_ATTR_TP_SRC]		= sizeof(u16),
	[OVS_TUNNEL_KEY_ATTR_TP_DST]		= sizeof(u16),
	[OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS]	= ANY_LEN,
	[OVS_TUNNEL_KEY_ATTR_IPV6_SRC]		= sizeof(struct in6_addr),
	[OVS_TUNNEL_KEY_ATTR_IPV6_DST]		= sizeof(struct in6_addr),
	[OVS_TUNNEL_KEY_ATTR_PAD]		= ANY_LEN,
	[OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS]	= ANY_LEN,
	[OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE]	= 0,
};

/*
 * A tunnel mask on a key without a tunnel.  Every packet here has zero
 * tunnel metadata and every key lacks a tunnel, so any tunnel mask selects
 * exactly the packets no mask would: it is checked for form as the in-tree
 * datapath checks it (userspace sends one whenever its rules looked at
 * tunnel fields) and otherwise ignored.  Geneve options must be empty, as
 * the key has none.
 */
static int tunnel_mask_ok(const struct attrs *s, bool log)
{
	bool v4 = false, v6 = false;
	const struct nlattr *nla;
	int opts = 0;
	int rem;

	nla_for_each_nested(nla, s->a[OVS_KEY_ATTR_TUNNEL], rem) {
		int type = nla_type(nla);

		if (type > OVS_TUNNEL_KEY_ATTR_MAX ||
		    (tun_attr_len[type] != ANY_LEN &&
		     nla_len(nla) != tun_attr_len[type]))
			return rsw_refuse(log, -EINVAL,
					  "key: tunnel attribute %d malformed",
					  type);
		switch (type) {
		case OVS_TUNNEL_KEY_ATTR_IPV4_SRC:
		case OVS_TUNNEL_KEY_ATTR_IPV4_DST:
		case OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE:
			v4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV6_SRC:
		case OVS_TUNNEL_KEY_ATTR_IPV6_DST:
			v6 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS:
			if (nla_len(nla))
				return rsw_refuse(log, -EINVAL,
						  "key: tunnel options mask");
			fallthrough;
		case OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS:
		case OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS:
			opts++;
			break;
		}
	}
	if (rem)
		return rsw_refuse(log, -EINVAL,
				  "key: %d trailing bytes in tunnel", rem);
	if ((v4 && v6) || opts > 1)
		return rsw_refuse(log, -EINVAL, "key: inconsistent tunnel mask");
	return 0;
}

/* The conntrack state bits there are (OVS_CS_F_*). */
#define CT_STATE_KNOWN 0xffU

/*
 * A conntrack state, in a key, a mask or a packet's metadata, names only
 * known bits: the in-tree module refuses others even where it ignores the
 * state.  0 or -EINVAL.
 */
static int ct_state_check(const struct attrs *s, bool log)
{
	u32 unknown;

	/* A mask implied by its key matches the known bits (conntrack_to_key()). */
	if (!attr_given(s, OVS_KEY_ATTR_CT_STATE) || s->ones)
		return 0;
	unknown = attr_u32(s, OVS_KEY_ATTR_CT_STATE) & ~CT_STATE_KNOWN;
	if (unknown)
		return rsw_refuse(log, -EINVAL,
				  "key: conntrack state bits %#x unknown",
				  unknown);
	return 0;
}

/*
 * Conntrack fields.  Without conntrack every packet is untracked: state,
 * zone, mark and labels all zero, and rsw_key_to_nlattrs() says so in
 * upcall keys as the in-tree module does.  Userspace hands such keys back
 * unchanged, so zero values are accepted, and a state mask is kept so that
 * "untracked" is matched as written; any other conntrack match is refused,
 * which is how ovs-vswitchd's probes learn it is unsupported.
 */
static int conntrack_to_key(const struct attrs *s, struct rsw_flow_key *out,
			    u64 *used, bool log)
{
	static const int types[] = {
		OVS_KEY_ATTR_CT_STATE, OVS_KEY_ATTR_CT_ZONE,
		OVS_KEY_ATTR_CT_MARK, OVS_KEY_ATTR_CT_LABELS,
	};
	int i, err;

	err = ct_state_check(s, log);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		const struct nlattr *a = s->a[types[i]];

		if (!attr_given(s, types[i]))
			continue;
		*used |= BIT_ULL(types[i]);
		if (s->is_mask && types[i] == OVS_KEY_ATTR_CT_STATE) {
			out->ct_state = attr_u32(s, types[i]) &
					(s->ones ? CT_STATE_KNOWN : ~0U);
			continue;
		}
		if (memchr_inv(nla_data(a), 0, nla_len(a)))
			return rsw_refuse(log, -EINVAL,
					  "key: conntrack match unsupported");
	}
	return 0;
}

/*
 * Metadata: what does not come from the packet's bytes.  @used collects
 * the types consumed.
 */
static int metadata_to_key(const struct attrs *s, struct rsw_flow_key *out,
			   u64 *used, bool log)
{
	if (attr_given(s, OVS_KEY_ATTR_DP_HASH))
		out->dp_hash = attr_u32(s, OVS_KEY_ATTR_DP_HASH);
	if (attr_given(s, OVS_KEY_ATTR_RECIRC_ID))
		out->recirc_id = attr_u32(s, OVS_KEY_ATTR_RECIRC_ID);
	if (attr_given(s, OVS_KEY_ATTR_PRIORITY))
		out->priority = attr_u32(s, OVS_KEY_ATTR_PRIORITY);
	if (attr_given(s, OVS_KEY_ATTR_SKB_MARK))
		out->skb_mark = attr_u32(s, OVS_KEY_ATTR_SKB_MARK);

	if (!attr_given(s, OVS_KEY_ATTR_IN_PORT)) {
		if (!s->is_mask)
			out->in_port = NO_IN_PORT;
	} else if (s->is_mask) {
		/* A port is matched exactly or not at all. */
		out->in_port = U32_MAX;
	} else {
		out->in_port = attr_u32(s, OVS_KEY_ATTR_IN_PORT);
		if (out->in_port >= NO_IN_PORT)
			return rsw_refuse(log, -EINVAL,
					  "key: port %u out of range",
					  out->in_port);
	}

	if (attr_given(s, OVS_KEY_ATTR_TUNNEL)) {
		int err;

		if (!s->is_mask)
			return rsw_refuse(log, -EINVAL,
					  "key: tunnel match unsupported");
		err = tunnel_mask_ok(s, log);
		if (err)
			return err;
	}

	*used |= BIT_ULL(OVS_KEY_ATTR_DP_HASH) | BIT_ULL(OVS_KEY_ATTR_RECIRC_ID) |
		 BIT_ULL(OVS_KEY_ATTR_PRIORITY) | BIT_ULL(OVS_KEY_ATTR_SKB_MARK) |
		 BIT_ULL(OVS_KEY_ATTR_IN_PORT) | BIT_ULL(OVS_KEY_ATTR_TUNNEL);
	return conntrack_to_key(s, out, used, log);
}

/* Ethernet addresses and the type after the tags. */
static int l2_to_key(const struct attrs *s, struct rsw_flow_key *out,
		     u64 *used, bool log)
{
	bool type = attr_given(s, OVS_KEY_ATTR_ETHERTYPE);

	if (attr_given(s, OVS_KEY_ATTR_ETHERNET)) {
		const struct ovs_key_ethernet *eth;

		eth = attr_value(s, OVS_KEY_ATTR_ETHERNET);
		ether_addr_copy(out->eth_src, eth->eth_src);
		ether_addr_copy(out->eth_dst, eth->eth_dst);
		/* Every tag was peeled already; one left is misplaced. */
		if (attr_given(s, OVS_KEY_ATTR_VLAN))
			return rsw_refuse(log, -EINVAL,
					  "key: VLAN outside its encapsulation");
		/* No type in a key means an 802.2 frame. */
		if (!type && !s->is_mask)
			out->eth_type = htons(ETH_P_802_2);
	} else if (!s->is_mask) {
		/* Packets without Ethernet headers are never ours. */
		return rsw_refuse(log, -EINVAL, "key: no Ethernet header");
	}

	if (type) {
		__be16 eth_type = attr_be16(s, OVS_KEY_ATTR_ETHERTYPE);

		/* The type is always matched exactly. */
		if (s->is_mask)
			eth_type = htons(0xffff);
		else if (!eth_proto_is_802_3(eth_type))
			return rsw_refuse(log, -EINVAL,
					  "key: Ethernet type %#x is a length",
					  ntohs(eth_type));
		out->eth_type = eth_type;
	}

	*used |= BIT_ULL(OVS_KEY_ATTR_ETHERNET) | BIT_ULL(OVS_KEY_ATTR_ETHERTYPE);
	return 0;
}

static int l3_to_key(const struct attrs *s, struct rsw_flow_key *out,
		     u64 *used, bool log)
{
	if (attr_given(s, OVS_KEY_ATTR_IPV4)) {
		const struct ovs_key_ipv4 *ip;

		ip = attr_value(s, OVS_KEY_ATTR_IPV4);

		if (!s->is_mask && ip->ipv4_frag > OVS_FRAG_TYPE_MAX)
			return rsw_refuse(log, -EINVAL,
					  "key: fragment type %u",
					  ip->ipv4_frag);
		out->ip_proto = ip->ipv4_proto;
		out->ip_tos = ip->ipv4_tos;
		out->ip_ttl = ip->ipv4_ttl;
		out->ip_frag = ip->ipv4_frag;
		out->ipv4.src = ip->ipv4_src;
		out->ipv4.dst = ip->ipv4_dst;
	}

	if (attr_given(s, OVS_KEY_ATTR_IPV6)) {
		const struct ovs_key_ipv6 *ip;

		ip = attr_value(s, OVS_KEY_ATTR_IPV6);

		if (!s->is_mask && ip->ipv6_frag > OVS_FRAG_TYPE_MAX)
			return rsw_refuse(log, -EINVAL,
					  "key: fragment type %u",
					  ip->ipv6_frag);
		if (!s->is_mask && (ip->ipv6_label & ~htonl(0xfffff)))
			return rsw_refuse(log, -EINVAL,
					  "key: flow label %#x",
					  ntohl(ip->ipv6_label));
		out->ipv6.label = ip->ipv6_label;
		out->ip_proto = ip->ipv6_proto;
		out->ip_tos = ip->ipv6_tclass;
		out->ip_ttl = ip->ipv6_hlimit;
		out->ip_frag = ip->ipv6_frag;
		memcpy(&out->ipv6.src, ip->ipv6_src, sizeof(out->ipv6.src));
		memcpy(&out->ipv6.dst, ip->ipv6_dst, sizeof(out->ipv6.dst));
	}

	if (attr_given(s, OVS_KEY_ATTR_IPV6_EXTHDRS)) {
		const struct ovs_key_ipv6_exthdrs *eh;

		eh = attr_value(s, OVS_KEY_ATTR_IPV6_EXTHDRS);
		out->ipv6_exthdrs = eh->hdrs;
	}

	if (attr_given(s, OVS_KEY_ATTR_ARP)) {
		const struct ovs_key_arp *arp = attr_value(s, OVS_KEY_ATTR_ARP);

		if (!s->is_mask && (arp->arp_op & htons(0xff00)))
			return rsw_refuse(log, -EINVAL,
					  "key: ARP opcode %u",
					  ntohs(arp->arp_op));
		out->arp.sip = arp->arp_sip;
		out->arp.tip = arp->arp_tip;
		out->ip_proto = (u8)ntohs(arp->arp_op);
		memcpy(out->arp.sha, arp->arp_sha, ETH_ALEN);
		memcpy(out->arp.tha, arp->arp_tha, ETH_ALEN);
	}

	*used |= BIT_ULL(OVS_KEY_ATTR_IPV4) | BIT_ULL(OVS_KEY_ATTR_IPV6) |
		 BIT_ULL(OVS_KEY_ATTR_IPV6_EXTHDRS) | BIT_ULL(OVS_KEY_ATTR_ARP);
	return 0;
}

/* TCP, UDP and SCTP payloads are all source port then destination port. */
static const int port_attrs[] = {
	OVS_KEY_ATTR_TCP, OVS_KEY_ATTR_UDP, OVS_KEY_ATTR_SCTP,
};

/* ICMP and ICMPv6 payloads are type then code. */
static const int icmp_attrs[] = {
	OVS_KEY_ATTR_ICMP, OVS_KEY_ATTR_ICMPV6,
};

static void l4_to_key(const struct attrs *s, struct rsw_flow_key *out,
		      u64 *used)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(port_attrs); i++) {
		const __be16 *ports;

		*used |= BIT_ULL(port_attrs[i]);
		if (!attr_given(s, port_attrs[i]))
			continue;
		ports = attr_value(s, port_attrs[i]);
		out->tp_src = ports[0];
		out->tp_dst = ports[1];
	}

	for (i = 0; i < ARRAY_SIZE(icmp_attrs); i++) {
		const u8 *icmp;

		*used |= BIT_ULL(icmp_attrs[i]);
		if (!attr_given(s, icmp_attrs[i]))
			continue;
		icmp = attr_value(s, icmp_attrs[i]);
		out->tp_src = htons(icmp[0]);
		out->tp_dst = htons(icmp[1]);
	}

	if (attr_given(s, OVS_KEY_ATTR_TCP_FLAGS))
		out->tcp_flags = attr_be16(s, OVS_KEY_ATTR_TCP_FLAGS);

	if (attr_given(s, OVS_KEY_ATTR_ND)) {
		const struct ovs_key_nd *nd = attr_value(s, OVS_KEY_ATTR_ND);

		memcpy(&out->nd.target, nd->nd_target, sizeof(out->nd.target));
		memcpy(out->nd.sll, nd->nd_sll, ETH_ALEN);
		memcpy(out->nd.tll, nd->nd_tll, ETH_ALEN);
	}
	*used |= BIT_ULL(OVS_KEY_ATTR_TCP_FLAGS) | BIT_ULL(OVS_KEY_ATTR_ND);
}

/*
 * Write the fields @s names into @out.  Anything left unexplained
 * (conntrack, MPLS, NSH, a stray ENCAP) is a feature we lack.
 */
static int attrs_to_key(const struct attrs *s, struct rsw_flow_key *out,
			bool log)
{
	u64 used = 0;
	int err;

	err = metadata_to_key(s, out, &used, log);
	if (!err)
		err = l2_to_key(s, out, &used, log);
	if (!err)
		err = l3_to_key(s, out, &used, log);
	if (err)
		return err;
	l4_to_key(s, out, &used);

	if (s->seen & ~used)
		return rsw_refuse(log, -EINVAL,
				  "key: unsupported attributes %#llx",
				  s->seen & ~used);
	return 0;
}

/*
 * The attributes a key's fields require, and those a mask may name: a mask
 * may name only what its key does, and an L3 or L4 attribute only when the
 * protocol below it is matched exactly.  Without a @mask (a key that only
 * names a flow) the requirements alone are checked: a key may then carry
 * attributes its protocols do not explain, as the in-tree module allows.
 * 0 or -EINVAL.
 */
static int mask_fits_key(const struct rsw_flow_key *key,
			 const struct rsw_flow_key *mask, u64 key_seen,
			 u64 mask_seen, bool log)
{
	const u64 gated = BIT_ULL(OVS_KEY_ATTR_IPV4) | BIT_ULL(OVS_KEY_ATTR_IPV6) |
		BIT_ULL(OVS_KEY_ATTR_TCP) | BIT_ULL(OVS_KEY_ATTR_TCP_FLAGS) |
		BIT_ULL(OVS_KEY_ATTR_UDP) | BIT_ULL(OVS_KEY_ATTR_SCTP) |
		BIT_ULL(OVS_KEY_ATTR_ICMP) | BIT_ULL(OVS_KEY_ATTR_ICMPV6) |
		BIT_ULL(OVS_KEY_ATTR_ARP) | BIT_ULL(OVS_KEY_ATTR_ND) |
		BIT_ULL(OVS_KEY_ATTR_MPLS) | BIT_ULL(OVS_KEY_ATTR_NSH) |
		BIT_ULL(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4) |
		BIT_ULL(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6);
	bool type_exact = mask && mask->eth_type == htons(0xffff);
	bool proto_exact = mask && mask->ip_proto == 0xff;
	u64 need = 0, l3 = 0, l4 = 0;
	u64 allowed;

	switch (ntohs(key->eth_type)) {
	case ETH_P_ARP:
	case ETH_P_RARP:
		l3 = BIT_ULL(OVS_KEY_ATTR_ARP);
		break;
	case ETH_P_MPLS_UC:
	case ETH_P_MPLS_MC:
		l3 = BIT_ULL(OVS_KEY_ATTR_MPLS);
		break;
	case ETH_P_NSH:
		l3 = BIT_ULL(OVS_KEY_ATTR_NSH);
		break;
	case ETH_P_IP:
		l3 = BIT_ULL(OVS_KEY_ATTR_IPV4);
		if (key->ip_proto == IPPROTO_ICMP)
			l4 = BIT_ULL(OVS_KEY_ATTR_ICMP);
		break;
	case ETH_P_IPV6:
		l3 = BIT_ULL(OVS_KEY_ATTR_IPV6);
		if (key->ip_proto == IPPROTO_ICMPV6)
			l4 = BIT_ULL(OVS_KEY_ATTR_ICMPV6);
		break;
	}

	if (l3 & (BIT_ULL(OVS_KEY_ATTR_IPV4) | BIT_ULL(OVS_KEY_ATTR_IPV6)) &&
	    key->ip_frag != OVS_FRAG_TYPE_LATER) {
		if (key->ip_proto == IPPROTO_TCP)
			l4 = BIT_ULL(OVS_KEY_ATTR_TCP) |
			     BIT_ULL(OVS_KEY_ATTR_TCP_FLAGS);
		else if (key->ip_proto == IPPROTO_UDP)
			l4 = BIT_ULL(OVS_KEY_ATTR_UDP);
		else if (key->ip_proto == IPPROTO_SCTP)
			l4 = BIT_ULL(OVS_KEY_ATTR_SCTP);
	} else {
		l4 = 0;
	}

	need = l3 | l4;
	allowed = (key_seen & ~gated) | BIT_ULL(OVS_KEY_ATTR_TUNNEL) |
		  BIT_ULL(OVS_KEY_ATTR_IN_PORT) |
		  BIT_ULL(OVS_KEY_ATTR_ETHERTYPE);
	if (type_exact)
		allowed |= l3;
	if (proto_exact)
		allowed |= l4 & ~BIT_ULL(OVS_KEY_ATTR_ND);

	/* Neighbour discovery fields need the ICMPv6 type matched exactly. */
	if ((l4 & BIT_ULL(OVS_KEY_ATTR_ICMPV6)) &&
	    (key->tp_src == htons(NDISC_NEIGHBOUR_SOLICITATION) ||
	     key->tp_src == htons(NDISC_NEIGHBOUR_ADVERTISEMENT))) {
		need |= BIT_ULL(OVS_KEY_ATTR_ND);
		if (mask && mask->tp_src == htons(0xff))
			allowed |= BIT_ULL(OVS_KEY_ATTR_ND);
	}

	if ((key_seen & need) != need)
		return rsw_refuse(log, -EINVAL,
				  "key: lacks the attributes %#llx its fields need",
				  need & ~key_seen);
	if (mask_seen & ~allowed)
		return rsw_refuse(log, -EINVAL,
				  "key: mask wider than its key: %#llx",
				  mask_seen & ~allowed);
	return 0;
}

int rsw_key_from_nlattrs(const struct nlattr *key_attr,
			 const struct nlattr *mask_attr,
			 struct rsw_flow_key *key, struct rsw_flow_key *mask,
			 bool log)
{
	struct attrs k = { }, m = { .is_mask = true };
	int err;

	memset(key, 0, sizeof(*key));

	err = gather_attrs(&k, key_attr, log);
	if (!err)
		err = peel_tags(&k, key, key, log);
	if (!err)
		err = attrs_to_key(&k, key, log);
	if (err)
		return err;
	if (!mask)
		return mask_fits_key(key, NULL, k.seen, 0, log);
	memset(mask, 0, sizeof(*mask));

	/* Without a mask every field the key names is matched exactly. */
	m.ones = !mask_attr;
	err = gather_attrs(&m, mask_attr ? mask_attr : key_attr, log);
	if (err)
		return err;

	/* Tag presence is always matched, so untagged flows match untagged
	 * packets only; a tagged key's mask says more below.
	 */
	mask->vlan.tci = htons(0xffff);
	mask->cvlan.tci = htons(0xffff);
	err = peel_tags(&m, mask, key, log);
	if (!err)
		err = attrs_to_key(&m, mask, log);
	if (err)
		return err;

	return mask_fits_key(key, mask, k.seen, m.seen, log);
}

int rsw_key_from_packet_nlattrs(const struct nlattr *key_attr,
				struct sk_buff *skb, struct rsw_flow_key *key,
				bool log)
{
	struct attrs s = { };
	int err;

	memset(key, 0, sizeof(*key));
	err = gather_attrs(&s, key_attr, log);
	if (err)
		return err;

	/*
	 * Only the metadata comes from the attributes, and conntrack state
	 * there is ignored as by a kernel without conntrack, once its bits
	 * are known ones (the in-tree module checks them).
	 */
	key->in_port = NO_IN_PORT;
	if (attr_given(&s, OVS_KEY_ATTR_TUNNEL))
		return rsw_refuse(log, -EINVAL,
				  "key: tunnel metadata unsupported");
	if (!attr_given(&s, OVS_KEY_ATTR_ETHERNET) &&
	    attr_given(&s, OVS_KEY_ATTR_ETHERTYPE))
		return rsw_refuse(log, -EINVAL,
				  "key: packet without Ethernet header");
	if (attr_given(&s, OVS_KEY_ATTR_IN_PORT)) {
		key->in_port = attr_u32(&s, OVS_KEY_ATTR_IN_PORT);
		if (key->in_port >= NO_IN_PORT)
			return rsw_refuse(log, -EINVAL,
					  "key: port %u out of range",
					  key->in_port);
	}
	err = ct_state_check(&s, log);
	if (err)
		return err;
	if (attr_given(&s, OVS_KEY_ATTR_DP_HASH))
		key->dp_hash = attr_u32(&s, OVS_KEY_ATTR_DP_HASH);
	if (attr_given(&s, OVS_KEY_ATTR_RECIRC_ID))
		key->recirc_id = attr_u32(&s, OVS_KEY_ATTR_RECIRC_ID);
	if (attr_given(&s, OVS_KEY_ATTR_PRIORITY))
		key->priority = attr_u32(&s, OVS_KEY_ATTR_PRIORITY);
	if (attr_given(&s, OVS_KEY_ATTR_SKB_MARK))
		key->skb_mark = attr_u32(&s, OVS_KEY_ATTR_SKB_MARK);

	return rsw_flow_key_reparse(skb, key);
}

/* Output: @key decides which attributes appear, @out gives their values. */
struct emit {
	struct sk_buff *skb;
	const struct rsw_flow_key *key;
	const struct rsw_flow_key *out;
	bool is_mask;
};

static int put_tag(const struct emit *e, const struct rsw_vlan_tag *tag,
		   struct nlattr **encap)
{
	if (nla_put_be16(e->skb, OVS_KEY_ATTR_ETHERTYPE,
			 e->is_mask ? htons(0xffff) : tag->tpid) ||
	    nla_put_be16(e->skb, OVS_KEY_ATTR_VLAN, tag->tci))
		return -EMSGSIZE;
	*encap = nla_nest_start_noflag(e->skb, OVS_KEY_ATTR_ENCAP);
	return *encap ? 0 : -EMSGSIZE;
}

/*
 * The conntrack attributes that every key the in-tree module of this
 * kernel emits carries, with their payload sizes: the state, then zone,
 * mark and labels if the kernel's conntrack is built with them.
 */
static const struct {
	u16 type;
	u16 len;
} ct_key_attrs[] = {
	{ OVS_KEY_ATTR_CT_STATE, sizeof(u32) },
#if IS_ENABLED(CONFIG_NF_CONNTRACK_ZONES)
	{ OVS_KEY_ATTR_CT_ZONE, sizeof(u16) },
#endif
#if IS_ENABLED(CONFIG_NF_CONNTRACK_MARK)
	{ OVS_KEY_ATTR_CT_MARK, sizeof(u32) },
#endif
#if IS_ENABLED(CONFIG_NF_CONNTRACK_LABELS)
	{ OVS_KEY_ATTR_CT_LABELS, sizeof(struct ovs_key_ct_labels) },
#endif
};

/*
 * Every packet here is untracked: zone 0, no mark, no labels, and a state
 * of 0 but in a mask, which keeps the state bits userspace matched on (see
 * conntrack_to_key()).
 */
static int put_conntrack(const struct emit *e)
{
	struct nlattr *nla;
	u32 state;
	int i;

	for (i = 0; i < ARRAY_SIZE(ct_key_attrs); i++) {
		nla = nla_reserve(e->skb, ct_key_attrs[i].type,
				  ct_key_attrs[i].len);
		if (!nla)
			return -EMSGSIZE;
		memset(nla_data(nla), 0, ct_key_attrs[i].len);
		if (ct_key_attrs[i].type == OVS_KEY_ATTR_CT_STATE) {
			state = e->out->ct_state;
			memcpy(nla_data(nla), &state, sizeof(state));
		}
	}
	return 0;
}

static int put_metadata(const struct emit *e)
{
	const struct rsw_flow_key *out = e->out;
	struct nlattr *tun;
	u32 port;

	if (nla_put_u32(e->skb, OVS_KEY_ATTR_RECIRC_ID, out->recirc_id) ||
	    nla_put_u32(e->skb, OVS_KEY_ATTR_DP_HASH, out->dp_hash) ||
	    nla_put_u32(e->skb, OVS_KEY_ATTR_PRIORITY, out->priority))
		return -EMSGSIZE;

	/* Masks carry an empty tunnel match: only its TTL, zero. */
	if (e->is_mask) {
		tun = nla_nest_start_noflag(e->skb, OVS_KEY_ATTR_TUNNEL);
		if (!tun || nla_put_u8(e->skb, OVS_TUNNEL_KEY_ATTR_TTL, 0))
			return -EMSGSIZE;
		nla_nest_end(e->skb, tun);
	}

	/*
	 * Ports are 16-bit numbers; a mask's upper half reads all ones.  A
	 * key without a port shows none, and its mask shows one only when
	 * exact.
	 */
	port = (u16)out->in_port;
	if (e->key->in_port == NO_IN_PORT) {
		if (e->is_mask && port == 0xffff &&
		    nla_put_u32(e->skb, OVS_KEY_ATTR_IN_PORT, U32_MAX))
			return -EMSGSIZE;
	} else if (nla_put_u32(e->skb, OVS_KEY_ATTR_IN_PORT,
			       e->is_mask ? 0xffff0000 | port : port)) {
		return -EMSGSIZE;
	}

	if (nla_put_u32(e->skb, OVS_KEY_ATTR_SKB_MARK, out->skb_mark))
		return -EMSGSIZE;
	return put_conntrack(e);
}

static int put_l3(const struct emit *e)
{
	const struct rsw_flow_key *out = e->out;
	struct nlattr *nla;

	switch (ntohs(e->key->eth_type)) {
	case ETH_P_IP: {
		struct ovs_key_ipv4 *ip;

		nla = nla_reserve(e->skb, OVS_KEY_ATTR_IPV4, sizeof(*ip));
		if (!nla)
			return -EMSGSIZE;
		ip = nla_data(nla);
		ip->ipv4_src = out->ipv4.src;
		ip->ipv4_dst = out->ipv4.dst;
		ip->ipv4_proto = out->ip_proto;
		ip->ipv4_tos = out->ip_tos;
		ip->ipv4_ttl = out->ip_ttl;
		ip->ipv4_frag = out->ip_frag;
		return 0;
	}
	case ETH_P_IPV6: {
		struct ovs_key_ipv6_exthdrs eh = { .hdrs = out->ipv6_exthdrs };
		struct ovs_key_ipv6 *ip;

		nla = nla_reserve(e->skb, OVS_KEY_ATTR_IPV6, sizeof(*ip));
		if (!nla)
			return -EMSGSIZE;
		ip = nla_data(nla);
		memcpy(ip->ipv6_src, &out->ipv6.src, sizeof(ip->ipv6_src));
		memcpy(ip->ipv6_dst, &out->ipv6.dst, sizeof(ip->ipv6_dst));
		ip->ipv6_label = out->ipv6.label;
		ip->ipv6_proto = out->ip_proto;
		ip->ipv6_tclass = out->ip_tos;
		ip->ipv6_hlimit = out->ip_ttl;
		ip->ipv6_frag = out->ip_frag;
		return nla_put(e->skb, OVS_KEY_ATTR_IPV6_EXTHDRS, sizeof(eh),
			       &eh);
	}
	case ETH_P_ARP:
	case ETH_P_RARP: {
		struct ovs_key_arp arp = {
			.arp_sip = out->arp.sip,
			.arp_tip = out->arp.tip,
			.arp_op = htons(out->ip_proto),
		};

		memcpy(arp.arp_sha, out->arp.sha, ETH_ALEN);
		memcpy(arp.arp_tha, out->arp.tha, ETH_ALEN);
		return nla_put(e->skb, OVS_KEY_ATTR_ARP, sizeof(arp), &arp);
	}
	}
	return 0;
}

static int put_ports(const struct emit *e, int type)
{
	__be16 ports[2] = { e->out->tp_src, e->out->tp_dst };

	return nla_put(e->skb, type, sizeof(ports), ports);
}

static int put_icmp(const struct emit *e, int type)
{
	u8 tc[2] = { ntohs(e->out->tp_src), ntohs(e->out->tp_dst) };

	return nla_put(e->skb, type, sizeof(tc), tc);
}

static int put_l4(const struct emit *e)
{
	const struct rsw_flow_key *key = e->key;
	bool v6 = key->eth_type == htons(ETH_P_IPV6);
	struct ovs_key_nd nd;

	if ((!v6 && key->eth_type != htons(ETH_P_IP)) ||
	    key->ip_frag == OVS_FRAG_TYPE_LATER)
		return 0;

	switch (key->ip_proto) {
	case IPPROTO_TCP:
		if (put_ports(e, OVS_KEY_ATTR_TCP))
			return -EMSGSIZE;
		return nla_put_be16(e->skb, OVS_KEY_ATTR_TCP_FLAGS,
				    e->out->tcp_flags);
	case IPPROTO_UDP:
		return put_ports(e, OVS_KEY_ATTR_UDP);
	case IPPROTO_SCTP:
		return put_ports(e, OVS_KEY_ATTR_SCTP);
	case IPPROTO_ICMP:
		return v6 ? 0 : put_icmp(e, OVS_KEY_ATTR_ICMP);
	case IPPROTO_ICMPV6:
		if (!v6)
			return 0;
		if (put_icmp(e, OVS_KEY_ATTR_ICMPV6))
			return -EMSGSIZE;
		if (key->tp_src != htons(NDISC_NEIGHBOUR_SOLICITATION) &&
		    key->tp_src != htons(NDISC_NEIGHBOUR_ADVERTISEMENT))
			return 0;
		memcpy(nd.nd_target, &e->out->nd.target, sizeof(nd.nd_target));
		memcpy(nd.nd_sll, e->out->nd.sll, ETH_ALEN);
		memcpy(nd.nd_tll, e->out->nd.tll, ETH_ALEN);
		return nla_put(e->skb, OVS_KEY_ATTR_ND, sizeof(nd), &nd);
	}
	return 0;
}

/*
 * Ethernet, then each tag as ETHERTYPE (the TPID) + VLAN + ENCAP holding
 * the rest, then the type and L3/L4.  A tag truncated in the packet (zero
 * TCI) gets an empty ENCAP; an 802.2 frame shows no type in a key, and in
 * a mask only a non-zero one.  Returns with up to two ENCAPs open.
 */
static int put_packet(const struct emit *e, struct nlattr **encap)
{
	const struct rsw_flow_key *key = e->key;
	bool inner_vlan = eth_type_vlan(key->eth_type);
	struct ovs_key_ethernet eth;
	int err;

	ether_addr_copy(eth.eth_src, e->out->eth_src);
	ether_addr_copy(eth.eth_dst, e->out->eth_dst);
	if (nla_put(e->skb, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth))
		return -EMSGSIZE;

	if (key->vlan.tci || inner_vlan) {
		err = put_tag(e, &e->out->vlan, &encap[0]);
		if (err || !key->vlan.tci)
			return err;
		if (key->cvlan.tci || inner_vlan) {
			err = put_tag(e, &e->out->cvlan, &encap[1]);
			if (err || !key->cvlan.tci)
				return err;
		}
	}

	if (key->eth_type == htons(ETH_P_802_2)) {
		if (e->is_mask && e->out->eth_type &&
		    nla_put_be16(e->skb, OVS_KEY_ATTR_ETHERTYPE,
				 e->out->eth_type))
			return -EMSGSIZE;
		return 0;
	}

	if (nla_put_be16(e->skb, OVS_KEY_ATTR_ETHERTYPE, e->out->eth_type))
		return -EMSGSIZE;
	/* A third tag: nothing more is known of the packet. */
	if (inner_vlan)
		return 0;

	err = put_l3(e);
	return err ? err : put_l4(e);
}

int rsw_key_to_nlattrs(struct sk_buff *skb, int attrtype,
		       const struct rsw_flow_key *key,
		       const struct rsw_flow_key *output)
{
	const struct emit e = {
		.skb = skb,
		.key = key,
		.out = output,
		.is_mask = attrtype == OVS_FLOW_ATTR_MASK,
	};
	struct nlattr *encap[2] = { };
	struct nlattr *nest;
	int err;

	nest = nla_nest_start_noflag(skb, attrtype);
	if (!nest)
		return -EMSGSIZE;

	err = put_metadata(&e);
	if (!err)
		err = put_packet(&e, encap);
	if (err) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}

	if (encap[1])
		nla_nest_end(skb, encap[1]);
	if (encap[0])
		nla_nest_end(skb, encap[0]);
	nla_nest_end(skb, nest);
	return 0;
}

size_t rsw_key_nlattrs_size(void)
{
	/* The largest key: double-tagged IPv6 neighbour discovery. */
	return nla_total_size(nla_total_size(4)		/* RECIRC_ID */
		+ nla_total_size(4)			/* DP_HASH */
		+ nla_total_size(4)			/* PRIORITY */
		+ nla_total_size(nla_total_size(1))	/* TUNNEL { TTL } */
		+ nla_total_size(4)			/* IN_PORT */
		+ nla_total_size(4)			/* SKB_MARK */
		+ nla_total_size(4)			/* CT_STATE */
		+ nla_total_size(2)			/* CT_ZONE */
		+ nla_total_size(4)			/* CT_MARK */
		+ nla_total_size(sizeof(struct ovs_key_ct_labels))
		+ nla_total_size(sizeof(struct ovs_key_ethernet))
		+ 2 * (nla_total_size(2)		/* ETHERTYPE (TPID) */
		       + nla_total_size(2)		/* VLAN */
		       + nla_total_size(0))		/* ENCAP */
		+ nla_total_size(2)			/* ETHERTYPE */
		+ nla_total_size(sizeof(struct ovs_key_ipv6))
		+ nla_total_size(sizeof(struct ovs_key_ipv6_exthdrs))
		+ nla_total_size(sizeof(struct ovs_key_icmpv6))
		+ nla_total_size(sizeof(struct ovs_key_nd)));
}

int rsw_ufid_from_nlattr(const struct nlattr *attr, struct rsw_flow_id *id,
			 bool log)
{
	id->len = 0;
	if (!attr)
		return 0;
	if (nla_len(attr) < 1)
		return rsw_refuse(log, -EINVAL, "key: empty UFID");
	/*
	 * A longer one names no flow: the UFID is refused but not the
	 * request, and the flow is known by its key, as in the in-tree
	 * datapath.
	 */
	if (nla_len(attr) > RSW_UFID_MAX_BYTES)
		return rsw_refuse(log, 0,
				  "key: UFID of %d bytes ignored, the flow goes by its key",
				  nla_len(attr));
	rsw_flow_id_set(id, nla_data(attr), nla_len(attr));
	return 0;
}

int rsw_ufid_to_nlattr(struct sk_buff *skb, const struct rsw_flow_id *id)
{
	if (!id->len)
		return 0;
	return nla_put(skb, OVS_FLOW_ATTR_UFID, id->len, id->bytes);
}

u32 rsw_ufid_flags(const struct nlattr *attr)
{
	return attr ? nla_get_u32(attr) : 0;
}
