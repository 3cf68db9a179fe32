/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_datapath Generic Netlink family: creating, configuring, reading
 * and deleting datapaths.
 */
#ifndef _RSW_DP_GENL_H
#define _RSW_DP_GENL_H

#include <net/genetlink.h>

/* Registered by rsw_genl_init() with the other families. */
extern struct genl_family rsw_dp_family;

#endif /* _RSW_DP_GENL_H */
