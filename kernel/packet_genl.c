// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_packet Generic Netlink family: userspace hands back a packet
 * with the actions to run on it (OVS_PACKET_CMD_EXECUTE).  Upcalls travel
 * the other way on the same family, from upcall.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "actions.h"
#include "datapath.h"
#include "flow_netlink.h"
#include "packet_genl.h"
#include "refuse.h"
#include "vport.h"

/*
 * The frame of OVS_PACKET_ATTR_PACKET in an skb of its own, with the
 * headroom a received frame has, for the tags actions may push.
 */
static struct sk_buff *packet_skb(const struct nlattr *attr)
{
	struct sk_buff *skb;

	skb = __netdev_alloc_skb_ip_align(NULL, nla_len(attr), GFP_KERNEL);
	if (skb)
		skb_put_data(skb, nla_data(attr), nla_len(attr));
	return skb;
}

/*
 * What the request tells of the packet besides its bytes: the MRU of a
 * packet conntrack reassembled (which a kernel with conntrack may then
 * refragment whatever its DF bit says), and the hash its upcall carried.
 */
static void packet_metadata(struct sk_buff *packet, struct nlattr **a)
{
	struct rsw_skb_cb *cb = RSW_CB(packet);

	*cb = (struct rsw_skb_cb) { };
	if (a[OVS_PACKET_ATTR_MRU]) {
		cb->mru = nla_get_u16(a[OVS_PACKET_ATTR_MRU]);
		packet->ignore_df = 1;
	}
	if (a[OVS_PACKET_ATTR_HASH])
		rsw_packet_hash_from_attr(packet,
					  nla_get_u64(a[OVS_PACKET_ATTR_HASH]));
}

/*
 * Run @acts on @packet (consumed) in the datapath @dp_ifindex names, the
 * packet entering by the port @key names or, when that is none of the
 * datapath's, by its local port.  Under the packet path's own rules: RCU,
 * and bottom halves off for the per-CPU state the actions use.
 */
static int packet_run(struct net *net, int dp_ifindex, struct sk_buff *packet,
		      const struct rsw_flow_actions *acts,
		      struct rsw_flow_key *key)
{
	struct rsw_vport *input = NULL;
	struct rsw_datapath *dp;
	int err = -ENODEV;

	rcu_read_lock();
	dp = rsw_dp_lookup(net, dp_ifindex);
	if (dp)
		input = rsw_dp_port(dp, key->in_port) ?: rsw_dp_local_port(dp);
	if (input) {
		packet->dev = input->dev;
		RSW_CB(packet)->input_vport = input;
		local_bh_disable();
		err = rsw_actions_execute(dp, packet, acts, key);
		local_bh_enable();
	} else {
		kfree_skb(packet);
	}
	rcu_read_unlock();
	return err;
}

static int packet_cmd_execute(struct sk_buff *skb, struct genl_info *info)
{
	const struct ovs_header *oh = info->userhdr;
	struct nlattr **a = info->attrs;
	/* Feature probes expect failures; keep them out of the log. */
	bool log = !a[OVS_PACKET_ATTR_PROBE];
	struct rsw_flow_actions *acts;
	struct rsw_flow_key key;
	struct sk_buff *packet;
	int err;

	if (!a[OVS_PACKET_ATTR_PACKET] || !a[OVS_PACKET_ATTR_KEY] ||
	    !a[OVS_PACKET_ATTR_ACTIONS])
		return rsw_refuse(log, -EINVAL,
				  "packet: execute lacks the packet, its key or actions");

	packet = packet_skb(a[OVS_PACKET_ATTR_PACKET]);
	if (!packet)
		return -ENOMEM;
	packet_metadata(packet, a);

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

	err = packet_run(genl_info_net(info), oh->dp_ifindex, packet, acts,
			 &key);
	/* What the actions deferred ran within packet_run(): the list is
	 * no longer referred to.
	 */
	rsw_actions_free(acts);
	return err;

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
