/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow actions: validating and storing userspace's action lists, giving
 * them back, and executing them on packets.
 */
#ifndef _RSW_ACTIONS_H
#define _RSW_ACTIONS_H

#include <net/netlink.h>
#include "flow_key.h"

struct rsw_datapath;

/*
 * A validated action list.  @actions is in this module's own internal
 * form (for instance every set is stored masked), which only this file's
 * functions read or write.
 */
struct rsw_flow_actions {
	struct rcu_head rcu;
	u32 len;		/* bytes used in @actions */
	u32 orig_len;		/* bytes of the list userspace sent */
	struct nlattr actions[];
};

/* Deepest nesting of sample, clone and dec_ttl lists we accept. */
#define RSW_ACTIONS_MAX_DEPTH 16

/**
 * rsw_actions_from_nlattr - validate and copy an action list
 * @attr: OVS_FLOW_ATTR_ACTIONS or OVS_PACKET_ATTR_ACTIONS
 * @key: the flow's (masked) key, checked against what each action needs
 *	 (a set of IPv4 fields needs an IPv4 flow, and so on)
 * @acts: out, on success
 *
 * Malformed lists (bad lengths, unknown types, a set on a field the flow
 * does not have) get -EINVAL; unsupported features (ct, meters, tunnels,
 * MPLS, NSH, check_pkt_len) also get -EINVAL, never a crash.  Each refusal
 * is logged unless @log is false (feature probes).  Nesting deeper than
 * RSW_ACTIONS_MAX_DEPTH gets -EOVERFLOW, as from the in-tree datapath.
 * Allocates with GFP_KERNEL: call it outside RCU read sections.
 */
int rsw_actions_from_nlattr(const struct nlattr *attr,
			    const struct rsw_flow_key *key,
			    struct rsw_flow_actions **acts, bool log);

/* Emit @acts as userspace sent it, nested in @attrtype. */
int rsw_actions_to_nlattr(struct sk_buff *skb, int attrtype,
			  const struct rsw_flow_actions *acts);
/* The same for a nested list: @len bytes at @list, in internal form. */
int rsw_actions_list_to_nlattr(struct sk_buff *skb, int attrtype,
			       const struct nlattr *list, int len);

void rsw_actions_free(struct rsw_flow_actions *acts);
/* Free after a grace period, for lists readers may still be running. */
void rsw_actions_free_rcu(struct rsw_flow_actions *acts);

/**
 * rsw_actions_execute - run an action list on a packet
 * @dp: the datapath, under RCU
 * @skb: consumed, always
 * @acts: the list
 * @key: the packet's key; updated as actions change the packet.  It is
 *	 the callee's to change: callers must not rely on it afterwards.
 *
 * Packet path, under RCU with bottom halves disabled (asserted): no
 * allocation except for copies that output, clone and sample need, for
 * upcalls, and for headers made writable.  Recirculation re-enters
 * rsw_dp_process_packet(), directly or, deep in nested executions, from
 * the outermost one once its list is done.
 */
int rsw_actions_execute(struct rsw_datapath *dp, struct sk_buff *skb,
			const struct rsw_flow_actions *acts,
			struct rsw_flow_key *key);

int rsw_actions_init(void);
void rsw_actions_uninit(void);

#endif /* _RSW_ACTIONS_H */
