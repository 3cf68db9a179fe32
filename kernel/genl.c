// SPDX-License-Identifier: GPL-2.0
/*
 * Registration of the four openvswitch families and roam_redirect, and the
 * header/notify helpers their handlers share.
 */

#include <linux/openvswitch.h>
#include "dp_genl.h"
#include "flow_genl.h"
#include "genl.h"
#include "packet_genl.h"
#include "redirect_genl.h"
#include "vport_genl.h"

static struct genl_family *const rsw_families[] = {
	&rsw_dp_family,
	&rsw_vport_family,
	&rsw_flow_family,
	&rsw_packet_family,
	&rsw_redirect_family,
};

struct ovs_header *rsw_genl_put(struct sk_buff *skb,
				const struct genl_family *family,
				u32 portid, u32 seq, u32 flags, u8 cmd,
				int dp_ifindex)
{
	struct ovs_header *hdr;

	hdr = genlmsg_put(skb, portid, seq, family, flags, cmd);
	if (hdr)
		hdr->dp_ifindex = dp_ifindex;
	return hdr;
}

void rsw_genl_notify(const struct genl_family *family, struct sk_buff *skb,
		     struct genl_info *info)
{
	genl_notify(family, skb, info, 0, GFP_KERNEL);
}

int rsw_genl_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(rsw_families); i++) {
		err = genl_register_family(rsw_families[i]);
		if (err)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (--i >= 0)
		genl_unregister_family(rsw_families[i]);
	return err;
}

void rsw_genl_uninit(void)
{
	int i = ARRAY_SIZE(rsw_families);

	while (--i >= 0)
		genl_unregister_family(rsw_families[i]);
}
