/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key: every packet field and piece of metadata a flow can match
 * on, extracted from a packet or parsed from OVS_KEY_ATTR_* attributes.
 */
#ifndef _RSW_FLOW_KEY_H
#define _RSW_FLOW_KEY_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/types.h>

/*
 * A VLAN tag as the key sees it.  @tci carries VLAN_CFI_MASK (0x1000) when
 * the tag is present, matching the OVS_KEY_ATTR_VLAN convention, so that an
 * all-zero tag means "no tag" and a mask can match presence alone.
 */
struct rsw_vlan_tag {
	__be16 tpid;
	__be16 tci;
};

/*
 * Lookups compare (as longs) and hash (as u32 words) only the long-aligned
 * byte range that holds every bit a mask sets, so the layout is part of the
 * lookup contract: padding is always zero, and fields are ordered from the
 * most often matched to the least, so that a mask's range ends early.  It
 * nearly always starts at the first byte: ovs-vswitchd matches recirc_id
 * in every flow, and the metadata comes first.
 */
struct rsw_flow_key {
	/* Metadata, not read from the packet. */
	u32 recirc_id;		/* OVS_KEY_ATTR_RECIRC_ID */
	u32 dp_hash;		/* OVS_KEY_ATTR_DP_HASH, 0 = not computed */
	u32 in_port;		/* OVS_KEY_ATTR_IN_PORT, datapath port number */
	u32 priority;		/* OVS_KEY_ATTR_PRIORITY, skb->priority */
	u32 skb_mark;		/* OVS_KEY_ATTR_SKB_MARK, skb->mark */
	/* Conntrack state: always 0 (untracked) in packets, as this datapath
	 * has no conntrack; kept so a mask can match "untracked" exactly as
	 * userspace wrote it.
	 */
	u8 ct_state;		/* OVS_KEY_ATTR_CT_STATE, OVS_CS_F_* */
	u8 pad0[3];

	/* L2.  @eth_type is the innermost Ethernet type after the VLAN tags,
	 * or htons(ETH_P_802_2) for an 802.2/802.3 frame without SNAP.
	 */
	u8 eth_src[ETH_ALEN];
	u8 eth_dst[ETH_ALEN];
	struct rsw_vlan_tag vlan;	/* outer tag (802.1Q or 802.1ad) */
	struct rsw_vlan_tag cvlan;	/* inner tag, only with an outer one */
	__be16 eth_type;

	/* L3: IPv4, IPv6 or ARP, selected by @eth_type. */
	u8 ip_proto;		/* IP protocol; low 8 bits of the ARP opcode */
	u8 ip_tos;		/* DSCP+ECN, or the IPv6 traffic class */
	u8 ip_ttl;		/* TTL or hop limit */
	u8 ip_frag;		/* OVS_FRAG_TYPE_* */
	u16 ipv6_exthdrs;	/* OVS_KEY_ATTR_IPV6_EXTHDRS bits */

	/* L4, ahead of the addresses: an IPv4 megaflow's mask then ends at
	 * the IPv4 destination, and its probes hash and compare 9 longs
	 * rather than 12 (the union is as long as IPv6 needs).  For ICMP and
	 * ICMPv6, @tp_src holds htons(type) and @tp_dst htons(code), so one
	 * pair of fields serves every protocol.
	 */
	__be16 tp_src;
	__be16 tp_dst;
	__be16 tcp_flags;	/* TCP flags of this packet, 12 bits */
	u16 pad1;

	union {
		struct {
			__be32 src;
			__be32 dst;
		} ipv4;
		struct {
			__be32 sip;
			__be32 tip;
			u8 sha[ETH_ALEN];
			u8 tha[ETH_ALEN];
		} arp;
		struct {
			struct in6_addr src;
			struct in6_addr dst;
			__be32 label;	/* 20-bit flow label */
		} ipv6;
	};

	/* IPv6 neighbour discovery, only for ICMPv6 NS/NA. */
	struct {
		struct in6_addr target;
		u8 sll[ETH_ALEN];
		u8 tll[ETH_ALEN];
	} nd;
} __aligned(sizeof(long));

#define RSW_FLOW_KEY_LONGS (sizeof(struct rsw_flow_key) / sizeof(long))

/* Packet fields start here; everything before is metadata. */
#define RSW_FLOW_KEY_PACKET_OFFSET offsetof(struct rsw_flow_key, eth_src)

/**
 * rsw_flow_key_extract - build the key of a packet received on a port
 * @skb: the packet, skb->data at the Ethernet header
 * @in_port: datapath port number it arrived on
 * @key: filled in completely, padding zeroed
 *
 * Takes priority and mark from @skb, zeroes recirc_id and dp_hash.  May
 * pull headers into the linear area, never frees @skb.  As in the in-tree
 * datapath, an outer VLAN tag carried in the frame is moved into the skb's
 * metadata (so a second tag, if any, follows the MAC addresses), and on
 * return skb->data is at the Ethernet header, the network header follows
 * the L2 headers, the transport header follows the IP headers (or equals
 * the network header when they are truncated), and skb->protocol and
 * mac_len match.  Returns 0, or -EINVAL for a frame shorter than an
 * Ethernet header or -ENOMEM when pulling fails (the caller drops it).
 */
int rsw_flow_key_extract(struct sk_buff *skb, u32 in_port,
			 struct rsw_flow_key *key);

/**
 * rsw_flow_key_reparse - re-read the packet fields of @key from @skb
 *
 * For recirculation after actions changed the packet: metadata in @key
 * (recirc_id, dp_hash, in_port, priority, mark) is kept.
 */
int rsw_flow_key_reparse(struct sk_buff *skb, struct rsw_flow_key *key);

#endif /* _RSW_FLOW_KEY_H */
