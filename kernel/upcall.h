/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Upcalls: handing packets to userspace as OVS_PACKET_CMD_MISS or
 * OVS_PACKET_CMD_ACTION messages on the ovs_packet family.
 */
#ifndef _RSW_UPCALL_H
#define _RSW_UPCALL_H

#include <linux/skbuff.h>
#include "flow_key.h"

struct rsw_datapath;

struct rsw_upcall_info {
	u8 cmd;				/* OVS_PACKET_CMD_MISS or _ACTION */
	u32 portid;			/* netlink PID to deliver to */
	u16 mru;			/* OVS_PACKET_ATTR_MRU if non-zero */
	const struct nlattr *userdata;	/* OVS_USERSPACE_ATTR_USERDATA */
	/* With OVS_USERSPACE_ATTR_ACTIONS: the action list the userspace
	 * action belongs to (the flow's, or a sample's or clone's nested
	 * one), in internal form, to include.
	 */
	const struct nlattr *actions;
	int actions_len;
};

/**
 * rsw_upcall - send @skb to userspace, under RCU
 * @cutlen: bytes to trim from the end first (trunc action), or 0
 *
 * Does not consume @skb, nor change its data.  A VLAN tag held in the
 * skb's metadata is written back into the frame the message carries, and
 * a GSO packet goes up as its segments.  Packet path, BH disabled.  On
 * failure the datapath's lost counter is incremented and a negative errno
 * returned.
 */
int rsw_upcall(struct rsw_datapath *dp, struct sk_buff *skb,
	       const struct rsw_flow_key *key,
	       const struct rsw_upcall_info *info, u32 cutlen);

#endif /* _RSW_UPCALL_H */
