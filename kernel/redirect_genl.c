// SPDX-License-Identifier: GPL-2.0
/*
 * The roam_redirect Generic Netlink family: setting, removing and reading
 * a datapath's redirects, and announcing every change on the family's
 * multicast group (roam_redirect.h).
 */

#include <linux/if_vlan.h>
#include <linux/openvswitch.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "datapath.h"
#include "genl.h"
#include "redirect.h"
#include "redirect_genl.h"
#include "roam_redirect.h"
#include "vport.h"

static size_t redirect_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct ovs_header)) +
	       nla_total_size(sizeof(u32)) +		/* PORT */
	       nla_total_size(sizeof(u32)) +		/* TARGET */
	       nla_total_size(sizeof(u16)) +		/* VLAN */
	       4 * nla_total_size_64bit(sizeof(u64));	/* the counters */
}

/* Under rsw_mutex or RCU. */
static int redirect_fill(struct sk_buff *skb, const struct rsw_vport *vport,
			 struct rsw_redirect *redirect, u32 portid, u32 seq,
			 u32 flags, u8 cmd)
{
	u64 first_ns = atomic64_read(&redirect->first_ns);
	struct ovs_header *hdr;

	hdr = rsw_genl_put(skb, &rsw_redirect_family, portid, seq, flags, cmd,
			   rsw_dp_ifindex(vport->dp));
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, ROAM_REDIRECT_ATTR_PORT, vport->port_no) ||
	    nla_put_u32(skb, ROAM_REDIRECT_ATTR_TARGET, redirect->target) ||
	    (redirect->vid &&
	     nla_put_u16(skb, ROAM_REDIRECT_ATTR_VLAN, redirect->vid)) ||
	    nla_put_u64_64bit(skb, ROAM_REDIRECT_ATTR_PACKETS,
			      atomic64_read(&redirect->packets),
			      ROAM_REDIRECT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, ROAM_REDIRECT_ATTR_BYTES,
			      atomic64_read(&redirect->bytes),
			      ROAM_REDIRECT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, ROAM_REDIRECT_ATTR_DROPPED,
			      atomic64_read(&redirect->dropped),
			      ROAM_REDIRECT_ATTR_PAD) ||
	    (first_ns &&
	     nla_put_u64_64bit(skb, ROAM_REDIRECT_ATTR_FIRST_NS, first_ns,
			       ROAM_REDIRECT_ATTR_PAD))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A complete message about @vport's @redirect, or NULL without memory. */
static struct sk_buff *redirect_build(const struct rsw_vport *vport,
				      struct rsw_redirect *redirect,
				      u32 portid, u32 seq, u8 cmd)
{
	struct sk_buff *skb;

	skb = genlmsg_new(redirect_msg_size(), GFP_KERNEL);
	if (!skb)
		return NULL;
	/* redirect_msg_size() has room for every attribute. */
	if (WARN_ON_ONCE(redirect_fill(skb, vport, redirect, portid, seq, 0,
				       cmd))) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * The port a request's PORT (or TARGET) names, in the datapath its header
 * names; an ERR_PTR() with the reason in extack otherwise.  Under
 * rsw_mutex or RCU.
 */
static struct rsw_vport *lookup_port(struct genl_info *info, int attr)
{
	const struct ovs_header *oh = info->userhdr;
	struct rsw_datapath *dp;
	struct rsw_vport *vport;

	if (GENL_REQ_ATTR_CHECK(info, attr))
		return ERR_PTR(-EINVAL);
	dp = rsw_dp_lookup(genl_info_net(info), oh->dp_ifindex);
	if (!dp) {
		NL_SET_ERR_MSG(info->extack, "no datapath has that dp_ifindex");
		return ERR_PTR(-ENODEV);
	}
	vport = rsw_dp_port(dp, nla_get_u32(info->attrs[attr]));
	if (!vport) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr],
				    "the datapath has no such port");
		return ERR_PTR(-ENODEV);
	}
	return vport;
}

/*
 * The redirect of the port a request's PORT names, with the port in
 * *@vport; an ERR_PTR() with the reason in extack if there is none.
 * Under rsw_mutex or RCU.
 */
static struct rsw_redirect *lookup_redirect(struct genl_info *info,
					    struct rsw_vport **vport)
{
	struct rsw_redirect *redirect;

	*vport = lookup_port(info, ROAM_REDIRECT_ATTR_PORT);
	if (IS_ERR(*vport))
		return ERR_CAST(*vport);
	redirect = rsw_deref_any((*vport)->redirect);
	if (!redirect) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[ROAM_REDIRECT_ATTR_PORT],
				    "the port is not redirected");
		return ERR_PTR(-ENOENT);
	}
	return redirect;
}

static int redirect_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_redirect *redirect, *old;
	struct rsw_vport *vport, *target;
	struct nlattr **a = info->attrs;
	struct sk_buff *reply;
	int err;

	mutex_lock(&rsw_mutex);
	vport = lookup_port(info, ROAM_REDIRECT_ATTR_PORT);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err_unlock;
	}
	target = lookup_port(info, ROAM_REDIRECT_ATTR_TARGET);
	if (IS_ERR(target)) {
		err = PTR_ERR(target);
		goto err_unlock;
	}
	if (target->dp != vport->dp || target == vport) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[ROAM_REDIRECT_ATTR_TARGET],
				    "the target must be another port of the same datapath");
		err = -EINVAL;
		goto err_unlock;
	}

	err = -ENOMEM;
	redirect = rsw_redirect_alloc(target->port_no,
				      a[ROAM_REDIRECT_ATTR_VLAN] ?
				      nla_get_u16(a[ROAM_REDIRECT_ATTR_VLAN]) : 0);
	if (!redirect)
		goto err_unlock;
	reply = redirect_build(vport, redirect, info->snd_portid,
			       info->snd_seq, ROAM_REDIRECT_CMD_SET);
	if (!reply)
		goto err_free;

	old = rsw_redirect_swap(vport, redirect);
	mutex_unlock(&rsw_mutex);

	rsw_redirect_free_rcu(old);
	rsw_genl_notify(&rsw_redirect_family, reply, info);
	return 0;

err_free:
	kfree(redirect);
err_unlock:
	mutex_unlock(&rsw_mutex);
	return err;
}

static int redirect_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_redirect *redirect;
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	mutex_lock(&rsw_mutex);
	redirect = lookup_redirect(info, &vport);
	if (IS_ERR(redirect)) {
		err = PTR_ERR(redirect);
		goto err_unlock;
	}
	/* Built first: a removal that cannot be announced is not done. */
	reply = redirect_build(vport, redirect, info->snd_portid,
			       info->snd_seq, ROAM_REDIRECT_CMD_DEL);
	if (!reply) {
		err = -ENOMEM;
		goto err_unlock;
	}
	rsw_redirect_swap(vport, NULL);
	mutex_unlock(&rsw_mutex);

	rsw_redirect_free_rcu(redirect);
	rsw_genl_notify(&rsw_redirect_family, reply, info);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	return err;
}

static int redirect_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_redirect *redirect;
	struct rsw_vport *vport;
	struct sk_buff *reply;
	int err;

	reply = genlmsg_new(redirect_msg_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	rcu_read_lock();
	redirect = lookup_redirect(info, &vport);
	if (IS_ERR(redirect)) {
		err = PTR_ERR(redirect);
		goto err_unlock;
	}
	err = redirect_fill(reply, vport, redirect, info->snd_portid,
			    info->snd_seq, 0, ROAM_REDIRECT_CMD_GET);
	rcu_read_unlock();
	if (err) {
		kfree_skb(reply);
		return err;
	}
	return genlmsg_reply(reply, info);

err_unlock:
	rcu_read_unlock();
	kfree_skb(reply);
	return err;
}

/* cb->args[0]: the port number to resume from. */
static int redirect_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct ovs_header *oh = genlmsg_data(nlmsg_data(cb->nlh));
	struct rsw_redirect *redirect;
	struct rsw_datapath *dp;
	struct rsw_vport *vport;
	unsigned long port_no;

	rcu_read_lock();
	dp = rsw_dp_lookup(sock_net(skb->sk), oh->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		NL_SET_ERR_MSG(cb->extack, "no datapath has that dp_ifindex");
		return -ENODEV;
	}
	xa_for_each_start(&dp->ports, port_no, vport, cb->args[0]) {
		redirect = rcu_dereference(vport->redirect);
		if (redirect &&
		    redirect_fill(skb, vport, redirect,
				  NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI,
				  ROAM_REDIRECT_CMD_GET))
			break;
	}
	rcu_read_unlock();

	/* Stopped on a full message: start again there. */
	cb->args[0] = vport ? port_no : RSW_MAX_PORTS;
	return skb->len;
}

/* Under rsw_mutex: remove @vport's redirect, announced as a DEL. */
static void redirect_remove(struct rsw_vport *vport)
{
	struct rsw_redirect *redirect = rsw_redirect_swap(vport, NULL);
	struct sk_buff *msg;

	msg = redirect_build(vport, redirect, 0, 0, ROAM_REDIRECT_CMD_DEL);
	if (msg)
		genlmsg_multicast_netns(&rsw_redirect_family,
					rsw_dp_net(vport->dp), msg, 0, 0,
					GFP_KERNEL);
	rsw_redirect_free_rcu(redirect);
}

void rsw_redirect_port_gone(struct rsw_vport *vport)
{
	struct rsw_datapath *dp = vport->dp;
	struct rsw_redirect *redirect;
	struct rsw_vport *other;
	unsigned long port_no;

	rsw_assert_locked();

	/* Most datapaths never have one: no walk over their ports then. */
	if (!dp->n_redirects)
		return;
	xa_for_each(&dp->ports, port_no, other) {
		redirect = rsw_deref(other->redirect);
		if (redirect && (other == vport ||
				 redirect->target == vport->port_no))
			redirect_remove(other);
	}
}

/* Wider than NLA_POLICY_MAX()'s s16 can say; 6.1 takes it non-const. */
static struct netlink_range_validation port_range __ro_after_init = {
	.max = RSW_MAX_PORTS - 1,
};

static const struct nla_policy redirect_policy[ROAM_REDIRECT_ATTR_MAX + 1] = {
	[ROAM_REDIRECT_ATTR_PORT] = NLA_POLICY_FULL_RANGE(NLA_U32, &port_range),
	[ROAM_REDIRECT_ATTR_TARGET] = NLA_POLICY_FULL_RANGE(NLA_U32, &port_range),
	[ROAM_REDIRECT_ATTR_VLAN] = NLA_POLICY_RANGE(NLA_U16, 1, VLAN_N_VID - 2),
	[ROAM_REDIRECT_ATTR_PACKETS] = { .type = NLA_REJECT },
	[ROAM_REDIRECT_ATTR_BYTES] = { .type = NLA_REJECT },
	[ROAM_REDIRECT_ATTR_DROPPED] = { .type = NLA_REJECT },
	[ROAM_REDIRECT_ATTR_FIRST_NS] = { .type = NLA_REJECT },
	[ROAM_REDIRECT_ATTR_PAD] = { .type = NLA_REJECT },
};

/* A new family: strict validation, every command. */
static const struct genl_small_ops redirect_ops[] = {
	{
		.cmd = ROAM_REDIRECT_CMD_SET,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = redirect_cmd_set,
	},
	{
		.cmd = ROAM_REDIRECT_CMD_DEL,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = redirect_cmd_del,
	},
	{
		/* Reading is open to anyone, as in the openvswitch families. */
		.cmd = ROAM_REDIRECT_CMD_GET,
		.doit = redirect_cmd_get,
		.dumpit = redirect_cmd_dump,
	},
};

static const struct genl_multicast_group redirect_mcgrps[] = {
	{ .name = ROAM_REDIRECT_MCGROUP },
};

struct genl_family rsw_redirect_family __ro_after_init = {
	.name = ROAM_REDIRECT_FAMILY,
	.version = ROAM_REDIRECT_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = ROAM_REDIRECT_ATTR_MAX,
	.policy = redirect_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = redirect_ops,
	.n_small_ops = ARRAY_SIZE(redirect_ops),
	.resv_start_op = ROAM_REDIRECT_CMD_GET + 1,
	.mcgrps = redirect_mcgrps,
	.n_mcgrps = ARRAY_SIZE(redirect_mcgrps),
	.module = THIS_MODULE,
};
