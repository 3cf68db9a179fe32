/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_vport Generic Netlink family: what other files need of it.
 */
#ifndef _RSW_VPORT_GENL_H
#define _RSW_VPORT_GENL_H

#include <linux/skbuff.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

struct rsw_vport;

/*
 * Registered by rsw_genl_init() with the other families; its multicast
 * group announces every port change, the device notifier's included.
 */
extern struct genl_family rsw_vport_family;

/**
 * rsw_vport_cmd_build_info - a complete ovs_vport message about @vport
 * @net: namespace of the receiver, for OVS_VPORT_ATTR_NETNSID
 * @cmd: OVS_VPORT_CMD_*
 *
 * Under rsw_mutex or RCU.  Returns the message or an ERR_PTR().
 */
struct sk_buff *rsw_vport_cmd_build_info(struct rsw_vport *vport,
					 struct net *net, u32 portid, u32 seq,
					 u8 cmd);

#endif /* _RSW_VPORT_GENL_H */
