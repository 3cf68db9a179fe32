/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Translation between struct rsw_flow_key and nested OVS_KEY_ATTR_*
 * attributes (keys and masks), and UFID attributes.
 */
#ifndef _RSW_FLOW_NETLINK_H
#define _RSW_FLOW_NETLINK_H

#include <net/netlink.h>
#include "flow_key.h"
#include "flow_table.h"

/**
 * rsw_key_from_nlattrs - parse a flow's key and mask
 * @key_attr: OVS_FLOW_ATTR_KEY (nested OVS_KEY_ATTR_*), required
 * @mask_attr: OVS_FLOW_ATTR_MASK, or NULL for an exact match on every
 *	       field @key_attr names
 * @key: out, the key; fields not named are zero
 * @mask: out, the mask, shaped like a key; NULL for a key that only
 *	  names a flow to get or delete (then @mask_attr must be NULL)
 * @log: log why a request was refused (rate-limited)
 *
 * Enforces the ABI's rules: attribute lengths, nesting of ENCAP under a
 * VLAN, prerequisites (an L4 field needs its L3 protocol, and so on), a
 * mask never wider than its key, and an all-zero tunnel mask accepted
 * while any tunnel match is refused.  A key without @mask is held to the
 * prerequisites only: the in-tree module looks such a key up even when
 * it names more than its protocols explain (an IPv4 attribute under
 * another EtherType), and answers ENOENT.  Attributes for features this
 * datapath lacks (conntrack, MPLS, NSH, ...) get -EINVAL, the answer
 * ovs-vswitchd's probes read as "not supported".
 */
int rsw_key_from_nlattrs(const struct nlattr *key_attr,
			 const struct nlattr *mask_attr,
			 struct rsw_flow_key *key, struct rsw_flow_key *mask,
			 bool log);

/**
 * rsw_key_from_packet_nlattrs - the key of a packet userspace executes
 * @key_attr: OVS_PACKET_ATTR_KEY
 * @skb: the packet, skb->data at the Ethernet header
 * @key: out: metadata from @key_attr, packet fields from @skb
 */
int rsw_key_from_packet_nlattrs(const struct nlattr *key_attr,
				struct sk_buff *skb, struct rsw_flow_key *key,
				bool log);

/**
 * rsw_key_to_nlattrs - emit a key or a mask as a nested attribute
 * @skb: message being built
 * @attrtype: OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_MASK or OVS_PACKET_ATTR_KEY
 * @key: the flow's key; decides which attributes appear
 * @output: the values to emit: @key itself, or the mask
 *
 * Emits the same attribute set the in-tree datapath emits for the same
 * flow, so that userspace sees identical dumps.  Returns -EMSGSIZE when
 * @skb is full.
 */
int rsw_key_to_nlattrs(struct sk_buff *skb, int attrtype,
		       const struct rsw_flow_key *key,
		       const struct rsw_flow_key *output);

/* Room rsw_key_to_nlattrs() may need, for sizing messages. */
size_t rsw_key_nlattrs_size(void);

/*
 * OVS_FLOW_ATTR_UFID: 1 to 16 bytes.  @attr NULL gives id->len 0, and so
 * does a UFID longer than 16 bytes (the in-tree datapath then names the
 * flow by its key); an empty one is -EINVAL.  rsw_ufid_to_nlattr() emits
 * nothing for id->len 0.
 */
int rsw_ufid_from_nlattr(const struct nlattr *attr, struct rsw_flow_id *id,
			 bool log);
int rsw_ufid_to_nlattr(struct sk_buff *skb, const struct rsw_flow_id *id);
/* OVS_FLOW_ATTR_UFID_FLAGS, 0 when absent. */
u32 rsw_ufid_flags(const struct nlattr *attr);

#endif /* _RSW_FLOW_NETLINK_H */
