// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_datapath Generic Netlink family: creating, configuring, reading
 * and deleting datapaths.
 */

#include <linux/openvswitch.h>
#include <linux/percpu.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include "datapath.h"
#include "dp_genl.h"
#include "genl.h"
#include "vport.h"

/* Features userspace may ask for.  TC recirculation sharing needs TC skb
 * extensions, which this datapath does not use, so it is refused like on a
 * kernel built without them.
 */
#define DP_SUPPORTED_FEATURES (OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS | \
			       OVS_DP_F_DISPATCH_UPCALL_PER_CPU)

static const struct nla_policy dp_policy[OVS_DP_ATTR_MAX + 1] = {
	[OVS_DP_ATTR_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[OVS_DP_ATTR_UPCALL_PID] = { .type = NLA_U32 },
	[OVS_DP_ATTR_USER_FEATURES] = { .type = NLA_U32 },
	[OVS_DP_ATTR_MASKS_CACHE_SIZE] =
		NLA_POLICY_RANGE(NLA_U32, 0, RSW_MASKS_CACHE_MAX),
	[OVS_DP_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_S32, 0),
};

static size_t dp_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct ovs_header)) +
	       nla_total_size(IFNAMSIZ) +
	       nla_total_size_64bit(sizeof(struct ovs_dp_stats)) +
	       nla_total_size_64bit(sizeof(struct ovs_dp_megaflow_stats)) +
	       nla_total_size(sizeof(u32)) +	/* USER_FEATURES */
	       nla_total_size(sizeof(u32)) +	/* MASKS_CACHE_SIZE */
	       nla_total_size(nr_cpu_ids * sizeof(u32));	/* PER_CPU_PIDS */
}

/* Under rsw_mutex or RCU. */
static int dp_fill_info(struct rsw_datapath *dp, struct sk_buff *skb,
			u32 portid, u32 seq, u32 flags, u8 cmd)
{
	const struct rsw_cpu_pids *pids = rsw_deref_any(dp->cpu_pids);
	u32 features = READ_ONCE(dp->user_features);
	struct ovs_dp_megaflow_stats mega;
	struct ovs_dp_stats stats;
	struct ovs_header *hdr;

	hdr = rsw_genl_put(skb, &rsw_dp_family, portid, seq, flags, cmd,
			   rsw_dp_ifindex(dp));
	if (!hdr)
		return -EMSGSIZE;

	rsw_dp_read_stats(dp, &stats, &mega);
	if (nla_put_string(skb, OVS_DP_ATTR_NAME, rsw_dp_name(dp)) ||
	    nla_put_64bit(skb, OVS_DP_ATTR_STATS, sizeof(stats), &stats,
			  OVS_DP_ATTR_PAD) ||
	    nla_put_64bit(skb, OVS_DP_ATTR_MEGAFLOW_STATS, sizeof(mega), &mega,
			  OVS_DP_ATTR_PAD) ||
	    nla_put_u32(skb, OVS_DP_ATTR_USER_FEATURES, features) ||
	    nla_put_u32(skb, OVS_DP_ATTR_MASKS_CACHE_SIZE,
			rsw_flow_table_cache_size(&dp->table)))
		goto err_cancel;

	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) && pids &&
	    nla_put(skb, OVS_DP_ATTR_PER_CPU_PIDS,
		    min(pids->n, nr_cpu_ids) * sizeof(u32), pids->ids))
		goto err_cancel;

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static struct sk_buff *dp_build_reply(struct rsw_datapath *dp,
				      struct genl_info *info, u8 cmd)
{
	struct sk_buff *reply;
	int err;

	reply = genlmsg_new(dp_msg_size(), GFP_KERNEL);
	if (!reply)
		return ERR_PTR(-ENOMEM);
	err = dp_fill_info(dp, reply, info->snd_portid, info->snd_seq, 0, cmd);
	if (err) {
		/* dp_msg_size() covers every attribute: a bug if reached. */
		WARN_ON_ONCE(1);
		kfree_skb(reply);
		return ERR_PTR(err);
	}
	return reply;
}

/* By OVS_DP_ATTR_NAME if given, else by the header's dp_ifindex. */
static struct rsw_datapath *dp_from_request(struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;
	struct net *net = genl_info_net(info);
	struct nlattr **a = info->attrs;
	struct rsw_datapath *dp;

	if (a[OVS_DP_ATTR_NAME])
		dp = rsw_dp_lookup_name(net, nla_data(a[OVS_DP_ATTR_NAME]));
	else
		dp = rsw_dp_lookup(net, hdr->dp_ifindex);
	return dp ?: ERR_PTR(-ENODEV);
}

/*
 * Apply the settable attributes.  Like the ABI's other implementation, a
 * request without USER_FEATURES clears the features: userspace always
 * sends the full set it wants.
 */
static int dp_apply_settings(struct rsw_datapath *dp, struct nlattr **a)
{
	u32 features = 0;
	int err;

	rsw_assert_locked();

	if (a[OVS_DP_ATTR_USER_FEATURES]) {
		features = nla_get_u32(a[OVS_DP_ATTR_USER_FEATURES]);
		if (features & ~DP_SUPPORTED_FEATURES)
			return -EOPNOTSUPP;
	}
	if (a[OVS_DP_ATTR_MASKS_CACHE_SIZE]) {
		u32 size = nla_get_u32(a[OVS_DP_ATTR_MASKS_CACHE_SIZE]);

		err = rsw_flow_table_set_cache_size(&dp->table, size);
		if (err)
			return err;
	}
	WRITE_ONCE(dp->user_features, features);

	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) &&
	    a[OVS_DP_ATTR_PER_CPU_PIDS])
		return rsw_dp_set_cpu_pids(dp, a[OVS_DP_ATTR_PER_CPU_PIDS]);
	return 0;
}

/*
 * Userspace too old to know user features re-creating a datapath that
 * exists means it will reuse it: features announced by a newer one no
 * longer hold.
 */
static void dp_reset_features_for_old_user(struct genl_info *info)
{
	struct rsw_datapath *dp = dp_from_request(info);

	if (IS_ERR(dp))
		return;
	pr_warn("%s: dropping user features for an older client\n",
		rsw_dp_name(dp));
	WRITE_ONCE(dp->user_features, 0);
}

static int dp_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct rsw_vport_parms parms;
	struct rsw_datapath *dp;
	struct rsw_vport *local;
	struct sk_buff *reply;
	int err;

	if (!a[OVS_DP_ATTR_NAME] || !a[OVS_DP_ATTR_UPCALL_PID])
		return -EINVAL;

	dp = rsw_dp_alloc(genl_info_net(info));
	if (IS_ERR(dp))
		return PTR_ERR(dp);

	parms = (struct rsw_vport_parms) {
		.name = nla_data(a[OVS_DP_ATTR_NAME]),
		.type = OVS_VPORT_TYPE_INTERNAL,
		.port_no = OVSP_LOCAL,
		.upcall_pids = a[OVS_DP_ATTR_UPCALL_PID],
		.desired_ifindex = a[OVS_DP_ATTR_IFINDEX] ?
			nla_get_s32(a[OVS_DP_ATTR_IFINDEX]) : 0,
	};

	mutex_lock(&rsw_mutex);
	err = dp_apply_settings(dp, a);
	if (err)
		goto err_unlock_free_dp;

	local = rsw_dp_add_port(dp, &parms);
	if (IS_ERR(local)) {
		err = PTR_ERR(local);
		if (err == -EBUSY)
			err = -EEXIST;
		if (err == -EEXIST &&
		    info->genlhdr->version < OVS_DP_VER_FEATURES)
			dp_reset_features_for_old_user(info);
		goto err_unlock_free_dp;
	}

	reply = dp_build_reply(dp, info, OVS_DP_CMD_NEW);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto err_del_local;
	}
	rsw_dp_publish(dp);
	mutex_unlock(&rsw_mutex);

	rsw_genl_notify(&rsw_dp_family, reply, info);
	return 0;

err_del_local:
	rsw_dp_del_port(local);
	mutex_unlock(&rsw_mutex);
	/* The local port's vport is freed after a grace period; so is @dp. */
	synchronize_rcu();
	rsw_dp_free_unpublished(dp);
	return err;

err_unlock_free_dp:
	mutex_unlock(&rsw_mutex);
	rsw_dp_free_unpublished(dp);
	return err;
}

static int dp_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_datapath *dp;
	struct sk_buff *reply;
	int err;

	mutex_lock(&rsw_mutex);
	dp = dp_from_request(info);
	err = PTR_ERR_OR_ZERO(dp);
	if (err)
		goto err_unlock;
	reply = dp_build_reply(dp, info, OVS_DP_CMD_DEL);
	err = PTR_ERR_OR_ZERO(reply);
	if (err)
		goto err_unlock;
	rsw_dp_destroy(dp);
	mutex_unlock(&rsw_mutex);

	rsw_genl_notify(&rsw_dp_family, reply, info);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	return err;
}

/*
 * GET and SET: find the datapath the request names, apply its settings if
 * @apply, and build the reply, all under rsw_mutex so the reply shows
 * exactly the state the request left.
 */
static struct sk_buff *dp_locked_reply(struct genl_info *info, u8 cmd,
				       bool apply)
{
	struct rsw_datapath *dp;
	struct sk_buff *reply;
	int err;

	mutex_lock(&rsw_mutex);
	dp = dp_from_request(info);
	reply = ERR_CAST(dp);
	if (IS_ERR(dp))
		goto out_unlock;
	if (apply) {
		err = dp_apply_settings(dp, info->attrs);
		reply = ERR_PTR(err);
		if (err)
			goto out_unlock;
	}
	reply = dp_build_reply(dp, info, cmd);
out_unlock:
	mutex_unlock(&rsw_mutex);
	return reply;
}

static int dp_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *reply = dp_locked_reply(info, OVS_DP_CMD_SET, true);

	if (IS_ERR(reply))
		return PTR_ERR(reply);
	rsw_genl_notify(&rsw_dp_family, reply, info);
	return 0;
}

static int dp_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *reply = dp_locked_reply(info, OVS_DP_CMD_GET, false);

	if (IS_ERR(reply))
		return PTR_ERR(reply);
	return genlmsg_reply(reply, info);
}

/* cb->args[0]: how many datapaths earlier messages already carried. */
static int dp_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rsw_net *rn = net_generic(sock_net(skb->sk), rsw_net_id);
	long skip = cb->args[0], i = 0;
	struct rsw_datapath *dp;

	rcu_read_lock();
	list_for_each_entry_rcu(dp, &rn->datapaths, node) {
		if (i >= skip &&
		    dp_fill_info(dp, skb, NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI,
				 OVS_DP_CMD_GET))
			break;
		i++;
	}
	rcu_read_unlock();

	cb->args[0] = i;
	return skb->len;
}

/*
 * Validation is as lenient as the ABI's first implementation: userspace
 * has always sent attributes beyond each command's needs.
 */
static const struct genl_small_ops dp_ops[] = {
	{
		.cmd = OVS_DP_CMD_NEW,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = dp_cmd_new,
	},
	{
		.cmd = OVS_DP_CMD_DEL,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = dp_cmd_del,
	},
	{
		.cmd = OVS_DP_CMD_GET,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit = dp_cmd_get,
		.dumpit = dp_cmd_dump,
	},
	{
		.cmd = OVS_DP_CMD_SET,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = dp_cmd_set,
	},
};

static const struct genl_multicast_group dp_mcgrp = {
	.name = OVS_DATAPATH_MCGROUP,
};

struct genl_family rsw_dp_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_DATAPATH_FAMILY,
	.version = OVS_DATAPATH_VERSION,
	.maxattr = OVS_DP_ATTR_MAX,
	.policy = dp_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = dp_ops,
	.n_small_ops = ARRAY_SIZE(dp_ops),
	.resv_start_op = OVS_DP_CMD_SET + 1,
	.mcgrps = &dp_mcgrp,
	.n_mcgrps = 1,
	.module = THIS_MODULE,
};
