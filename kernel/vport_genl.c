// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_vport Generic Netlink family: adding, removing, changing and
 * listing a datapath's ports, and announcing every change on the family's
 * multicast group.
 */

#include <linux/openvswitch.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "datapath.h"
#include "genl.h"
#include "vport.h"
#include "vport_genl.h"

/*
 * Room for any reply: every attribute fill_info() may emit, with the PID
 * array at its largest (one per possible CPU).
 */
static size_t vport_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct ovs_header)) +
	       nla_total_size(sizeof(u32)) +		/* PORT_NO */
	       nla_total_size(sizeof(u32)) +		/* TYPE */
	       nla_total_size(IFNAMSIZ) +		/* NAME */
	       nla_total_size(sizeof(u32)) +		/* IFINDEX */
	       nla_total_size(sizeof(s32)) +		/* NETNSID */
	       nla_total_size_64bit(sizeof(struct ovs_vport_stats)) +
	       nla_total_size(nr_cpu_ids * sizeof(u32));	/* UPCALL_PID */
}

/* Under rsw_mutex or RCU. */
static int fill_info(struct rsw_vport *vport, struct sk_buff *skb,
		     struct net *net, u32 portid, u32 seq, u32 flags, u8 cmd)
{
	struct net_device *dev = vport->dev;
	struct ovs_vport_stats stats;
	struct ovs_header *hdr;
	struct net *dev_ns;
	int err = -EMSGSIZE;

	hdr = rsw_genl_put(skb, &rsw_vport_family, portid, seq, flags, cmd,
			   rsw_dp_ifindex(vport->dp));
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, OVS_VPORT_ATTR_PORT_NO, vport->port_no) ||
	    nla_put_u32(skb, OVS_VPORT_ATTR_TYPE, vport->ops->type) ||
	    nla_put_string(skb, OVS_VPORT_ATTR_NAME, dev->name) ||
	    nla_put_u32(skb, OVS_VPORT_ATTR_IFINDEX, dev->ifindex))
		goto err_cancel;

	/* An internal port moved to another namespace is named relative to
	 * the receiver's.
	 */
	rcu_read_lock();
	dev_ns = dev_net(dev);
	if (!net_eq(net, dev_ns) &&
	    nla_put_s32(skb, OVS_VPORT_ATTR_NETNSID,
			peernet2id_alloc(net, dev_ns, GFP_ATOMIC))) {
		rcu_read_unlock();
		goto err_cancel;
	}
	rcu_read_unlock();

	rsw_vport_get_stats(vport, &stats);
	if (nla_put_64bit(skb, OVS_VPORT_ATTR_STATS, sizeof(stats), &stats,
			  OVS_VPORT_ATTR_PAD))
		goto err_cancel;

	err = rsw_vport_put_upcall_pids(vport, skb);
	if (err)
		goto err_cancel;

	/* Netdev and internal ports have no options to report. */
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return err;
}

struct sk_buff *rsw_vport_cmd_build_info(struct rsw_vport *vport,
					 struct net *net, u32 portid, u32 seq,
					 u8 cmd)
{
	struct sk_buff *skb;
	int err;

	skb = genlmsg_new(vport_msg_size(), GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = fill_info(vport, skb, net, portid, seq, 0, cmd);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/*
 * The port a request names: by OVS_VPORT_ATTR_NAME (in any datapath of
 * @net, or only in the one dp_ifindex names if it is set), else by
 * dp_ifindex and OVS_VPORT_ATTR_PORT_NO.  Under rsw_mutex or RCU.
 */
static struct rsw_vport *lookup_vport(struct net *net,
				      const struct ovs_header *oh,
				      struct nlattr **a)
{
	struct rsw_datapath *dp;
	struct rsw_vport *vport;

	if (a[OVS_VPORT_ATTR_IFINDEX])
		return ERR_PTR(-EOPNOTSUPP);

	if (a[OVS_VPORT_ATTR_NAME]) {
		const char *name = nla_data(a[OVS_VPORT_ATTR_NAME]);
		struct net_device *dev;

		rcu_read_lock();
		dev = dev_get_by_name_rcu(net, name);
		vport = dev ? rsw_vport_from_dev(dev) : NULL;
		rcu_read_unlock();
		/* The device may have left the datapath's namespace. */
		if (!vport || !net_eq(rsw_dp_net(vport->dp), net))
			return ERR_PTR(-ENODEV);
		if (oh->dp_ifindex &&
		    oh->dp_ifindex != rsw_dp_ifindex(vport->dp))
			return ERR_PTR(-ENODEV);
		return vport;
	}

	if (a[OVS_VPORT_ATTR_PORT_NO]) {
		u32 port_no = nla_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);

		if (port_no >= RSW_MAX_PORTS)
			return ERR_PTR(-EFBIG);
		dp = rsw_dp_lookup(net, oh->dp_ifindex);
		if (!dp)
			return ERR_PTR(-ENODEV);
		vport = rsw_dp_port(dp, port_no);
		return vport ?: ERR_PTR(-ENODEV);
	}

	return ERR_PTR(-EINVAL);
}

/*
 * Tell the requester and the multicast group.  The change is made; a
 * reply that cannot be built is only a lost notification.
 */
static void vport_notify(struct rsw_vport *vport, struct sk_buff *reply,
			 struct genl_info *info, u8 cmd)
{
	if (WARN_ON_ONCE(fill_info(vport, reply, genl_info_net(info),
				   info->snd_portid, info->snd_seq, 0, cmd))) {
		kfree_skb(reply);
		return;
	}
	rsw_genl_notify(&rsw_vport_family, reply, info);
}

static int vport_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	const struct ovs_header *oh = info->userhdr;
	struct rsw_vport_parms parms = {};
	struct nlattr **a = info->attrs;
	struct rsw_datapath *dp;
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	if (!a[OVS_VPORT_ATTR_NAME] || !a[OVS_VPORT_ATTR_TYPE] ||
	    !a[OVS_VPORT_ATTR_UPCALL_PID])
		return -EINVAL;

	parms.type = nla_get_u32(a[OVS_VPORT_ATTR_TYPE]);
	/* Only a device we create can be given its ifindex. */
	if (a[OVS_VPORT_ATTR_IFINDEX]) {
		if (parms.type != OVS_VPORT_TYPE_INTERNAL)
			return -EOPNOTSUPP;
		parms.desired_ifindex = nla_get_s32(a[OVS_VPORT_ATTR_IFINDEX]);
	}
	if (a[OVS_VPORT_ATTR_PORT_NO]) {
		parms.port_no = nla_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);
		if (parms.port_no >= RSW_MAX_PORTS)
			return -EFBIG;
	}
	parms.name = nla_data(a[OVS_VPORT_ATTR_NAME]);
	parms.options = a[OVS_VPORT_ATTR_OPTIONS];
	parms.upcall_pids = a[OVS_VPORT_ATTR_UPCALL_PID];

	reply = genlmsg_new(vport_msg_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	mutex_lock(&rsw_mutex);
	dp = rsw_dp_lookup(genl_info_net(info), oh->dp_ifindex);
	if (!dp) {
		err = -ENODEV;
		goto err_unlock;
	}
	if (parms.port_no && rsw_dp_port(dp, parms.port_no)) {
		err = -EBUSY;
		goto err_unlock;
	}
	vport = rsw_dp_add_port(dp, &parms);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err_unlock;
	}
	vport_notify(vport, reply, info, OVS_VPORT_CMD_NEW);
	mutex_unlock(&rsw_mutex);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	kfree_skb(reply);
	return err;
}

static int vport_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	reply = genlmsg_new(vport_msg_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	mutex_lock(&rsw_mutex);
	vport = lookup_vport(genl_info_net(info), info->userhdr, info->attrs);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err_unlock;
	}
	/* The local port goes only with its datapath. */
	if (vport->port_no == OVSP_LOCAL) {
		err = -EINVAL;
		goto err_unlock;
	}
	/* Described while it still exists, sent once it is gone. */
	if (WARN_ON_ONCE(fill_info(vport, reply, genl_info_net(info),
				   info->snd_portid, info->snd_seq, 0,
				   OVS_VPORT_CMD_DEL))) {
		kfree_skb(reply);
		reply = NULL;
	}
	rsw_dp_del_port(vport);
	mutex_unlock(&rsw_mutex);

	if (reply)
		rsw_genl_notify(&rsw_vport_family, reply, info);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	kfree_skb(reply);
	return err;
}

static int vport_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	reply = genlmsg_new(vport_msg_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	mutex_lock(&rsw_mutex);
	vport = lookup_vport(genl_info_net(info), info->userhdr, a);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err_unlock;
	}
	if (a[OVS_VPORT_ATTR_TYPE] &&
	    nla_get_u32(a[OVS_VPORT_ATTR_TYPE]) != vport->ops->type) {
		err = -EINVAL;
		goto err_unlock;
	}
	/* Neither netdev nor internal ports take options. */
	if (a[OVS_VPORT_ATTR_OPTIONS]) {
		err = -EOPNOTSUPP;
		goto err_unlock;
	}
	if (a[OVS_VPORT_ATTR_UPCALL_PID]) {
		err = rsw_vport_set_upcall_pids(vport,
						a[OVS_VPORT_ATTR_UPCALL_PID]);
		if (err)
			goto err_unlock;
	}
	vport_notify(vport, reply, info, OVS_VPORT_CMD_SET);
	mutex_unlock(&rsw_mutex);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	kfree_skb(reply);
	return err;
}

static int vport_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	reply = genlmsg_new(vport_msg_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	rcu_read_lock();
	vport = lookup_vport(genl_info_net(info), info->userhdr, info->attrs);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err_unlock;
	}
	err = fill_info(vport, reply, genl_info_net(info), info->snd_portid,
			info->snd_seq, 0, OVS_VPORT_CMD_GET);
	if (WARN_ON_ONCE(err))
		goto err_unlock;
	rcu_read_unlock();
	return genlmsg_reply(reply, info);

err_unlock:
	rcu_read_unlock();
	kfree_skb(reply);
	return err;
}

/* cb->args[0]: the port number to resume from. */
static int vport_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct ovs_header *oh = genlmsg_data(nlmsg_data(cb->nlh));
	struct net *net = sock_net(skb->sk);
	struct rsw_datapath *dp;
	struct rsw_vport *vport;
	unsigned long port_no;

	rcu_read_lock();
	dp = rsw_dp_lookup(net, oh->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		return -ENODEV;
	}
	xa_for_each_start(&dp->ports, port_no, vport, cb->args[0]) {
		if (fill_info(vport, skb, net, NETLINK_CB(cb->skb).portid,
			      cb->nlh->nlmsg_seq, NLM_F_MULTI,
			      OVS_VPORT_CMD_GET))
			break;
	}
	rcu_read_unlock();

	/* Stopped on a full message: start again there.  Otherwise the
	 * walk is over and the next call finds nothing.
	 */
	cb->args[0] = vport ? port_no : RSW_MAX_PORTS;
	return skb->len;
}

static const struct nla_policy vport_policy[OVS_VPORT_ATTR_MAX + 1] = {
	[OVS_VPORT_ATTR_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[OVS_VPORT_ATTR_STATS] = { .len = sizeof(struct ovs_vport_stats) },
	[OVS_VPORT_ATTR_PORT_NO] = { .type = NLA_U32 },
	[OVS_VPORT_ATTR_TYPE] = { .type = NLA_U32 },
	[OVS_VPORT_ATTR_UPCALL_PID] = { .type = NLA_UNSPEC },
	[OVS_VPORT_ATTR_OPTIONS] = { .type = NLA_NESTED },
	[OVS_VPORT_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_S32, 0),
	[OVS_VPORT_ATTR_NETNSID] = { .type = NLA_S32 },
};

/* Userspace sends the liberal attribute sets older kernels accepted. */
#define VPORT_VALIDATE (GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP)

static const struct genl_small_ops vport_ops[] = {
	{
		.cmd = OVS_VPORT_CMD_NEW,
		.validate = VPORT_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = vport_cmd_new,
	},
	{
		.cmd = OVS_VPORT_CMD_DEL,
		.validate = VPORT_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = vport_cmd_del,
	},
	{
		/* Reading is open to anyone. */
		.cmd = OVS_VPORT_CMD_GET,
		.validate = VPORT_VALIDATE,
		.doit = vport_cmd_get,
		.dumpit = vport_cmd_dump,
	},
	{
		.cmd = OVS_VPORT_CMD_SET,
		.validate = VPORT_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = vport_cmd_set,
	},
};

static const struct genl_multicast_group vport_mcgrps[] = {
	{ .name = OVS_VPORT_MCGROUP },
};

struct genl_family rsw_vport_family __ro_after_init = {
	.name = OVS_VPORT_FAMILY,
	.version = OVS_VPORT_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_VPORT_ATTR_MAX,
	.policy = vport_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = vport_ops,
	.n_small_ops = ARRAY_SIZE(vport_ops),
	.resv_start_op = OVS_VPORT_CMD_SET + 1,
	.mcgrps = vport_mcgrps,
	.n_mcgrps = ARRAY_SIZE(vport_mcgrps),
	.module = THIS_MODULE,
};
