/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Redirects (roam_redirect.h): a port's output sent out of another port,
 * and the packet path's side of it.  The family that sets them is in
 * redirect_genl.c.
 */
#ifndef _RSW_REDIRECT_H
#define _RSW_REDIRECT_H

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include "vport.h"

/*
 * Published in its port's rsw_vport.redirect; replaced or removed under
 * rsw_mutex and freed a grace period later.  The counters are bumped by
 * the packet path on any CPU.
 */
struct rsw_redirect {
	struct rcu_head rcu;
	u32 target;			/* port number, in the same datapath */
	u16 vid;			/* pushed on untagged frames; 0: none */
	atomic64_t packets;
	atomic64_t bytes;
	atomic64_t dropped;
	atomic64_t first_ns;		/* 0 until the first frame */
};

/* The slow half of rsw_redirect_output(), for a redirected port. */
struct rsw_vport *rsw_redirect_apply(struct rsw_vport *vport,
				     struct rsw_redirect *redirect,
				     struct sk_buff *skb);

/**
 * rsw_redirect_output - the port an output to @vport really leaves by
 *
 * @vport itself unless it is redirected; then its target, with @skb
 * tagged as the redirect says, or NULL when the redirect dropped @skb
 * (consumed).  Packet path: RCU, bottom halves off.
 */
static inline struct rsw_vport *rsw_redirect_output(struct rsw_vport *vport,
						    struct sk_buff *skb)
{
	struct rsw_redirect *redirect = rcu_dereference(vport->redirect);

	if (likely(!redirect))
		return vport;
	return rsw_redirect_apply(vport, redirect, skb);
}

/*
 * Under rsw_mutex: give @vport @redirect (NULL removes it) and return the
 * one it replaces, which the caller frees with rsw_redirect_free_rcu()
 * once it has reported it.  Keeps the datapath's count of redirects.
 */
struct rsw_redirect *rsw_redirect_swap(struct rsw_vport *vport,
				       struct rsw_redirect *redirect);

struct rsw_redirect *rsw_redirect_alloc(u32 target, u16 vid);
void rsw_redirect_free_rcu(struct rsw_redirect *redirect);

#endif /* _RSW_REDIRECT_H */
