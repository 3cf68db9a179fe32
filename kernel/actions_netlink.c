// SPDX-License-Identifier: GPL-2.0
/*
 * Validating userspace's action lists, converting them to the internal form
 * described in actions_fmt.h, and giving them back in userspace's form.
 *
 * What is refused, and with which errno (rsw_actions_from_nlattr() in
 * actions.h), follows the in-tree datapath, so that ovs-vswitchd's feature
 * probes reach the same conclusions about this one.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include "actions.h"
#include "actions_fmt.h"
#include "datapath.h"
#include "refuse.h"

/* The 20 flow label bits of an IPv6 header's first word, host order. */
#define FLOW_LABEL_MASK 0x000fffffU

/*
 * Where converted actions go.  Conversion runs twice over the same input:
 * once with @data NULL to validate and measure, once to write into a
 * buffer of exactly the measured size.
 */
struct act_buf {
	u8 *data;
	u32 len;
};

/* Append an attribute; returns it, or NULL while measuring. */
static struct nlattr *buf_put(struct act_buf *b, int type, const void *payload,
			      int len)
{
	struct nlattr *nla = NULL;

	if (b->data) {
		nla = (struct nlattr *)(b->data + b->len);
		nla->nla_type = type;
		nla->nla_len = nla_attr_size(len);
		if (payload)
			memcpy(nla_data(nla), payload, len);
	}
	b->len += nla_total_size(len);
	return nla;
}

/* Close the nest opened at @start; the payload must fit a netlink length. */
static int buf_nest_end(struct act_buf *b, u32 start)
{
	u32 len = b->len - start;

	if (len > U16_MAX)
		return -EMSGSIZE;
	if (b->data)
		((struct nlattr *)(b->data + start))->nla_len = len;
	return 0;
}

static int copy_list(struct act_buf *b, const struct nlattr *list,
		     const struct rsw_flow_key *key, u32 depth, u32 *flags,
		     bool log);

/* Payload size of the OVS_KEY_ATTR_* types a set may carry; 0 = refused. */
static int set_key_len(int type)
{
	switch (type) {
	case OVS_KEY_ATTR_PRIORITY:
	case OVS_KEY_ATTR_SKB_MARK:
		return sizeof(u32);
	case OVS_KEY_ATTR_ETHERNET:
		return sizeof(struct ovs_key_ethernet);
	case OVS_KEY_ATTR_IPV4:
		return sizeof(struct ovs_key_ipv4);
	case OVS_KEY_ATTR_IPV6:
		return sizeof(struct ovs_key_ipv6);
	case OVS_KEY_ATTR_TCP:
		return sizeof(struct ovs_key_tcp);
	case OVS_KEY_ATTR_UDP:
		return sizeof(struct ovs_key_udp);
	case OVS_KEY_ATTR_SCTP:
		return sizeof(struct ovs_key_sctp);
	}
	return 0;
}

static bool key_is_ip(const struct rsw_flow_key *key)
{
	return key->eth_type == htons(ETH_P_IP) ||
	       key->eth_type == htons(ETH_P_IPV6);
}

/* A masked set may not carry value bits outside its mask. */
static bool value_within_mask(const u8 *value, int len)
{
	const u8 *mask = value + len;
	int i;

	for (i = 0; i < len; i++)
		if (value[i] & ~mask[i])
			return false;
	return true;
}

/*
 * Check a set or masked set against the flow it belongs to: the field must
 * exist in the flow (an IPv4 set needs an IPv4 flow, a TCP set a TCP flow),
 * a plain IP set must leave the protocol and fragment type as the flow has
 * them, and a masked one may not mask them at all.
 */
static int check_set(const struct nlattr *ka, int len,
		     const struct rsw_flow_key *key, bool masked, bool log)
{
	const void *val = nla_data(ka);

	if (masked && !value_within_mask(val, len))
		return rsw_refuse(log, -EINVAL,
				  "action: set value bits outside the mask");

	switch (nla_type(ka)) {
	case OVS_KEY_ATTR_IPV4: {
		const struct ovs_key_ipv4 *v = val, *m = v + 1;

		if (key->eth_type != htons(ETH_P_IP))
			break;
		if (masked ? m->ipv4_proto || m->ipv4_frag :
		    v->ipv4_proto != key->ip_proto ||
		    v->ipv4_frag != key->ip_frag)
			return rsw_refuse(log, -EINVAL,
					  "action: set of IPv4 protocol or fragment type");
		return 0;
	}
	case OVS_KEY_ATTR_IPV6: {
		const struct ovs_key_ipv6 *v = val, *m = v + 1;

		if (key->eth_type != htons(ETH_P_IPV6))
			break;
		if (masked ? m->ipv6_proto || m->ipv6_frag ||
		    (ntohl(m->ipv6_label) & ~FLOW_LABEL_MASK) :
		    v->ipv6_proto != key->ip_proto ||
		    v->ipv6_frag != key->ip_frag)
			return rsw_refuse(log, -EINVAL,
					  "action: set of IPv6 protocol, fragment type or label bits past 20");
		if (ntohl(v->ipv6_label) & ~FLOW_LABEL_MASK)
			return rsw_refuse(log, -EINVAL,
					  "action: IPv6 flow label %#x too wide",
					  ntohl(v->ipv6_label));
		return 0;
	}
	case OVS_KEY_ATTR_TCP:
		if (key_is_ip(key) && key->ip_proto == IPPROTO_TCP)
			return 0;
		break;
	case OVS_KEY_ATTR_UDP:
		if (key_is_ip(key) && key->ip_proto == IPPROTO_UDP)
			return 0;
		break;
	case OVS_KEY_ATTR_SCTP:
		if (key_is_ip(key) && key->ip_proto == IPPROTO_SCTP)
			return 0;
		break;
	default:
		return 0;
	}
	return rsw_refuse(log, -EINVAL,
			  "action: set of key attribute %d on a flow without that header",
			  nla_type(ka));
}

static int copy_set(struct act_buf *b, const struct nlattr *a,
		    const struct rsw_flow_key *key, bool masked, bool log)
{
	const struct nlattr *ka = nla_data(a);
	struct nlattr *out;
	int type, len, err;
	u32 start;

	/* Exactly one key attribute, filling the action. */
	if (!nla_ok(ka, nla_len(a)) ||
	    nla_total_size(nla_len(ka)) != nla_len(a))
		return rsw_refuse(log, -EINVAL,
				  "action: set holds no single key attribute");

	type = nla_type(ka);
	len = masked ? nla_len(ka) / 2 : nla_len(ka);
	if (!set_key_len(type) || len != set_key_len(type))
		return rsw_refuse(log, -EINVAL,
				  "action: set of key attribute %d, length %d",
				  type, nla_len(ka));

	err = check_set(ka, len, key, masked, log);
	if (err)
		return err;

	if (masked) {
		buf_put(b, OVS_ACTION_ATTR_SET_MASKED, ka, nla_len(a));
		return 0;
	}

	start = b->len;
	buf_put(b, RSW_ACT_SET_WHOLE, NULL, 0);
	out = buf_put(b, type, NULL, 2 * len);
	if (out) {
		memcpy(nla_data(out), nla_data(ka), len);
		memset(nla_data(out) + len, 0xff, len);
		if (type == OVS_KEY_ATTR_IPV6) {
			struct ovs_key_ipv6 *m = nla_data(out) + len;

			m->ipv6_label = htonl(FLOW_LABEL_MASK);
		}
	}
	return buf_nest_end(b, start);
}

static int check_userspace(const struct nlattr *a, bool log)
{
	static const struct nla_policy policy[OVS_USERSPACE_ATTR_MAX + 1] = {
		[OVS_USERSPACE_ATTR_PID] = { .type = NLA_U32 },
		[OVS_USERSPACE_ATTR_USERDATA] = { .type = NLA_UNSPEC },
		[OVS_USERSPACE_ATTR_EGRESS_TUN_PORT] = { .type = NLA_U32 },
		[OVS_USERSPACE_ATTR_ACTIONS] = { .type = NLA_UNSPEC },
	};
	struct nlattr *tb[OVS_USERSPACE_ATTR_MAX + 1];
	int err;

	/* Liberal parsing, as the ABI has always been parsed. */
	err = nla_parse_nested_deprecated(tb, OVS_USERSPACE_ATTR_MAX, a,
					  policy, NULL);
	if (err)
		return rsw_refuse(log, err, "action: userspace malformed");
	if (!tb[OVS_USERSPACE_ATTR_PID] ||
	    !nla_get_u32(tb[OVS_USERSPACE_ATTR_PID]))
		return rsw_refuse(log, -EINVAL,
				  "action: userspace without a PID");
	return 0;
}

/*
 * A sample, clone or dec_ttl: the arg, then the nested list converted one
 * level down.
 */
static int copy_nested(struct act_buf *b, int type, u32 probability,
		       const struct nlattr *list, const struct rsw_flow_key *key,
		       u32 depth, u32 *flags, bool log)
{
	struct rsw_act_arg arg = { .probability = probability };
	struct nlattr *arg_attr;
	u32 start = b->len;
	int err;

	buf_put(b, type, NULL, 0);
	arg_attr = buf_put(b, RSW_ACT_ARG, NULL, sizeof(arg));
	err = copy_list(b, list, key, depth + 1, &arg.flags, log);
	if (err)
		return err;
	if (arg_attr)
		memcpy(nla_data(arg_attr), &arg, sizeof(arg));
	/* In-place nested lists change the key of the list holding them. */
	*flags |= arg.flags;
	return buf_nest_end(b, start);
}

static int copy_sample(struct act_buf *b, const struct nlattr *a,
		       const struct rsw_flow_key *key, u32 depth, u32 *flags,
		       bool log)
{
	const struct nlattr *prob = NULL, *list = NULL, *sub;
	int rem;

	nla_for_each_nested(sub, a, rem) {
		if (nla_type(sub) == OVS_SAMPLE_ATTR_PROBABILITY && !prob)
			prob = sub;
		else if (nla_type(sub) == OVS_SAMPLE_ATTR_ACTIONS && !list)
			list = sub;
		else
			return rsw_refuse(log, -EINVAL,
					  "action: sample attribute %d unknown or repeated",
					  nla_type(sub));
	}
	if (rem || !prob || nla_len(prob) != sizeof(u32) || !list ||
	    (nla_len(list) && nla_len(list) < NLA_HDRLEN))
		return rsw_refuse(log, -EINVAL, "action: sample malformed");

	return copy_nested(b, OVS_ACTION_ATTR_SAMPLE, nla_get_u32(prob), list,
			   key, depth, flags, log);
}

/*
 * dec_ttl: OVS_DEC_TTL_ATTR_ACTION holds the list a packet takes instead
 * of the rest of the flow's when its TTL or hop limit is already 1 or 0
 * (an empty list drops it).  Types past OVS_DEC_TTL_ATTR_MAX are skipped,
 * room the ABI leaves for later additions; type 0 or a repeated type is
 * refused.  Any flow may carry it: on packets other than IPv4 and IPv6 it
 * does nothing.
 */
static int copy_dec_ttl(struct act_buf *b, const struct nlattr *a,
			const struct rsw_flow_key *key, u32 depth, u32 *flags,
			bool log)
{
	const struct nlattr *list = NULL, *sub;
	int rem;

	nla_for_each_nested(sub, a, rem) {
		if (nla_type(sub) > OVS_DEC_TTL_ATTR_MAX)
			continue;
		if (nla_type(sub) != OVS_DEC_TTL_ATTR_ACTION || list)
			return rsw_refuse(log, -EINVAL,
					  "action: dec_ttl attribute %d invalid or repeated",
					  nla_type(sub));
		list = sub;
	}
	if (rem || !list || (nla_len(list) && nla_len(list) < NLA_HDRLEN))
		return rsw_refuse(log, -EINVAL,
				  "action: dec_ttl without a well-formed action list");

	*flags |= RSW_ACT_F_CHANGES_KEY;
	return copy_nested(b, OVS_ACTION_ATTR_DEC_TTL, 0, list, key, depth,
			   flags, log);
}

/* Fixed payload sizes of the actions we run; -1 for variable ones. */
static int action_len(int type)
{
	switch (type) {
	case OVS_ACTION_ATTR_OUTPUT:
	case OVS_ACTION_ATTR_RECIRC:
	case OVS_ACTION_ATTR_METER:
		return sizeof(u32);
	case OVS_ACTION_ATTR_PUSH_VLAN:
		return sizeof(struct ovs_action_push_vlan);
	case OVS_ACTION_ATTR_POP_VLAN:
		return 0;
	case OVS_ACTION_ATTR_HASH:
		return sizeof(struct ovs_action_hash);
	case OVS_ACTION_ATTR_TRUNC:
		return sizeof(struct ovs_action_trunc);
	case OVS_ACTION_ATTR_USERSPACE:
	case OVS_ACTION_ATTR_SET:
	case OVS_ACTION_ATTR_SET_MASKED:
	case OVS_ACTION_ATTR_SAMPLE:
	case OVS_ACTION_ATTR_CLONE:
	case OVS_ACTION_ATTR_DEC_TTL:
		return -1;
	}
	return -2;	/* not one we support */
}

static int copy_action(struct act_buf *b, const struct nlattr *a,
		       const struct rsw_flow_key *key, u32 depth, u32 *flags,
		       bool log)
{
	int type = nla_type(a);
	int len = action_len(type);
	int err;

	if (len == -2)
		return rsw_refuse(log, -EINVAL,
				  "action: type %d unsupported", type);
	if (len >= 0 && nla_len(a) != len)
		return rsw_refuse(log, -EINVAL,
				  "action: type %d has length %d", type,
				  nla_len(a));

	switch (type) {
	case OVS_ACTION_ATTR_OUTPUT:
		if (nla_get_u32(a) >= RSW_MAX_PORTS)
			return rsw_refuse(log, -EINVAL,
					  "action: output to port %u",
					  nla_get_u32(a));
		break;

	case OVS_ACTION_ATTR_USERSPACE:
		err = check_userspace(a, log);
		if (err)
			return err;
		break;

	case OVS_ACTION_ATTR_TRUNC: {
		const struct ovs_action_trunc *trunc = nla_data(a);

		if (trunc->max_len < ETH_HLEN)
			return rsw_refuse(log, -EINVAL,
					  "action: trunc to %u bytes",
					  trunc->max_len);
		break;
	}

	case OVS_ACTION_ATTR_HASH: {
		const struct ovs_action_hash *hash = nla_data(a);

		/* 6.1 knows only the plain L4 hash. */
		if (hash->hash_alg != OVS_HASH_ALG_L4)
			return rsw_refuse(log, -EINVAL,
					  "action: hash algorithm %u",
					  hash->hash_alg);
		*flags |= RSW_ACT_F_CHANGES_KEY;
		break;
	}

	case OVS_ACTION_ATTR_PUSH_VLAN: {
		const struct ovs_action_push_vlan *vlan = nla_data(a);

		if (!eth_type_vlan(vlan->vlan_tpid) ||
		    !(vlan->vlan_tci & htons(VLAN_CFI_MASK)))
			return rsw_refuse(log, -EINVAL,
					  "action: push_vlan of TPID %#x, TCI %#x",
					  ntohs(vlan->vlan_tpid),
					  ntohs(vlan->vlan_tci));
		*flags |= RSW_ACT_F_CHANGES_KEY;
		break;
	}

	case OVS_ACTION_ATTR_POP_VLAN:
		*flags |= RSW_ACT_F_CHANGES_KEY;
		break;

	/*
	 * This datapath has no meters (no meter family), and the in-tree one
	 * lets a packet through a meter that does not exist: a meter action
	 * is kept, given back in dumps, and does nothing.
	 */
	case OVS_ACTION_ATTR_METER:
		break;

	case OVS_ACTION_ATTR_SET:
	case OVS_ACTION_ATTR_SET_MASKED:
		*flags |= RSW_ACT_F_CHANGES_KEY;
		return copy_set(b, a, key, type == OVS_ACTION_ATTR_SET_MASKED,
				log);

	case OVS_ACTION_ATTR_SAMPLE:
		return copy_sample(b, a, key, depth, flags, log);

	case OVS_ACTION_ATTR_CLONE:
		if (nla_len(a) && nla_len(a) < NLA_HDRLEN)
			return rsw_refuse(log, -EINVAL,
					  "action: clone malformed");
		return copy_nested(b, OVS_ACTION_ATTR_CLONE, 0, a, key, depth,
				   flags, log);

	case OVS_ACTION_ATTR_DEC_TTL:
		return copy_dec_ttl(b, a, key, depth, flags, log);
	}

	buf_put(b, type, nla_data(a), nla_len(a));
	return 0;
}

/*
 * Validate and convert the actions nested in @list.  @depth counts the
 * sample, clone and dec_ttl lists around it; @flags collects RSW_ACT_F_*
 * of what the list does.
 */
static int copy_list(struct act_buf *b, const struct nlattr *list,
		     const struct rsw_flow_key *key, u32 depth, u32 *flags,
		     bool log)
{
	const struct nlattr *a;
	int rem, err;

	if (depth > RSW_ACTIONS_MAX_DEPTH)
		return rsw_refuse(log, -EOVERFLOW,
				  "action: lists nested deeper than %d",
				  RSW_ACTIONS_MAX_DEPTH);

	nla_for_each_nested(a, list, rem) {
		err = copy_action(b, a, key, depth, flags, log);
		if (err)
			return err;
	}
	if (rem > 0)
		return rsw_refuse(log, -EINVAL,
				  "action: %d trailing bytes", rem);
	return 0;
}

int rsw_actions_from_nlattr(const struct nlattr *attr,
			    const struct rsw_flow_key *key,
			    struct rsw_flow_actions **acts, bool log)
{
	struct rsw_flow_actions *new;
	struct act_buf b = {};
	u32 flags = 0;
	u32 size;
	int err;

	err = copy_list(&b, attr, key, 0, &flags, log);
	if (err)
		return err;

	size = b.len;
	new = kzalloc(sizeof(*new) + size, GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	b.data = (u8 *)new->actions;
	b.len = 0;
	err = copy_list(&b, attr, key, 0, &flags, log);
	if (WARN_ON_ONCE(err || b.len != size)) {
		kfree(new);
		return err ?: -EINVAL;
	}

	new->len = size;
	new->orig_len = nla_len(attr);
	*acts = new;
	return 0;
}

static int put_list(struct sk_buff *skb, const struct nlattr *list, int len);

/* A whole set goes back as the plain set userspace sent: the value only. */
static int put_whole_set(struct sk_buff *skb, const struct nlattr *a)
{
	const struct nlattr *ka = nla_data(a);
	struct nlattr *nest;

	nest = nla_nest_start_noflag(skb, OVS_ACTION_ATTR_SET);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, nla_type(ka), nla_len(ka) / 2, nla_data(ka))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Sample, clone and dec_ttl: drop the arg, restore userspace's own layout
 * (a sample's probability and list, a clone's bare list, dec_ttl's list
 * in its one attribute).
 */
static int put_nested(struct sk_buff *skb, const struct nlattr *a)
{
	const struct nlattr *arg_attr = nla_data(a);
	const struct rsw_act_arg *arg = nla_data(arg_attr);
	int type = nla_type(a), rem = nla_len(a);
	struct nlattr *outer, *inner = NULL;
	const struct nlattr *list;
	int err = -EMSGSIZE;

	list = nla_next(arg_attr, &rem);

	outer = nla_nest_start_noflag(skb, type);
	if (!outer)
		return -EMSGSIZE;
	if (type == OVS_ACTION_ATTR_SAMPLE) {
		if (nla_put_u32(skb, OVS_SAMPLE_ATTR_PROBABILITY,
				arg->probability))
			goto err_cancel;
		inner = nla_nest_start_noflag(skb, OVS_SAMPLE_ATTR_ACTIONS);
		if (!inner)
			goto err_cancel;
	} else if (type == OVS_ACTION_ATTR_DEC_TTL) {
		inner = nla_nest_start_noflag(skb, OVS_DEC_TTL_ATTR_ACTION);
		if (!inner)
			goto err_cancel;
	}
	err = put_list(skb, list, rem);
	if (err)
		goto err_cancel;
	if (inner)
		nla_nest_end(skb, inner);
	nla_nest_end(skb, outer);
	return 0;

err_cancel:
	nla_nest_cancel(skb, outer);
	return err;
}

static int put_list(struct sk_buff *skb, const struct nlattr *list, int len)
{
	const struct nlattr *a;
	int rem, err;

	nla_for_each_attr(a, list, len, rem) {
		switch (nla_type(a)) {
		case RSW_ACT_SET_WHOLE:
			err = put_whole_set(skb, a);
			break;
		case OVS_ACTION_ATTR_SAMPLE:
		case OVS_ACTION_ATTR_CLONE:
		case OVS_ACTION_ATTR_DEC_TTL:
			err = put_nested(skb, a);
			break;
		default:
			err = nla_put(skb, nla_type(a), nla_len(a),
				      nla_data(a));
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

int rsw_actions_to_nlattr(struct sk_buff *skb, int attrtype,
			  const struct rsw_flow_actions *acts)
{
	return rsw_actions_list_to_nlattr(skb, attrtype, acts->actions,
					  acts->len);
}

int rsw_actions_list_to_nlattr(struct sk_buff *skb, int attrtype,
			       const struct nlattr *list, int len)
{
	struct nlattr *nest;
	int err;

	nest = nla_nest_start_noflag(skb, attrtype);
	if (!nest)
		return -EMSGSIZE;
	err = put_list(skb, list, len);
	if (err) {
		nla_nest_cancel(skb, nest);
		return err;
	}
	nla_nest_end(skb, nest);
	return 0;
}

void rsw_actions_free(struct rsw_flow_actions *acts)
{
	kfree(acts);
}

void rsw_actions_free_rcu(struct rsw_flow_actions *acts)
{
	kfree_rcu(acts, rcu);
}
