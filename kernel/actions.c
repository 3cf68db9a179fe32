// SPDX-License-Identifier: GPL-2.0
/*
 * Running validated action lists (see actions_fmt.h) on packets.
 *
 * The packet path and OVS_PACKET_CMD_EXECUTE call in as
 * rsw_actions_execute() says (actions.h), with the skb as flow key
 * extraction left it (flow_key.h): skb->data at the Ethernet header, the
 * network and transport headers, mac_len and skb->protocol set, any outer
 * VLAN tag in the skb's metadata.
 *
 * Recursion: recirculation and output to a port whose transmit re-enters
 * the datapath (an internal port looped back) nest calls to
 * rsw_actions_execute() on this CPU's stack, at most NEST_LIMIT deep; a
 * packet that would go deeper is dropped, which bounds stack use and
 * breaks port loops.  Recirculation does not count against that limit
 * once the nesting passes DEFER_DEPTH: the packet and its key wait in a
 * small per-CPU queue until the outermost execution has finished its own
 * list, then run from there.  So a chain of recirculations as long as
 * userspace likes costs bounded stack, as on the in-tree datapath; only a
 * single execution spawning more than DEFER_SLOTS of them loses the rest.
 * Key copies that sample, clone and recirc need come from a small per-CPU
 * pool rather than the stack; when it runs dry the copy is dropped.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/etherdevice.h>
#include <linux/icmpv6.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sctp.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "actions.h"
#include "actions_fmt.h"
#include "datapath.h"
#include "fault.h"
#include "redirect.h"
#include "upcall.h"
#include "vport.h"

/* Nested rsw_actions_execute() calls allowed on one CPU. */
#define NEST_LIMIT 5
/* Nesting beyond which a recirculation waits in the queue instead. */
#define DEFER_DEPTH (NEST_LIMIT - 2)
/* Recirculations one outermost execution may queue. */
#define DEFER_SLOTS 10
/* Flow key copies alive at once on one CPU. */
#define KEY_SLOTS 8

/* A recirculation waiting for the stack to unwind. */
struct deferred {
	struct sk_buff *skb;
	struct rsw_flow_key key;	/* recirc_id already set */
};

/*
 * Per-CPU execution state.  Only the packet path and packet EXECUTE touch
 * it, with bottom halves disabled, so nothing else runs on this CPU
 * between a reader and a writer of these fields.
 */
struct exec_cpu {
	unsigned int depth;		/* rsw_actions_execute() nesting */
	unsigned int slots_used;	/* @slots in use, as a stack */
	/* @deferred[head..tail) are waiting; both reset once it drains. */
	unsigned int deferred_head;
	unsigned int deferred_tail;
	struct rsw_flow_key slots[KEY_SLOTS];
	struct deferred deferred[DEFER_SLOTS];
};

static struct exec_cpu __percpu *exec_cpu;

/* The key a list runs with. */
struct act_key {
	struct rsw_flow_key *key;
	bool stale;	/* the packet's VLAN tags changed past what @key says */
	bool owned;	/* nothing reads @key once this list is done */
};

#define apply_mask(old, val, mask) ((val) | ((old) & ~(mask)))

static int run_list(struct rsw_datapath *dp, struct sk_buff *skb,
		    struct act_key *k, const struct nlattr *list, int len);

static struct rsw_flow_key *slot_get(const struct rsw_flow_key *from)
{
	struct exec_cpu *c = this_cpu_ptr(exec_cpu);
	struct rsw_flow_key *key;

	if (unlikely(c->slots_used == KEY_SLOTS))
		return NULL;
	key = &c->slots[c->slots_used++];
	*key = *from;
	return key;
}

static void slot_put(void)
{
	this_cpu_ptr(exec_cpu)->slots_used--;
}

/*
 * Apply a pending trunc: drop @cut bytes from the end, never the Ethernet
 * header.  Trimming a clone whose data sits in fragments allocates, so it
 * can fail.
 */
static int trim_for_trunc(struct sk_buff *skb, u32 cut)
{
	unsigned int keep = skb->len - min(cut, skb->len);

	if (rsw_should_fail(RSW_FAULT_TRUNC))
		return -ENOMEM;
	return pskb_trim(skb, max_t(unsigned int, keep, ETH_HLEN));
}

/*
 * Send @skb (consumed) out of port @port_no.  A packet that a trunc action
 * could not cut is dropped, not sent whole in its place: whoever asked for
 * the cut may rely on never receiving more.
 */
static void output_to_port(struct rsw_datapath *dp, struct sk_buff *skb,
			   u32 port_no)
{
	struct rsw_vport *vport = rsw_dp_port(dp, port_no);
	u32 cut = RSW_CB(skb)->cutlen;

	if (unlikely(!vport))
		goto drop;
	/* A redirected port's output leaves by its target (redirect.h). */
	vport = rsw_redirect_output(vport, skb);
	if (unlikely(!vport))
		return;
	if (unlikely(!netif_running(vport->dev) ||
		     !netif_carrier_ok(vport->dev)))
		goto drop;
	if (unlikely(cut) && unlikely(trim_for_trunc(skb, cut))) {
		DEV_STATS_INC(vport->dev, tx_dropped);
		goto drop;
	}
	rsw_vport_send(vport, skb, RSW_CB(skb)->mru);
	return;

drop:
	kfree_skb(skb);
}

/*
 * Does not consume @skb; a failed upcall is counted as lost by rsw_upcall.
 * @list and @len are the action list @attr sits in.
 */
static void to_userspace(struct rsw_datapath *dp, struct sk_buff *skb,
			 const struct rsw_flow_key *key,
			 const struct nlattr *attr,
			 const struct nlattr *list, int len)
{
	struct rsw_upcall_info info = {
		.cmd = OVS_PACKET_CMD_ACTION,
		.mru = RSW_CB(skb)->mru,
	};
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, attr, rem) {
		switch (nla_type(a)) {
		case OVS_USERSPACE_ATTR_PID:
			info.portid = nla_get_u32(a);
			break;
		case OVS_USERSPACE_ATTR_USERDATA:
			info.userdata = a;
			break;
		case OVS_USERSPACE_ATTR_ACTIONS:
			info.actions = list;
			info.actions_len = len;
			break;
		}
	}
	/* In per-CPU dispatch mode the upcall goes to this CPU's handler. */
	if (READ_ONCE(dp->user_features) & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
		info.portid = rsw_dp_upcall_portid(dp,
						   RSW_CB(skb)->input_vport,
						   skb);

	rsw_upcall(dp, skb, key, &info, RSW_CB(skb)->cutlen);
}

static void set_eth(struct sk_buff *skb, struct rsw_flow_key *key,
		    const struct ovs_key_ethernet *v,
		    const struct ovs_key_ethernet *m)
{
	struct ethhdr *eh = eth_hdr(skb);
	int i;

	skb_postpull_rcsum(skb, eh, 2 * ETH_ALEN);
	for (i = 0; i < ETH_ALEN; i++) {
		eh->h_dest[i] = apply_mask(eh->h_dest[i], v->eth_dst[i],
					   m->eth_dst[i]);
		eh->h_source[i] = apply_mask(eh->h_source[i], v->eth_src[i],
					     m->eth_src[i]);
	}
	skb_postpush_rcsum(skb, eh, 2 * ETH_ALEN);

	ether_addr_copy(key->eth_src, eh->h_source);
	ether_addr_copy(key->eth_dst, eh->h_dest);
}

/*
 * End of the L4 header whose checksum covers the IP addresses, or 0 when
 * there is none to update (other protocol, no room, no transport header).
 */
static unsigned int l4_csum_room(const struct sk_buff *skb, u8 proto)
{
	unsigned int end = skb_transport_offset(skb);

	if (!skb_transport_header_was_set(skb) ||
	    skb_transport_offset(skb) <= skb_network_offset(skb))
		return 0;

	switch (proto) {
	case IPPROTO_TCP:
		end += sizeof(struct tcphdr);
		break;
	case IPPROTO_UDP:
		end += sizeof(struct udphdr);
		break;
	case IPPROTO_ICMPV6:
		end += sizeof(struct icmp6hdr);
		break;
	default:
		return 0;
	}
	return skb->len >= end ? end : 0;
}

/* The L4 checksum field to fix for an address change, or NULL. */
static __sum16 *l4_csum_field(struct sk_buff *skb, u8 proto)
{
	struct udphdr *uh;

	switch (proto) {
	case IPPROTO_TCP:
		return &tcp_hdr(skb)->check;
	case IPPROTO_UDP:
		uh = udp_hdr(skb);
		/* A zero UDP checksum means none, unless offload fills it. */
		if (!uh->check && skb->ip_summed != CHECKSUM_PARTIAL)
			return NULL;
		return &uh->check;
	case IPPROTO_ICMPV6:
		return &icmp6_hdr(skb)->icmp6_cksum;
	}
	return NULL;
}

static void fix_udp_zero(u8 proto, __sum16 *check)
{
	if (proto == IPPROTO_UDP && !*check)
		*check = CSUM_MANGLED_0;
}

static void ipv4_readdr(struct sk_buff *skb, struct iphdr *iph,
			__be32 *field, __be32 to, bool l4)
{
	__sum16 *check = NULL;

	/* Later fragments carry no L4 header. */
	if (l4 && !(iph->frag_off & htons(IP_OFFSET)))
		check = l4_csum_field(skb, iph->protocol);
	if (check) {
		inet_proto_csum_replace4(check, skb, *field, to, true);
		fix_udp_zero(iph->protocol, check);
	}
	csum_replace4(&iph->check, *field, to);
	skb_clear_hash(skb);
	*field = to;
}

static int set_ipv4(struct sk_buff *skb, struct rsw_flow_key *key,
		    const struct ovs_key_ipv4 *v, const struct ovs_key_ipv4 *m)
{
	unsigned int room = skb_network_offset(skb) + sizeof(struct iphdr);
	unsigned int l4 = 0;
	struct iphdr *iph;
	__be32 addr;
	int err;

	/* Over IPv4 only TCP and UDP checksums cover the addresses. */
	if ((m->ipv4_src || m->ipv4_dst) && key->ip_proto != IPPROTO_ICMPV6) {
		l4 = l4_csum_room(skb, key->ip_proto);
		room = max(room, l4);
	}
	err = skb_ensure_writable(skb, room);
	if (unlikely(err))
		return err;
	iph = ip_hdr(skb);

	if (m->ipv4_src) {
		addr = apply_mask(iph->saddr, v->ipv4_src, m->ipv4_src);
		if (addr != iph->saddr) {
			ipv4_readdr(skb, iph, &iph->saddr, addr, l4);
			key->ipv4.src = addr;
		}
	}
	if (m->ipv4_dst) {
		addr = apply_mask(iph->daddr, v->ipv4_dst, m->ipv4_dst);
		if (addr != iph->daddr) {
			ipv4_readdr(skb, iph, &iph->daddr, addr, l4);
			key->ipv4.dst = addr;
		}
	}
	if (m->ipv4_tos) {
		/* The value never has bits outside the mask (validated). */
		ipv4_change_dsfield(iph, ~m->ipv4_tos, v->ipv4_tos);
		key->ip_tos = iph->tos;
	}
	if (m->ipv4_ttl) {
		u8 ttl = apply_mask(iph->ttl, v->ipv4_ttl, m->ipv4_ttl);

		csum_replace2(&iph->check, htons(iph->ttl << 8),
			      htons(ttl << 8));
		iph->ttl = ttl;
		key->ip_ttl = ttl;
	}
	return 0;
}

/* Rewrite one IPv6 address if the masked value differs; true if it did. */
static bool ipv6_readdr(struct sk_buff *skb, u8 proto, struct in6_addr *addr,
			const __be32 *val, const __be32 *mask, bool l4)
{
	__sum16 *check = NULL;
	struct in6_addr to;
	int i;

	for (i = 0; i < 4; i++)
		to.s6_addr32[i] = apply_mask(addr->s6_addr32[i], val[i],
					     mask[i]);
	if (ipv6_addr_equal(&to, addr))
		return false;

	if (l4)
		check = l4_csum_field(skb, proto);
	if (check) {
		inet_proto_csum_replace16(check, skb, addr->s6_addr32,
					  to.s6_addr32, true);
		fix_udp_zero(proto, check);
	}
	skb_clear_hash(skb);
	*addr = to;
	return true;
}

static bool any_bits(const __be32 *w)
{
	return w[0] || w[1] || w[2] || w[3];
}

static int set_ipv6(struct sk_buff *skb, struct rsw_flow_key *key,
		    const struct ovs_key_ipv6 *v, const struct ovs_key_ipv6 *m)
{
	unsigned int room = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	bool src = any_bits(m->ipv6_src), dst = any_bits(m->ipv6_dst);
	unsigned int l4 = 0;
	struct ipv6hdr *ip6;
	int err;

	if ((src || dst) && key->ip_frag != OVS_FRAG_TYPE_LATER) {
		l4 = l4_csum_room(skb, key->ip_proto);
		room = max(room, l4);
	}
	err = skb_ensure_writable(skb, room);
	if (unlikely(err))
		return err;
	ip6 = ipv6_hdr(skb);

	if (src && ipv6_readdr(skb, key->ip_proto, &ip6->saddr, v->ipv6_src,
			       m->ipv6_src, l4))
		key->ipv6.src = ip6->saddr;
	if (dst) {
		bool fix_l4 = l4;

		/*
		 * With a routing header still to visit, the pseudo-header
		 * holds the final destination, which this does not change.
		 */
		if (fix_l4 && ipv6_ext_hdr(ip6->nexthdr)) {
			int flags = IP6_FH_F_SKIP_RH;
			unsigned int off = 0;

			fix_l4 = ipv6_find_hdr(skb, &off, NEXTHDR_ROUTING, NULL,
					       &flags) != NEXTHDR_ROUTING;
		}
		if (ipv6_readdr(skb, key->ip_proto, &ip6->daddr, v->ipv6_dst,
				m->ipv6_dst, fix_l4))
			key->ipv6.dst = ip6->daddr;
	}
	if (m->ipv6_tclass || m->ipv6_label) {
		__be32 *word = (__be32 *)ip6;

		/* Version, traffic class and label share the first word. */
		skb_postpull_rcsum(skb, word, sizeof(*word));
		if (m->ipv6_tclass)
			ipv6_change_dsfield(ip6, ~m->ipv6_tclass,
					    v->ipv6_tclass);
		if (m->ipv6_label)
			*word = apply_mask(*word, v->ipv6_label,
					   m->ipv6_label);
		skb_postpush_rcsum(skb, word, sizeof(*word));
		key->ip_tos = ipv6_get_dsfield(ip6);
		key->ipv6.label = *word & htonl(IPV6_FLOWINFO_FLOWLABEL);
	}
	if (m->ipv6_hlimit) {
		/* Next header and hop limit make one 16-bit checksum word. */
		skb_postpull_rcsum(skb, &ip6->nexthdr, 2);
		ip6->hop_limit = apply_mask(ip6->hop_limit, v->ipv6_hlimit,
					    m->ipv6_hlimit);
		skb_postpush_rcsum(skb, &ip6->nexthdr, 2);
		key->ip_ttl = ip6->hop_limit;
	}
	return 0;
}

static int set_tcp(struct sk_buff *skb, struct rsw_flow_key *key,
		   const struct ovs_key_tcp *v, const struct ovs_key_tcp *m)
{
	struct tcphdr *th;
	__be16 port;
	int err;

	err = skb_ensure_writable(skb, skb_transport_offset(skb) +
				  sizeof(*th));
	if (unlikely(err))
		return err;
	th = tcp_hdr(skb);

	port = apply_mask(th->source, v->tcp_src, m->tcp_src);
	if (port != th->source) {
		inet_proto_csum_replace2(&th->check, skb, th->source, port,
					 false);
		th->source = port;
		key->tp_src = port;
	}
	port = apply_mask(th->dest, v->tcp_dst, m->tcp_dst);
	if (port != th->dest) {
		inet_proto_csum_replace2(&th->check, skb, th->dest, port,
					 false);
		th->dest = port;
		key->tp_dst = port;
	}
	skb_clear_hash(skb);
	return 0;
}

static int set_udp(struct sk_buff *skb, struct rsw_flow_key *key,
		   const struct ovs_key_udp *v, const struct ovs_key_udp *m)
{
	__be16 src, dst;
	struct udphdr *uh;
	int err;

	err = skb_ensure_writable(skb, skb_transport_offset(skb) +
				  sizeof(*uh));
	if (unlikely(err))
		return err;
	uh = udp_hdr(skb);
	src = apply_mask(uh->source, v->udp_src, m->udp_src);
	dst = apply_mask(uh->dest, v->udp_dst, m->udp_dst);

	/*
	 * A partial checksum does not cover the ports yet, and a zero one
	 * means none: only a full checksum needs fixing.
	 */
	if (uh->check && skb->ip_summed != CHECKSUM_PARTIAL) {
		if (src != uh->source)
			inet_proto_csum_replace2(&uh->check, skb, uh->source,
						 src, false);
		if (dst != uh->dest)
			inet_proto_csum_replace2(&uh->check, skb, uh->dest,
						 dst, false);
		if (!uh->check)
			uh->check = CSUM_MANGLED_0;
	}
	uh->source = src;
	uh->dest = dst;
	key->tp_src = src;
	key->tp_dst = dst;
	skb_clear_hash(skb);
	return 0;
}

static __wsum crc32c_update(const void *buf, int len, __wsum crc)
{
	return (__force __wsum)crc32c((__force u32)crc, buf, len);
}

static __wsum crc32c_combine(__wsum crc, __wsum crc2, int offset, int len)
{
	return (__force __wsum)__crc32c_le_combine((__force u32)crc,
						   (__force u32)crc2, len);
}

static const struct skb_checksum_ops crc32c_ops = {
	.update = crc32c_update,
	.combine = crc32c_combine,
};

/* SCTP's CRC32c from @off to the end, over a zeroed checksum field. */
static __le32 sctp_crc(const struct sk_buff *skb, unsigned int off)
{
	__wsum crc = ~__skb_checksum(skb, off, skb->len - off, ~(__wsum)0,
				     &crc32c_ops);

	return cpu_to_le32((__force u32)crc);
}

static int set_sctp(struct sk_buff *skb, struct rsw_flow_key *key,
		    const struct ovs_key_sctp *v, const struct ovs_key_sctp *m)
{
	unsigned int off = skb_transport_offset(skb);
	__le32 old_sum, old_good;
	struct sctphdr *sh;
	int err;

	err = skb_ensure_writable(skb, off + sizeof(*sh));
	if (unlikely(err))
		return err;
	sh = sctp_hdr(skb);

	old_sum = sh->checksum;
	sh->checksum = 0;
	old_good = sctp_crc(skb, off);
	sh->source = apply_mask(sh->source, v->sctp_src, m->sctp_src);
	sh->dest = apply_mask(sh->dest, v->sctp_dst, m->sctp_dst);
	/* A packet that arrived with a bad CRC leaves with a bad CRC. */
	sh->checksum = old_sum ^ old_good ^ sctp_crc(skb, off);

	key->tp_src = sh->source;
	key->tp_dst = sh->dest;
	skb_clear_hash(skb);
	return 0;
}

/* A set or masked set: one OVS_KEY_ATTR_* holding value, then mask. */
static int set_field(struct sk_buff *skb, struct rsw_flow_key *key,
		     const struct nlattr *a)
{
	const struct nlattr *ka = nla_data(a);
	const void *val = nla_data(ka);
	int err;

	switch (nla_type(ka)) {
	case OVS_KEY_ATTR_PRIORITY: {
		const u32 *p = val;

		skb->priority = apply_mask(skb->priority, p[0], p[1]);
		key->priority = skb->priority;
		return 0;
	}
	case OVS_KEY_ATTR_SKB_MARK: {
		const u32 *p = val;

		skb->mark = apply_mask(skb->mark, p[0], p[1]);
		key->skb_mark = skb->mark;
		return 0;
	}
	case OVS_KEY_ATTR_ETHERNET: {
		const struct ovs_key_ethernet *p = val;

		err = skb_ensure_writable(skb, ETH_HLEN);
		if (unlikely(err))
			return err;
		set_eth(skb, key, p, p + 1);
		return 0;
	}
	case OVS_KEY_ATTR_IPV4: {
		const struct ovs_key_ipv4 *p = val;

		return set_ipv4(skb, key, p, p + 1);
	}
	case OVS_KEY_ATTR_IPV6: {
		const struct ovs_key_ipv6 *p = val;

		return set_ipv6(skb, key, p, p + 1);
	}
	case OVS_KEY_ATTR_TCP: {
		const struct ovs_key_tcp *p = val;

		return set_tcp(skb, key, p, p + 1);
	}
	case OVS_KEY_ATTR_UDP: {
		const struct ovs_key_udp *p = val;

		return set_udp(skb, key, p, p + 1);
	}
	case OVS_KEY_ATTR_SCTP: {
		const struct ovs_key_sctp *p = val;

		return set_sctp(skb, key, p, p + 1);
	}
	}
	return -EINVAL;	/* not reached: validated */
}

/*
 * dec_ttl: take one off the TTL of an IPv4 packet or the hop limit of an
 * IPv6 one.  Returns 1, leaving the packet as it is, when that is 1 or 0
 * already: the packet has expired.  Other packets pass untouched, as do
 * the keys of all: only the TTL changes.
 */
static int dec_ttl(struct sk_buff *skb, struct rsw_flow_key *key)
{
	unsigned int nh = skb_network_offset(skb);
	struct ipv6hdr *ip6;
	struct iphdr *iph;
	int err;

	if (skb->protocol == htons(ETH_P_IP)) {
		err = skb_ensure_writable(skb, nh + sizeof(*iph));
		if (unlikely(err))
			return err;
		iph = ip_hdr(skb);
		if (iph->ttl <= 1)
			return 1;
		/*
		 * The header checksum absorbs the change, so the header still
		 * sums as before and a complete skb->csum stays right.
		 */
		csum_replace2(&iph->check, htons(iph->ttl << 8),
			      htons((iph->ttl - 1) << 8));
		key->ip_ttl = --iph->ttl;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		err = skb_ensure_writable(skb, nh + sizeof(*ip6));
		if (unlikely(err))
			return err;
		ip6 = ipv6_hdr(skb);
		if (ip6->hop_limit <= 1)
			return 1;
		/* No header checksum here: skb->csum must follow instead. */
		skb_postpull_rcsum(skb, &ip6->nexthdr, 2);
		key->ip_ttl = --ip6->hop_limit;
		skb_postpush_rcsum(skb, &ip6->nexthdr, 2);
	}
	return 0;
}

/*
 * Take the tag that follows the MAC addresses out of the frame.  skb->data
 * is at the Ethernet header; the protocol becomes the one the tag carried.
 */
static int pop_frame_tag(struct sk_buff *skb, u16 *tci)
{
	unsigned int room = VLAN_ETH_HLEN;
	struct vlan_hdr *vh;
	int err;

	/* vlan_set_encap_proto() peeks past the tag for 802.2 frames. */
	if (skb->len >= VLAN_ETH_HLEN + sizeof(u16))
		room += sizeof(u16);
	err = skb_ensure_writable(skb, room);
	if (unlikely(err))
		return err;

	skb_postpull_rcsum(skb, skb->data + 2 * ETH_ALEN, VLAN_HLEN);
	vh = (struct vlan_hdr *)(skb->data + ETH_HLEN);
	*tci = ntohs(vh->h_vlan_TCI);

	/*
	 * Slide the addresses over the tag.  That overwrites the TCI (read
	 * above) but not the encapsulated protocol, which becomes the
	 * frame's EtherType and which vlan_set_encap_proto() reads.
	 */
	memmove(skb->data + VLAN_HLEN, skb->data, 2 * ETH_ALEN);
	__skb_pull(skb, VLAN_HLEN);
	vlan_set_encap_proto(skb, vh);
	skb_reset_mac_header(skb);
	if (skb_network_offset(skb) < ETH_HLEN)
		skb_set_network_header(skb, ETH_HLEN);
	skb_reset_mac_len(skb);
	return 0;
}

static int pop_vlan(struct sk_buff *skb, struct act_key *k)
{
	struct rsw_flow_key *key = k->key;
	__be16 tpid;
	u16 tci;
	int err;

	if (skb_vlan_tag_present(skb)) {
		__vlan_hwaccel_clear_tag(skb);
	} else if (eth_type_vlan(skb->protocol)) {
		err = pop_frame_tag(skb, &tci);
		if (err)
			return err;
	} else {
		return 0;	/* untagged: nothing to pop */
	}

	/* Keep the layout key extraction gives: the outer tag in metadata. */
	if (eth_type_vlan(skb->protocol)) {
		tpid = skb->protocol;
		err = pop_frame_tag(skb, &tci);
		if (err)
			return err;
		__vlan_hwaccel_put_tag(skb, tpid, tci);
		/* There may be yet another tag the key never described. */
		k->stale = true;
	}
	key->vlan = key->cvlan;
	memset(&key->cvlan, 0, sizeof(key->cvlan));
	return 0;
}

static int push_vlan(struct sk_buff *skb, struct act_key *k,
		     const struct ovs_action_push_vlan *vlan)
{
	struct rsw_flow_key *key = k->key;
	int err;

	/* Moves a tag already in metadata into the frame first. */
	err = skb_vlan_push(skb, vlan->vlan_tpid,
			    ntohs(vlan->vlan_tci) & ~VLAN_CFI_MASK);
	if (err)
		return err;

	/* A third tag is more than the key can describe. */
	if (key->cvlan.tci)
		k->stale = true;
	key->cvlan = key->vlan;
	key->vlan.tpid = vlan->vlan_tpid;
	key->vlan.tci = vlan->vlan_tci;
	return 0;
}

static void do_hash(struct sk_buff *skb, struct rsw_flow_key *key,
		    const struct ovs_action_hash *act)
{
	u32 hash = jhash_1word(skb_get_hash(skb), act->hash_basis);

	/* 0 means "not computed" in the key. */
	key->dp_hash = hash ?: 1;
}

/*
 * Queue @skb to be looked up again under a copy of @key with @recirc_id;
 * consumes @skb.
 */
static void defer_recirc(struct rsw_datapath *dp, struct exec_cpu *c,
			 struct sk_buff *skb, const struct rsw_flow_key *key,
			 u32 recirc_id)
{
	struct deferred *d;

	if (unlikely(c->deferred_tail == DEFER_SLOTS)) {
		net_warn_ratelimited("%s: recirculation queue full, dropping recirculation %#x\n",
				     rsw_dp_name(dp), recirc_id);
		kfree_skb(skb);
		return;
	}
	d = &c->deferred[c->deferred_tail++];
	d->skb = skb;
	d->key = *key;
	d->key.recirc_id = recirc_id;
}

/*
 * Run the queued recirculations, from the outermost execution only.  An
 * entry stays in place while it runs, so the key it hands down remains
 * valid as later entries are queued behind it.
 */
static void run_deferred(struct exec_cpu *c)
{
	while (c->deferred_head < c->deferred_tail) {
		struct deferred *d = &c->deferred[c->deferred_head++];

		rsw_dp_process_packet(d->skb, &d->key);
	}
	c->deferred_head = 0;
	c->deferred_tail = 0;
}

/*
 * Recirculate: look the packet up again under @recirc_id, now or, deep in
 * a nest of executions, once the outermost is done.  Consumes @skb only
 * when @last; otherwise a clone goes round.
 */
static int recirc(struct rsw_datapath *dp, struct sk_buff *skb,
		  struct act_key *k, u32 recirc_id, bool last)
{
	struct exec_cpu *c = this_cpu_ptr(exec_cpu);
	struct rsw_flow_key *key = k->key;
	int err;

	if (k->stale) {
		err = rsw_flow_key_reparse(skb, key);
		if (err) {
			if (last)
				kfree_skb(skb);
			return err;
		}
		k->stale = false;
	}

	if (!last) {
		skb = skb_clone(skb, GFP_ATOMIC);
		if (!skb)
			return 0;	/* out of memory: skip, like a drop */
	}
	if (c->depth > DEFER_DEPTH) {
		defer_recirc(dp, c, skb, key, recirc_id);
		return 0;
	}
	if (!(last && k->owned)) {
		key = slot_get(key);
		if (unlikely(!key)) {
			net_warn_ratelimited("%s: out of key slots, dropping recirculation %#x\n",
					     rsw_dp_name(dp), recirc_id);
			kfree_skb(skb);
			return 0;
		}
	}

	key->recirc_id = recirc_id;
	rsw_dp_process_packet(skb, key);
	if (key != k->key)
		slot_put();
	return 0;
}

/*
 * Sample or clone: run the nested list on a clone of @skb, or on @skb
 * itself when @last (then always consumed).  The nested list gets its own
 * copy of the key if it would change it while the outer list still needs
 * it.
 */
static int run_nested(struct rsw_datapath *dp, struct sk_buff *skb,
		      struct act_key *k, const struct nlattr *a, bool last)
{
	const struct nlattr *arg_attr = nla_data(a);
	const struct rsw_act_arg *arg = nla_data(arg_attr);
	struct act_key inner = *k;
	const struct nlattr *list;
	int rem = nla_len(a);
	int err;

	list = nla_next(arg_attr, &rem);

	if (nla_type(a) == OVS_ACTION_ATTR_SAMPLE &&
	    arg->probability != U32_MAX &&
	    (!arg->probability || get_random_u32() > arg->probability)) {
		if (last)
			consume_skb(skb);
		return 0;
	}

	if (!last) {
		skb = skb_clone(skb, GFP_ATOMIC);
		if (!skb)
			return 0;	/* out of memory: skip, like a drop */
	}

	inner.owned = k->owned && last;
	if ((arg->flags & RSW_ACT_F_CHANGES_KEY) && !inner.owned) {
		inner.key = slot_get(k->key);
		if (unlikely(!inner.key)) {
			net_warn_ratelimited("%s: out of key slots, dropping nested actions\n",
					     rsw_dp_name(dp));
			kfree_skb(skb);
			return 0;
		}
		inner.owned = true;
	}

	err = run_list(dp, skb, &inner, list, rem);
	if (inner.key != k->key)
		slot_put();
	return err;
}

/*
 * An expired packet leaves by dec_ttl's own list, with the key as it is,
 * and the rest of the list holding the action is not run: like a last
 * action, it consumes @skb.  Lists holding dec_ttl change the key, so
 * @k is always this execution's to change (see run_nested()).
 */
static int run_expired(struct rsw_datapath *dp, struct sk_buff *skb,
		       struct act_key *k, const struct nlattr *a)
{
	const struct nlattr *arg_attr = nla_data(a);
	int rem = nla_len(a);
	const struct nlattr *list;

	list = nla_next(arg_attr, &rem);
	return run_list(dp, skb, k, list, rem);
}

/* Run @list on @skb and consume it, whatever happens. */
static int run_list(struct rsw_datapath *dp, struct sk_buff *skb,
		    struct act_key *k, const struct nlattr *list, int len)
{
	const struct nlattr *a;
	struct sk_buff *copy;
	int rem;

	nla_for_each_attr(a, list, len, rem) {
		bool last = nla_is_last(a, rem);
		int err = 0;

		switch (nla_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
			if (last) {
				output_to_port(dp, skb, nla_get_u32(a));
				return 0;
			}
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy)
				output_to_port(dp, copy, nla_get_u32(a));
			RSW_CB(skb)->cutlen = 0;
			break;

		case OVS_ACTION_ATTR_USERSPACE:
			to_userspace(dp, skb, k->key, a, list, len);
			RSW_CB(skb)->cutlen = 0;
			break;

		case OVS_ACTION_ATTR_TRUNC: {
			const struct ovs_action_trunc *t = nla_data(a);

			RSW_CB(skb)->cutlen = skb->len > t->max_len ?
					      skb->len - t->max_len : 0;
			break;
		}

		case OVS_ACTION_ATTR_HASH:
			do_hash(skb, k->key, nla_data(a));
			break;

		case OVS_ACTION_ATTR_PUSH_VLAN:
			err = push_vlan(skb, k, nla_data(a));
			break;

		case OVS_ACTION_ATTR_POP_VLAN:
			err = pop_vlan(skb, k);
			break;

		case OVS_ACTION_ATTR_SET_MASKED:
		case RSW_ACT_SET_WHOLE:
			err = set_field(skb, k->key, a);
			break;

		case OVS_ACTION_ATTR_RECIRC:
			err = recirc(dp, skb, k, nla_get_u32(a), last);
			if (last)
				return err;
			break;

		case OVS_ACTION_ATTR_SAMPLE:
		case OVS_ACTION_ATTR_CLONE:
			err = run_nested(dp, skb, k, a, last);
			if (last)
				return err;
			break;

		case OVS_ACTION_ATTR_DEC_TTL:
			err = dec_ttl(skb, k->key);
			if (err > 0)
				return run_expired(dp, skb, k, a);
			break;
		}

		if (unlikely(err)) {
			kfree_skb(skb);
			return err;
		}
	}

	consume_skb(skb);
	return 0;
}

int rsw_actions_execute(struct rsw_datapath *dp, struct sk_buff *skb,
			const struct rsw_flow_actions *acts,
			struct rsw_flow_key *key)
{
	struct exec_cpu *c = this_cpu_ptr(exec_cpu);
	struct act_key k = { .key = key, .owned = true };
	int err;

	lockdep_assert_in_softirq();

	if (unlikely(++c->depth > NEST_LIMIT)) {
		net_crit_ratelimited("%s: actions nested too deep (recirculation or port loop?), dropping\n",
				     rsw_dp_name(dp));
		kfree_skb(skb);
		err = -ENETDOWN;
	} else {
		RSW_CB(skb)->acts_origlen = acts->orig_len;
		err = run_list(dp, skb, &k, acts->actions, acts->len);
		if (c->depth == 1)
			run_deferred(c);
	}
	c->depth--;
	return err;
}

int rsw_actions_init(void)
{
	exec_cpu = alloc_percpu(struct exec_cpu);
	if (!exec_cpu)
		return -ENOMEM;
	return 0;
}

void rsw_actions_uninit(void)
{
	free_percpu(exec_cpu);
}
