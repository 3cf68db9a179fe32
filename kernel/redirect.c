// SPDX-License-Identifier: GPL-2.0
/*
 * Redirects: what a redirected port's output becomes on the packet path,
 * and their lifetime.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "datapath.h"
#include "redirect.h"

struct rsw_redirect *rsw_redirect_alloc(u32 target, u16 vid)
{
	struct rsw_redirect *redirect;

	redirect = kzalloc(sizeof(*redirect), GFP_KERNEL);
	if (!redirect)
		return NULL;
	redirect->target = target;
	redirect->vid = vid;
	return redirect;
}

void rsw_redirect_free_rcu(struct rsw_redirect *redirect)
{
	if (redirect)
		kfree_rcu(redirect, rcu);
}

struct rsw_redirect *rsw_redirect_swap(struct rsw_vport *vport,
				       struct rsw_redirect *redirect)
{
	struct rsw_redirect *old = rsw_deref(vport->redirect);

	rsw_assert_locked();

	rcu_assign_pointer(vport->redirect, redirect);
	vport->dp->n_redirects += !!redirect - !!old;
	return old;
}

struct rsw_vport *rsw_redirect_apply(struct rsw_vport *vport,
				     struct rsw_redirect *redirect,
				     struct sk_buff *skb)
{
	/* Actions leave skb->data at the Ethernet header (actions.c). */
	const struct ethhdr *eh = (const struct ethhdr *)skb->data;
	struct rsw_vport *target;

	/* Flooding takes these to the other host already (roam_redirect.h). */
	if (is_multicast_ether_addr(eh->h_dest))
		goto drop;
	/* Gone only between its removal and the redirect's (under
	 * rsw_mutex, while this runs under RCU).
	 */
	target = rsw_dp_port(vport->dp, redirect->target);
	if (unlikely(!target))
		goto drop;

	if (redirect->vid && !skb_vlan_tag_present(skb) &&
	    !eth_type_vlan(skb->protocol))
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), redirect->vid);

	atomic64_inc(&redirect->packets);
	atomic64_add(skb->len, &redirect->bytes);
	if (unlikely(!atomic64_read(&redirect->first_ns)))
		atomic64_cmpxchg(&redirect->first_ns, 0, ktime_get_real_ns());
	return target;

drop:
	atomic64_inc(&redirect->dropped);
	consume_skb(skb);
	return NULL;
}
