/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_flow Generic Netlink family: a datapath's flows, one by one and
 * as dumps, and the multicast group that announces their changes.
 */
#ifndef _RSW_FLOW_GENL_H
#define _RSW_FLOW_GENL_H

#include <net/genetlink.h>

/* Registered by rsw_genl_init() with the other families. */
extern struct genl_family rsw_flow_family;

#endif /* _RSW_FLOW_GENL_H */
