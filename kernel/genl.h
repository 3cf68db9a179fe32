/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registering the Generic Netlink families, the four openvswitch ones and
 * roam_redirect (each declared in its own *_genl.h), and the helpers their
 * handlers share.
 */
#ifndef _RSW_GENL_H
#define _RSW_GENL_H

#include <net/genetlink.h>

/*
 * Start a reply or notification: genl header plus struct ovs_header with
 * @dp_ifindex.  Returns the ovs_header, or NULL when @skb is full.
 */
struct ovs_header *rsw_genl_put(struct sk_buff *skb,
				const struct genl_family *family,
				u32 portid, u32 seq, u32 flags, u8 cmd,
				int dp_ifindex);

/* Send @skb to the family's multicast group, or to the requester only. */
void rsw_genl_notify(const struct genl_family *family, struct sk_buff *skb,
		     struct genl_info *info);

int rsw_genl_init(void);
void rsw_genl_uninit(void);

#endif /* _RSW_GENL_H */
