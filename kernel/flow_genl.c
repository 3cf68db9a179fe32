// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_flow Generic Netlink family: installing, changing, reading,
 * deleting and dumping a datapath's flows.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/openvswitch.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include "actions.h"
#include "datapath.h"
#include "flow_genl.h"
#include "flow_netlink.h"
#include "flow_table.h"
#include "genl.h"
#include "refuse.h"

static const struct nla_policy flow_policy[OVS_FLOW_ATTR_MAX + 1] = {
	[OVS_FLOW_ATTR_KEY] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_MASK] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_ACTIONS] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_CLEAR] = { .type = NLA_FLAG },
	[OVS_FLOW_ATTR_PROBE] = { .type = NLA_FLAG },
	[OVS_FLOW_ATTR_UFID] = { .type = NLA_UNSPEC, .len = 1 },
	[OVS_FLOW_ATTR_UFID_FLAGS] = { .type = NLA_U32 },
};

static const struct genl_multicast_group flow_mcgrp = {
	.name = OVS_FLOW_MCGROUP,
};

/*
 * Room for any reply about a flow with @acts.  A flow carries either a
 * UFID and its masked key or its unmasked key alone, never two keys, so
 * one key plus the mask always suffices.
 */
static size_t flow_msg_size(const struct rsw_flow_actions *acts)
{
	size_t key = rsw_key_nlattrs_size();

	return NLMSG_ALIGN(sizeof(struct ovs_header)) +
	       nla_total_size(RSW_UFID_MAX_BYTES) +
	       key + key +
	       nla_total_size(acts->orig_len) +
	       nla_total_size_64bit(sizeof(struct ovs_flow_stats)) +
	       nla_total_size(sizeof(u8)) +		/* TCP_FLAGS */
	       nla_total_size_64bit(sizeof(u64));	/* USED */
}

/*
 * OVS_FLOW_ATTR_USED is in milliseconds of the monotonic clock, which
 * userspace compares against its own.
 */
static u64 used_msecs(unsigned long used)
{
	u64 now = div_u64(ktime_get_ns(), NSEC_PER_MSEC);

	return now - jiffies_to_msecs(jiffies - used);
}

static int fill_stats(const struct rsw_flow *flow, struct sk_buff *skb)
{
	struct ovs_flow_stats stats;
	unsigned long used;
	__be16 tcp_flags;
	u8 flags8;

	rsw_flow_stats_read(flow, &stats, &used, &tcp_flags);

	/* Like the in-tree datapath, say nothing of what never happened. */
	if (used && nla_put_u64_64bit(skb, OVS_FLOW_ATTR_USED,
				      used_msecs(used), OVS_FLOW_ATTR_PAD))
		return -EMSGSIZE;
	if (stats.n_packets &&
	    nla_put_64bit(skb, OVS_FLOW_ATTR_STATS, sizeof(stats), &stats,
			  OVS_FLOW_ATTR_PAD))
		return -EMSGSIZE;
	flags8 = (u8)ntohs(tcp_flags);
	if (flags8 && nla_put_u8(skb, OVS_FLOW_ATTR_TCP_FLAGS, flags8))
		return -EMSGSIZE;
	return 0;
}

/*
 * Describe @flow in a reply, notification or dump message; under rsw_mutex
 * or RCU.  A flow is named by its UFID when it has one, otherwise by its
 * unmasked key; the masked key follows the UFID unless @ufid_flags omits
 * it.  An action list too long for a dump message that
 * is otherwise empty is left out rather than making the flow undumpable;
 * userspace can GET it.
 */
static int fill_info(const struct rsw_flow *flow, int dp_ifindex,
		     struct sk_buff *skb, u32 portid, u32 seq, u32 flags,
		     u8 cmd, u32 ufid_flags)
{
	const struct rsw_flow_actions *acts;
	bool first = skb->len == 0;
	struct ovs_header *hdr;
	unsigned char *mark;
	int err;

	hdr = rsw_genl_put(skb, &rsw_flow_family, portid, seq, flags, cmd,
			   dp_ifindex);
	if (!hdr)
		return -EMSGSIZE;

	if (flow->id.len) {
		err = rsw_ufid_to_nlattr(skb, &flow->id);
		if (!err && !(ufid_flags & OVS_UFID_F_OMIT_KEY))
			err = rsw_key_to_nlattrs(skb, OVS_FLOW_ATTR_KEY,
						 &flow->key, &flow->key);
	} else {
		err = rsw_key_to_nlattrs(skb, OVS_FLOW_ATTR_KEY,
					 &flow->unmasked, &flow->unmasked);
	}
	if (err)
		goto err_cancel;

	if (!(ufid_flags & OVS_UFID_F_OMIT_MASK)) {
		err = rsw_key_to_nlattrs(skb, OVS_FLOW_ATTR_MASK, &flow->key,
					 &flow->mask->key);
		if (err)
			goto err_cancel;
	}

	err = fill_stats(flow, skb);
	if (err)
		goto err_cancel;

	if (!(ufid_flags & OVS_UFID_F_OMIT_ACTIONS)) {
		acts = rsw_deref_any(flow->acts);
		mark = skb_tail_pointer(skb);
		err = rsw_actions_to_nlattr(skb, OVS_FLOW_ATTR_ACTIONS, acts);
		if (err) {
			nlmsg_trim(skb, mark);
			if (!first)
				goto err_cancel;
		}
	}

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return err;
}

/*
 * Replies to NEW, SET and DEL double as notifications: they are built
 * only when the requester asked for an echo or someone listens to the
 * group, and rsw_genl_notify() delivers them to both.
 */
static bool want_reply(struct genl_info *info)
{
	return (info->nlhdr->nlmsg_flags & NLM_F_ECHO) ||
	       genl_has_listeners(&rsw_flow_family, genl_info_net(info), 0);
}

/* NULL when no reply is wanted and @always is false; may sleep. */
static struct sk_buff *reply_alloc(const struct rsw_flow_actions *acts,
				   struct genl_info *info, bool always)
{
	struct sk_buff *skb;

	if (!always && !want_reply(info))
		return NULL;
	skb = genlmsg_new(flow_msg_size(acts), GFP_KERNEL);
	return skb ?: ERR_PTR(-ENOMEM);
}

/* Allocate and fill a reply about @flow, under rsw_mutex. */
static struct sk_buff *reply_build(const struct rsw_flow *flow,
				   int dp_ifindex, struct genl_info *info,
				   u8 cmd, bool always, u32 ufid_flags)
{
	struct sk_buff *skb;
	int err;

	skb = reply_alloc(rsw_deref(flow->acts), info, always);
	if (IS_ERR_OR_NULL(skb))
		return skb;
	err = fill_info(flow, dp_ifindex, skb, info->snd_portid,
			info->snd_seq, 0, cmd, ufid_flags);
	if (WARN_ON_ONCE(err)) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/* Fill a reply sized beforehand by reply_alloc(); it always fits. */
static void reply_fill(struct sk_buff *reply, const struct rsw_flow *flow,
		       int dp_ifindex, struct genl_info *info, u8 cmd,
		       u32 ufid_flags)
{
	int err;

	err = fill_info(flow, dp_ifindex, reply, info->snd_portid,
			info->snd_seq, 0, cmd, ufid_flags);
	WARN_ON_ONCE(err);
}

/*
 * Does @flow, found by UFID or by a lookup of the request's key, have the
 * identity the request names?  A UFID flow must have the request's key as
 * its masked key, a flow without one the request's key as its unmasked
 * key, as in the in-tree datapath.
 */
static bool same_flow(const struct rsw_flow *flow,
		      const struct rsw_flow_key *unmasked)
{
	const struct rsw_flow_key *key = flow->id.len ? &flow->key :
							 &flow->unmasked;

	return !memcmp(key, unmasked, sizeof(*key));
}

/* Any flow whose match covers @key; under rsw_mutex. */
static struct rsw_flow *lookup_any(struct rsw_datapath *dp,
				   const struct rsw_flow_key *key)
{
	u32 n_mask_hit = 0, n_cache_hit = 0;
	struct rsw_flow *flow;

	/* The mutex, not the RCU section, keeps the flow found alive. */
	rsw_assert_locked();
	rcu_read_lock();
	flow = rsw_flow_table_lookup(&dp->table, key, 0, &n_mask_hit,
				     &n_cache_hit);
	rcu_read_unlock();
	return flow;
}

/*
 * The datapath a request is for, under rsw_mutex; -ENODEV if there is
 * none in the requester's namespace.
 */
static struct rsw_datapath *request_dp(struct genl_info *info)
{
	const struct ovs_header *ovs_header = info->userhdr;
	struct rsw_datapath *dp;

	rsw_assert_locked();
	dp = rsw_dp_lookup(genl_info_net(info), ovs_header->dp_ifindex);
	return dp ?: ERR_PTR(-ENODEV);
}

/*
 * The flow a SET, GET or DEL names in @dp, by UFID if given, else by key;
 * -ENOENT if there is none.  Under rsw_mutex.
 */
static struct rsw_flow *find_named(struct rsw_datapath *dp,
				   const struct rsw_flow_id *id,
				   const struct rsw_flow_key *key)
{
	struct rsw_flow *flow;

	rsw_assert_locked();
	if (id->len)
		flow = rsw_flow_table_find_ufid(&dp->table, id);
	else
		flow = rsw_flow_table_find_exact(&dp->table, key, NULL);
	return flow ?: ERR_PTR(-ENOENT);
}

/*
 * Validate the actions of a NEW or SET against the flow's masked @key and
 * allocate the reply that will carry them (NULL if none is wanted); on
 * failure nothing is left allocated.  A list that fails validation is
 * reported, after the reason the validation itself gave, with @refusal:
 * for NEW the line tools look for (see refuse.h).
 */
static struct sk_buff *actions_with_reply(const struct nlattr *attr,
					  const struct rsw_flow_key *key,
					  struct genl_info *info, bool log,
					  const char *refusal,
					  struct rsw_flow_actions **acts)
{
	struct sk_buff *reply;
	int err;

	err = rsw_actions_from_nlattr(attr, key, acts, log);
	if (err)
		return ERR_PTR(rsw_refuse(log, err, "%s", refusal));
	reply = reply_alloc(*acts, info, false);
	if (IS_ERR(reply)) {
		rsw_actions_free(*acts);
		*acts = NULL;
	}
	return reply;
}

/*
 * The flow already in @dp that a NEW for @new runs into: the one with its
 * UFID, or any whose match covers its key.  Under rsw_mutex.
 */
static struct rsw_flow *find_existing(struct rsw_datapath *dp,
				      const struct rsw_flow *new)
{
	struct rsw_flow *flow = NULL;

	rsw_assert_locked();
	if (new->id.len)
		flow = rsw_flow_table_find_ufid(&dp->table, &new->id);
	return flow ?: lookup_any(dp, &new->unmasked);
}

/*
 * NEW, the insert path: nothing in @dp is in the way of @new, which goes
 * in with @acts.  @new owns @acts from here on, the insert failing or not.
 */
static int flow_insert(struct rsw_datapath *dp, struct rsw_flow *new,
		       struct rsw_flow_actions *acts,
		       const struct rsw_flow_key *mask, struct sk_buff *reply,
		       struct genl_info *info, u32 ufid_flags)
{
	const struct ovs_header *ovs_header = info->userhdr;
	int err;

	rsw_assert_locked();

	rcu_assign_pointer(new->acts, acts);
	err = rsw_flow_table_insert(&dp->table, new, mask);
	if (err)
		return err;
	if (reply)
		reply_fill(reply, new, ovs_header->dp_ifindex, info,
			   OVS_FLOW_CMD_NEW, ufid_flags);
	return 0;
}

/*
 * NEW, the replace path: @flow is in the way.  Only a request that does
 * not insist on creating (NLM_F_CREATE, NLM_F_EXCL) may go on, and then
 * the flow it names, which a wider @flow may only cover, takes @acts.
 * Returns the list replaced, to be freed after a grace period.
 */
static struct rsw_flow_actions *
flow_replace(struct rsw_datapath *dp, struct rsw_flow *flow,
	     const struct rsw_flow_key *unmasked, struct rsw_flow_actions *acts,
	     struct sk_buff *reply, struct genl_info *info, u32 ufid_flags)
{
	const struct ovs_header *ovs_header = info->userhdr;
	struct rsw_flow_actions *old;

	rsw_assert_locked();

	/* NLM_F_EXCL is one of the two bits of NLM_F_DUMP, so userspace
	 * says NLM_F_CREATE where it means "only create"; honour both, as
	 * the in-tree datapath does.
	 */
	if (info->nlhdr->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL))
		return ERR_PTR(-EEXIST);
	if (!same_flow(flow, unmasked)) {
		flow = flow->id.len ? NULL :
		       rsw_flow_table_find_exact(&dp->table, unmasked, NULL);
		if (!flow)
			return ERR_PTR(-ENOENT);
	}

	old = rsw_deref(flow->acts);
	rcu_assign_pointer(flow->acts, acts);
	if (reply)
		reply_fill(reply, flow, ovs_header->dp_ifindex, info,
			   OVS_FLOW_CMD_NEW, ufid_flags);
	return old;
}

static int flow_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_flow_actions *acts = NULL, *old_acts = NULL;
	struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct rsw_flow *new, *flow;
	struct rsw_flow_key mask;
	struct rsw_datapath *dp;
	struct sk_buff *reply;
	u32 ufid_flags;
	int err;

	if (!a[OVS_FLOW_ATTR_KEY])
		return rsw_refuse(log, -EINVAL, "flow: NEW without a key");
	if (!a[OVS_FLOW_ATTR_ACTIONS])
		return rsw_refuse(log, -EINVAL, "flow: NEW without actions");
	ufid_flags = rsw_ufid_flags(a[OVS_FLOW_ATTR_UFID_FLAGS]);

	/* Usually the flow is new: build it before taking the lock. */
	new = rsw_flow_alloc();
	if (!new)
		return -ENOMEM;
	err = rsw_key_from_nlattrs(a[OVS_FLOW_ATTR_KEY], a[OVS_FLOW_ATTR_MASK],
				   &new->unmasked, &mask, log);
	if (err)
		goto err_free_flow;
	err = rsw_ufid_from_nlattr(a[OVS_FLOW_ATTR_UFID], &new->id, log);
	if (err)
		goto err_free_flow;
	rsw_flow_key_mask(&new->key, &new->unmasked, &mask);
	reply = actions_with_reply(a[OVS_FLOW_ATTR_ACTIONS], &new->key, info,
				   log, RSW_UNSAFE_ACTIONS, &acts);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto err_free_flow;
	}

	mutex_lock(&rsw_mutex);
	dp = request_dp(info);
	if (IS_ERR(dp)) {
		err = PTR_ERR(dp);
		goto err_unlock;
	}

	flow = find_existing(dp, new);
	if (!flow) {
		err = flow_insert(dp, new, acts, &mask, reply, info,
				  ufid_flags);
		acts = NULL;
		if (err)
			goto err_unlock;
		new = NULL;
	} else {
		old_acts = flow_replace(dp, flow, &new->unmasked, acts, reply,
					info, ufid_flags);
		if (IS_ERR(old_acts)) {
			err = PTR_ERR(old_acts);
			goto err_unlock;
		}
		acts = NULL;
	}
	mutex_unlock(&rsw_mutex);

	if (reply)
		rsw_genl_notify(&rsw_flow_family, reply, info);
	rsw_actions_free_rcu(old_acts);
	/* Not inserted: the table already had the flow. */
	rsw_flow_free(new);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	kfree_skb(reply);
	rsw_actions_free(acts);
err_free_flow:
	rsw_flow_free(new);
	return err;
}

/* find_named() in the datapath the request is for.  Under rsw_mutex. */
static struct rsw_flow *find_requested(struct genl_info *info,
				       const struct rsw_flow_id *id,
				       const struct rsw_flow_key *key)
{
	struct rsw_datapath *dp = request_dp(info);

	if (IS_ERR(dp))
		return ERR_CAST(dp);
	return find_named(dp, id, key);
}

/*
 * The name a GET or DEL request gives a flow: a UFID, a key (parsed as a
 * match on every field it names, since these requests carry no mask), or
 * both.  A request with neither is not refused here: GET refuses it, DEL
 * takes it to mean every flow.
 */
struct flow_name {
	struct rsw_flow_key key;
	struct rsw_flow_id id;
	u32 ufid_flags;		/* how to describe the flow in the reply */
	bool given;		/* a key or a UFID came with the request */
	bool log;		/* not a probe: log what is wrong with it */
};

static int parse_flow_name(struct genl_info *info, struct flow_name *name)
{
	struct nlattr **a = info->attrs;
	int err;

	name->log = !a[OVS_FLOW_ATTR_PROBE];
	name->ufid_flags = rsw_ufid_flags(a[OVS_FLOW_ATTR_UFID_FLAGS]);
	err = rsw_ufid_from_nlattr(a[OVS_FLOW_ATTR_UFID], &name->id,
				   name->log);
	if (err)
		return err;
	name->given = a[OVS_FLOW_ATTR_KEY] || name->id.len;
	if (!a[OVS_FLOW_ATTR_KEY])
		return 0;
	return rsw_key_from_nlattrs(a[OVS_FLOW_ATTR_KEY], NULL, &name->key,
				    NULL, name->log);
}

static int flow_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct rsw_flow_actions *acts = NULL, *old_acts = NULL;
	struct ovs_header *ovs_header = info->userhdr;
	struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct rsw_flow_key key, mask;
	struct sk_buff *reply = NULL;
	struct rsw_flow_id id;
	struct rsw_flow *flow;
	u32 ufid_flags;
	int err;

	ufid_flags = rsw_ufid_flags(a[OVS_FLOW_ATTR_UFID_FLAGS]);
	err = rsw_ufid_from_nlattr(a[OVS_FLOW_ATTR_UFID], &id, log);
	if (err)
		return err;
	if (!a[OVS_FLOW_ATTR_KEY] && !id.len)
		return rsw_refuse(log, -EINVAL,
				  "flow: SET names no flow, by key or UFID");

	if (a[OVS_FLOW_ATTR_KEY]) {
		err = rsw_key_from_nlattrs(a[OVS_FLOW_ATTR_KEY],
					   a[OVS_FLOW_ATTR_MASK], &key, &mask,
					   log);
		if (err)
			return err;
	}
	if (a[OVS_FLOW_ATTR_ACTIONS]) {
		if (!a[OVS_FLOW_ATTR_KEY])
			return rsw_refuse(log, -EINVAL,
					  "flow: SET with actions but no key to check them against");
		/* The mask is not needed past this point: mask in place. */
		rsw_flow_key_mask(&mask, &key, &mask);
		reply = actions_with_reply(a[OVS_FLOW_ATTR_ACTIONS], &mask,
					   info, log,
					   "flow: SET refused for its actions",
					   &acts);
		if (IS_ERR(reply))
			return PTR_ERR(reply);
	}

	mutex_lock(&rsw_mutex);
	flow = find_requested(info, &id, &key);
	if (IS_ERR(flow)) {
		err = PTR_ERR(flow);
		goto err_unlock;
	}

	if (acts) {
		old_acts = rsw_deref(flow->acts);
		rcu_assign_pointer(flow->acts, acts);
		acts = NULL;
		if (reply)
			reply_fill(reply, flow, ovs_header->dp_ifindex, info,
				   OVS_FLOW_CMD_SET, ufid_flags);
	} else {
		reply = reply_build(flow, ovs_header->dp_ifindex, info,
				    OVS_FLOW_CMD_SET, false, ufid_flags);
		if (IS_ERR(reply)) {
			err = PTR_ERR(reply);
			reply = NULL;
			goto err_unlock;
		}
	}
	/* The reply carries the counters as they were before the clear. */
	if (a[OVS_FLOW_ATTR_CLEAR])
		rsw_flow_stats_clear(flow);
	mutex_unlock(&rsw_mutex);

	if (reply)
		rsw_genl_notify(&rsw_flow_family, reply, info);
	if (old_acts)
		rsw_actions_free_rcu(old_acts);
	return 0;

err_unlock:
	mutex_unlock(&rsw_mutex);
	kfree_skb(reply);
	if (acts)
		rsw_actions_free(acts);
	return err;
}

static int flow_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *ovs_header = info->userhdr;
	struct flow_name name;
	struct sk_buff *reply;
	struct rsw_flow *flow;
	int err;

	err = parse_flow_name(info, &name);
	if (err)
		return err;
	if (!name.given)
		return rsw_refuse(name.log, -EINVAL,
				  "flow: GET names no flow, by key or UFID");

	/* The mutex, not RCU, so that the reply can be sized and allocated
	 * with GFP_KERNEL while the flow cannot change.
	 */
	mutex_lock(&rsw_mutex);
	flow = find_requested(info, &name.id, &name.key);
	if (IS_ERR(flow)) {
		err = PTR_ERR(flow);
		goto err_unlock;
	}
	reply = reply_build(flow, ovs_header->dp_ifindex, info,
			    OVS_FLOW_CMD_GET, true, name.ufid_flags);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto err_unlock;
	}
	mutex_unlock(&rsw_mutex);

	return genlmsg_reply(reply, info);

err_unlock:
	mutex_unlock(&rsw_mutex);
	return err;
}

static int flow_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *ovs_header = info->userhdr;
	struct net *net = genl_info_net(info);
	struct rsw_datapath *dp;
	struct flow_name name;
	struct sk_buff *reply;
	struct rsw_flow *flow;
	int err;

	err = parse_flow_name(info, &name);
	if (err)
		return err;

	mutex_lock(&rsw_mutex);
	dp = request_dp(info);
	if (IS_ERR(dp)) {
		err = PTR_ERR(dp);
		goto out_unlock;
	}

	/* Neither key nor UFID: delete every flow, silently. */
	if (!name.given) {
		rsw_flow_table_flush(&dp->table);
		err = 0;
		goto out_unlock;
	}

	flow = find_named(dp, &name.id, &name.key);
	if (IS_ERR(flow)) {
		err = PTR_ERR(flow);
		goto out_unlock;
	}

	/* The reply needs flow->mask, so it is filled before the removal.
	 * Failing to build it does not stop the deletion; listeners are
	 * told they missed a notification instead.
	 */
	reply = reply_build(flow, ovs_header->dp_ifindex, info,
			    OVS_FLOW_CMD_DEL, false, name.ufid_flags);
	if (IS_ERR(reply)) {
		netlink_set_err(net->genl_sock, 0, rsw_flow_family.mcgrp_offset,
				PTR_ERR(reply));
		reply = NULL;
	}
	rsw_flow_table_remove(&dp->table, flow);
	mutex_unlock(&rsw_mutex);

	if (reply)
		rsw_genl_notify(&rsw_flow_family, reply, info);
	rsw_flow_free(flow);
	return 0;

out_unlock:
	mutex_unlock(&rsw_mutex);
	return err;
}

/*
 * cb->args[0] holds the table cursor (see struct rsw_flow_walk).  A flow
 * that does not fit is retried in the next message.
 */
static int flow_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ovs_header *ovs_header = genlmsg_data(nlmsg_data(cb->nlh));
	struct nlattr *a[OVS_FLOW_ATTR_MAX + 1];
	struct rsw_flow_walk walk;
	struct rsw_datapath *dp;
	struct rsw_flow *flow;
	u32 ufid_flags;
	int err;

	/* Dump requests are not validated by genl (GENL_DONT_VALIDATE_DUMP):
	 * parse them leniently, as the in-tree datapath does.
	 */
	err = genlmsg_parse_deprecated(cb->nlh, &rsw_flow_family, a,
				       OVS_FLOW_ATTR_MAX, flow_policy, NULL);
	if (err)
		return err;
	ufid_flags = rsw_ufid_flags(a[OVS_FLOW_ATTR_UFID_FLAGS]);

	rcu_read_lock();
	dp = rsw_dp_lookup(sock_net(skb->sk), ovs_header->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		return -ENODEV;
	}

	rsw_flow_walk_start(&walk, &dp->table, cb->args[0]);
	while ((flow = rsw_flow_walk_next(&walk))) {
		if (fill_info(flow, ovs_header->dp_ifindex, skb,
			      NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			      NLM_F_MULTI, OVS_FLOW_CMD_GET, ufid_flags))
			break;
		cb->args[0] = rsw_flow_walk_pos(&walk);
	}
	rcu_read_unlock();

	return skb->len;
}

/*
 * Like the in-tree family, these old commands are validated leniently:
 * ovs-vswitchd sends attributes that strict validation would refuse.
 */
static const struct genl_small_ops flow_ops[] = {
	{
		.cmd = OVS_FLOW_CMD_NEW,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = flow_cmd_new,
	},
	{
		.cmd = OVS_FLOW_CMD_DEL,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = flow_cmd_del,
	},
	{
		.cmd = OVS_FLOW_CMD_GET,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit = flow_cmd_get,
		.dumpit = flow_cmd_dump,
	},
	{
		.cmd = OVS_FLOW_CMD_SET,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = flow_cmd_set,
	},
};

struct genl_family rsw_flow_family __ro_after_init = {
	.name = OVS_FLOW_FAMILY,
	.version = OVS_FLOW_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_FLOW_ATTR_MAX,
	.policy = flow_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = flow_ops,
	.n_small_ops = ARRAY_SIZE(flow_ops),
	.resv_start_op = OVS_FLOW_CMD_SET + 1,
	.mcgrps = &flow_mcgrp,
	.n_mcgrps = 1,
	.module = THIS_MODULE,
};
