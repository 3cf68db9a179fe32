/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_packet Generic Netlink family: packets userspace executes, and
 * the upcalls (upcall.c) that travel the other way on the same family.
 */
#ifndef _RSW_PACKET_GENL_H
#define _RSW_PACKET_GENL_H

#include <linux/bits.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>

/*
 * OVS_PACKET_ATTR_HASH, both ways: the skb hash in the low 32 bits, and
 * above them whether software computed it and whether it covers L4.  An
 * upcall reports the packet's hash so that the execute that sends it back
 * gives it the same one, and flows hashing it land in the same bucket.
 */
#define RSW_PACKET_HASH_SW_BIT BIT_ULL(32)
#define RSW_PACKET_HASH_L4_BIT BIT_ULL(33)

/* @skb's hash as the attribute carries it; 0 if it has none yet. */
static inline u64 rsw_packet_hash_to_attr(const struct sk_buff *skb)
{
	u64 flags = (skb->sw_hash ? RSW_PACKET_HASH_SW_BIT : 0) |
		    (skb->l4_hash ? RSW_PACKET_HASH_L4_BIT : 0);

	return flags | skb_get_hash_raw(skb);
}

/* Give @skb the hash an attribute carries, with its kind. */
static inline void rsw_packet_hash_from_attr(struct sk_buff *skb, u64 attr)
{
	__skb_set_hash(skb, lower_32_bits(attr),
		       !!(attr & RSW_PACKET_HASH_SW_BIT),
		       !!(attr & RSW_PACKET_HASH_L4_BIT));
}

/* Registered by rsw_genl_init() with the other families. */
extern struct genl_family rsw_packet_family;

#endif /* _RSW_PACKET_GENL_H */
