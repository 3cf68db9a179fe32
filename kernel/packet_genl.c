// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_packet Generic Netlink family: userspace hands back a packet
 * with the actions to run on it (OVS_PACKET_CMD_EXECUTE).  Upcalls travel
 * the other way on the same family, from upcall.c.
 */

#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "actions.h"
#include "datapath.h"
#include "flow_netlink.h"
#include "genl.h"
#include "vport.h"

/* OVS_PACKET_ATTR_HASH: the low 32 bits are the hash, then its kind. */
#define HASH_SW_BIT BIT_ULL(32)
#define HASH_L4_BIT BIT_ULL(33)

static struct sk_buff *packet_from_attr(const struct nlattr *attr)
{
	int len = nla_len(attr);
	struct sk_buff *skb;

	skb = __dev_alloc_skb(NET_IP_ALIGN + len, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN);
	nla_memcpy(__skb_put(skb, len), attr, len);
	return skb;
}

static int packet_cmd_execute(struct sk_buff *skb, struct genl_info *info)
{
	const struct ovs_header *oh = info->userhdr;
	struct net *net = genl_info_net(info);
	struct nlattr **a = info->attrs;
	struct rsw_flow_actions *acts;
	struct rsw_vport *input;
	struct rsw_datapath *dp;
	struct rsw_flow_key key;
	struct sk_buff *packet;
	bool log;
	int err;

	if (!a[OVS_PACKET_ATTR_PACKET] || !a[OVS_PACKET_ATTR_KEY] ||
	    !a[OVS_PACKET_ATTR_ACTIONS])
		return -EINVAL;
	/* Feature probes expect failures; keep them out of the log. */
	log = !a[OVS_PACKET_ATTR_PROBE];

	packet = packet_from_attr(a[OVS_PACKET_ATTR_PACKET]);
	if (!packet)
		return -ENOMEM;

	memset(RSW_CB(packet), 0, sizeof(struct rsw_skb_cb));
	if (a[OVS_PACKET_ATTR_MRU]) {
		RSW_CB(packet)->mru = nla_get_u16(a[OVS_PACKET_ATTR_MRU]);
		/* Reassembled by conntrack: may be refragmented on output. */
		packet->ignore_df = 1;
	}
	if (a[OVS_PACKET_ATTR_HASH]) {
		u64 hash = nla_get_u64(a[OVS_PACKET_ATTR_HASH]);

		__skb_set_hash(packet, lower_32_bits(hash),
			       !!(hash & HASH_SW_BIT), !!(hash & HASH_L4_BIT));
	}

	err = rsw_key_from_packet_nlattrs(a[OVS_PACKET_ATTR_KEY], packet, &key,
					  log);
	if (err)
		goto err_free_packet;
	err = rsw_actions_from_nlattr(a[OVS_PACKET_ATTR_ACTIONS], &key, &acts,
				      log);
	if (err)
		goto err_free_packet;
	packet->priority = key.priority;
	packet->mark = key.skb_mark;

	rcu_read_lock();
	dp = rsw_dp_lookup(net, oh->dp_ifindex);
	if (!dp) {
		err = -ENODEV;
		goto err_unlock;
	}
	/* A packet from no port in particular enters by the local one. */
	input = rsw_dp_port(dp, key.in_port) ?: rsw_dp_local_port(dp);
	if (!input) {
		err = -ENODEV;
		goto err_unlock;
	}
	packet->dev = input->dev;
	RSW_CB(packet)->input_vport = input;

	local_bh_disable();
	err = rsw_actions_execute(dp, packet, acts, &key);
	local_bh_enable();
	rcu_read_unlock();

	/* Everything the actions deferred ran inside the call above. */
	rsw_actions_free(acts);
	return err;

err_unlock:
	rcu_read_unlock();
	rsw_actions_free(acts);
err_free_packet:
	kfree_skb(packet);
	return err;
}

static const struct nla_policy packet_policy[OVS_PACKET_ATTR_MAX + 1] = {
	/* Shorter than an Ethernet header is no packet. */
	[OVS_PACKET_ATTR_PACKET] = { .len = ETH_HLEN },
	[OVS_PACKET_ATTR_KEY] = { .type = NLA_NESTED },
	[OVS_PACKET_ATTR_ACTIONS] = { .type = NLA_NESTED },
	[OVS_PACKET_ATTR_PROBE] = { .type = NLA_FLAG },
	[OVS_PACKET_ATTR_MRU] = { .type = NLA_U16 },
	[OVS_PACKET_ATTR_HASH] = { .type = NLA_U64 },
};

static const struct genl_small_ops packet_ops[] = {
	{
		.cmd = OVS_PACKET_CMD_EXECUTE,
		/* Accept the attribute sets older kernels accepted. */
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = packet_cmd_execute,
	},
};

struct genl_family rsw_packet_family __ro_after_init = {
	.name = OVS_PACKET_FAMILY,
	.version = OVS_PACKET_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_PACKET_ATTR_MAX,
	.policy = packet_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = packet_ops,
	.n_small_ops = ARRAY_SIZE(packet_ops),
	.resv_start_op = OVS_PACKET_CMD_EXECUTE + 1,
	.module = THIS_MODULE,
};
