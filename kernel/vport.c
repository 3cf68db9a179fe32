// SPDX-License-Identifier: GPL-2.0
/*
 * What every vport shares whatever its kind: allocation and lifetime, the
 * upcall PIDs, statistics, and the two halves of the packet path (a packet
 * entering the datapath from a port, and one leaving through it).
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include "datapath.h"
#include "flow_key.h"
#include "vport.h"

struct rsw_vport *rsw_vport_alloc(const struct rsw_vport_ops *ops,
				  const struct rsw_vport_parms *parms)
{
	struct rsw_vport *vport;
	int err;

	vport = kzalloc(sizeof(*vport), GFP_KERNEL);
	if (!vport)
		return ERR_PTR(-ENOMEM);
	vport->dp = parms->dp;
	vport->port_no = parms->port_no;
	vport->ops = ops;

	err = rsw_vport_set_upcall_pids(vport, parms->upcall_pids);
	if (err) {
		kfree(vport);
		return ERR_PTR(err);
	}
	return vport;
}

void rsw_vport_free(struct rsw_vport *vport)
{
	if (vport->dev)
		netdev_put(vport->dev, &vport->dev_tracker);
	kfree(rcu_dereference_raw(vport->upcall_pids));
	/* Removed, and announced, before the port went (redirect_genl.h). */
	if (WARN_ON_ONCE(rcu_access_pointer(vport->redirect)))
		kfree(rcu_dereference_raw(vport->redirect));
	kfree(vport);
}

static void vport_free_rcu(struct rcu_head *rcu)
{
	rsw_vport_free(container_of(rcu, struct rsw_vport, rcu));
}

void rsw_vport_free_rcu(struct rsw_vport *vport)
{
	call_rcu(&vport->rcu, vport_free_rcu);
}

struct rsw_vport *rsw_vport_create(const struct rsw_vport_parms *parms)
{
	rsw_assert_locked();

	switch (parms->type) {
	case OVS_VPORT_TYPE_NETDEV:
		return rsw_netdev_vport_ops.create(parms);
	case OVS_VPORT_TYPE_INTERNAL:
		return rsw_internal_vport_ops.create(parms);
	default:
		/* Tunnels and unknown types: what a kernel answers when no
		 * module provides the type, which userspace reads as "not
		 * supported".
		 */
		return ERR_PTR(-EAFNOSUPPORT);
	}
}

void rsw_vport_destroy(struct rsw_vport *vport)
{
	rsw_assert_locked();
	vport->ops->destroy(vport);
}

struct rsw_vport *rsw_vport_from_dev(const struct net_device *dev)
{
	if (rsw_is_internal_dev(dev))
		return rsw_internal_dev_vport(dev);
	/* Only we set this flag (the in-tree module cannot be loaded next to
	 * us), and it is cleared only after the rx handler is gone.
	 */
	if (netif_is_ovs_port(dev))
		return rcu_dereference_rtnl(dev->rx_handler_data);
	return NULL;
}

int rsw_vport_set_upcall_pids(struct rsw_vport *vport,
			      const struct nlattr *pids)
{
	struct rsw_upcall_pids *new, *old;
	u32 n;

	/* A port created without a PID (a datapath's local port when
	 * userspace gave none) sends its misses nowhere.
	 */
	if (!pids) {
		n = 1;
	} else {
		if (!nla_len(pids) || nla_len(pids) % sizeof(u32))
			return -EINVAL;
		n = nla_len(pids) / sizeof(u32);
		if (n > nr_cpu_ids)
			return -EINVAL;
	}

	new = kzalloc(struct_size(new, ids, n), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->n = n;
	if (pids)
		nla_memcpy(new->ids, pids, n * sizeof(u32));

	old = rsw_deref(vport->upcall_pids);
	rcu_assign_pointer(vport->upcall_pids, new);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

int rsw_vport_put_upcall_pids(const struct rsw_vport *vport,
			      struct sk_buff *skb)
{
	const struct rsw_upcall_pids *pids;

	pids = rsw_deref_any(vport->upcall_pids);
	/* Userspace that never asked for PID arrays gets the single u32 it
	 * understands.
	 */
	if (READ_ONCE(vport->dp->user_features) & OVS_DP_F_VPORT_PIDS)
		return nla_put(skb, OVS_VPORT_ATTR_UPCALL_PID,
			       pids->n * sizeof(u32), pids->ids);
	return nla_put_u32(skb, OVS_VPORT_ATTR_UPCALL_PID, pids->ids[0]);
}

u32 rsw_vport_upcall_pid(const struct rsw_vport *vport, struct sk_buff *skb)
{
	const struct rsw_upcall_pids *pids;

	pids = rcu_dereference(vport->upcall_pids);
	if (likely(pids->n == 1))
		return pids->ids[0];
	/* Spread flows over the handler sockets, keeping each flow on one. */
	return pids->ids[reciprocal_scale(skb_get_hash(skb), pids->n)];
}

void rsw_vport_get_stats(struct rsw_vport *vport,
			 struct ovs_vport_stats *stats)
{
	const struct rtnl_link_stats64 *ds;
	struct rtnl_link_stats64 tmp;

	ds = dev_get_stats(vport->dev, &tmp);
	stats->rx_packets = ds->rx_packets;
	stats->tx_packets = ds->tx_packets;
	stats->rx_bytes = ds->rx_bytes;
	stats->tx_bytes = ds->tx_bytes;
	stats->rx_errors = ds->rx_errors;
	stats->tx_errors = ds->tx_errors;
	stats->rx_dropped = ds->rx_dropped;
	stats->tx_dropped = ds->tx_dropped;
}

/*
 * The longest frame @dev takes from the datapath, GSO packets aside (they
 * are cut to size later): the MTU past the device's own header, with room
 * on top for one 802.1Q tag still in the frame, as Ethernet drivers allow.
 * A second (802.1ad) tag gets no such room, since few drivers give it.  A
 * packet reassembled from fragments, @mru set, must fit the largest of
 * them as well: it cannot be split again here, as that takes conntrack.
 */
static unsigned int frame_limit(const struct sk_buff *skb,
				const struct net_device *dev, u16 mru)
{
	unsigned int limit = dev->hard_header_len + dev->mtu;

	if (!skb_vlan_tag_present(skb) && eth_type_vlan(skb->protocol))
		limit += VLAN_HLEN;
	if (mru)
		limit = min_t(unsigned int, limit,
			      dev->hard_header_len + mru);
	return limit;
}

void rsw_vport_send(struct rsw_vport *vport, struct sk_buff *skb, u16 mru)
{
	struct net_device *dev = vport->dev;
	unsigned int limit;

	/* Frames leave as they came in: by Ethernet devices only. */
	if (unlikely(dev->type != ARPHRD_ETHER)) {
		kfree_skb(skb);
		return;
	}

	limit = frame_limit(skb, dev, mru);
	if (unlikely(skb->len > limit && !skb_is_gso(skb))) {
		DEV_STATS_INC(dev, tx_errors);
		/* A device that is down drops everything anyway. */
		if (dev->flags & IFF_UP)
			net_warn_ratelimited("%s: not sending a %u-byte frame, the port takes %u\n",
					     dev->name, skb->len, limit);
		kfree_skb(skb);
		return;
	}

	skb->dev = dev;
	skb_clear_tstamp(skb);
	vport->ops->send(vport, skb);
}

void rsw_vport_receive(struct rsw_vport *vport, struct sk_buff *skb)
{
	struct rsw_flow_key key;

	RSW_CB(skb)->input_vport = vport;
	RSW_CB(skb)->mru = 0;
	RSW_CB(skb)->acts_origlen = 0;
	RSW_CB(skb)->cutlen = 0;
	RSW_CB(skb)->hash_due = false;

	/* An internal device moved to another namespace: the packet crosses
	 * into the datapath's, so it keeps nothing of the other but its mark.
	 */
	if (unlikely(!net_eq(dev_net(skb->dev), rsw_dp_net(vport->dp)))) {
		u32 mark = skb->mark;

		skb_scrub_packet(skb, true);
		skb->mark = mark;
	}

	if (unlikely(rsw_flow_key_extract(skb, vport->port_no, &key))) {
		kfree_skb(skb);
		return;
	}
	rsw_dp_process_packet(skb, &key);
}

int rsw_vport_init(void)
{
	return rsw_internal_vport_init();
}

void rsw_vport_uninit(void)
{
	rsw_internal_vport_uninit();
}
