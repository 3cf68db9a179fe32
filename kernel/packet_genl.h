/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_packet Generic Netlink family: packets userspace executes, and
 * the upcalls (upcall.c) that travel the other way on the same family.
 */
#ifndef _RSW_PACKET_GENL_H
#define _RSW_PACKET_GENL_H

#include <linux/bits.h>
#include <net/genetlink.h>

/*
 * OVS_PACKET_ATTR_HASH, both ways: the skb hash in the low 32 bits, and
 * above them whether software computed it and whether it covers L4.
 */
#define RSW_PACKET_HASH_SW_BIT BIT_ULL(32)
#define RSW_PACKET_HASH_L4_BIT BIT_ULL(33)

/* Registered by rsw_genl_init() with the other families. */
extern struct genl_family rsw_packet_family;

#endif /* _RSW_PACKET_GENL_H */
