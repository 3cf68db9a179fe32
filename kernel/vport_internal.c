// SPDX-License-Identifier: GPL-2.0
/*
 * Internal vports: a net_device we create whose transmit side feeds the
 * datapath and whose receive side is fed by it, so the host stack sits on
 * the switch like any other port.  Port 0 of every datapath is one, named
 * after the datapath.
 */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/rtnetlink.h>
#include <net/xfrm.h>
#include "datapath.h"
#include "vport.h"

/* netdev_priv() of an internal device. */
struct internal_dev {
	/* Cleared before the device is unregistered; RCU for the xmit path. */
	struct rsw_vport __rcu *vport;
};

static struct rtnl_link_ops internal_link_ops __read_mostly = {
	/* What "ip -d link" shows, the same as for other kernels' ports. */
	.kind = "openvswitch",
};

/* Called with BH disabled under rcu_read_lock_bh, as every ndo_start_xmit. */
static netdev_tx_t internal_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct internal_dev *priv = netdev_priv(dev);
	unsigned int len = skb->len;
	struct rsw_vport *vport;

	rcu_read_lock();
	vport = rcu_dereference(priv->vport);
	if (unlikely(!vport)) {
		rcu_read_unlock();
		DEV_STATS_INC(dev, tx_dropped);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	/* The stack hands us the frame at its Ethernet header. */
	skb_reset_mac_header(skb);
	rsw_vport_receive(vport, skb);
	rcu_read_unlock();

	dev_sw_netstats_tx_add(dev, 1, len);
	return NETDEV_TX_OK;
}

static int internal_open(struct net_device *dev)
{
	netif_start_queue(dev);
	return 0;
}

static int internal_stop(struct net_device *dev)
{
	netif_stop_queue(dev);
	return 0;
}

static const struct net_device_ops internal_netdev_ops = {
	.ndo_open = internal_open,
	.ndo_stop = internal_stop,
	.ndo_start_xmit = internal_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_get_stats64 = dev_get_tstats64,
};

static void internal_get_drvinfo(struct net_device *dev,
				 struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "openvswitch", sizeof(info->driver));
}

static const struct ethtool_ops internal_ethtool_ops = {
	.get_drvinfo = internal_get_drvinfo,
	.get_link = ethtool_op_get_link,
};

/*
 * What an internal device offers the stack.  A packet it transmits crosses
 * the datapath with its offloads pending, and they are resolved by the
 * port it finally leaves by: so it takes every offload done in software,
 * scatter-gather and any checksum, for plain, VLAN and encapsulated
 * packets alike.  Transmit needs no lock (LLTX): the datapath is the
 * queue.  Userspace may turn any of these off but LLTX, and may leave VLAN
 * tags in the metadata or not.
 */
#define INTERNAL_OFFLOADS						\
	(NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HIGHDMA | NETIF_F_HW_CSUM | \
	 NETIF_F_GSO_SOFTWARE | NETIF_F_GSO_ENCAP_ALL | NETIF_F_LLTX)
#define INTERNAL_VLAN_TX (NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_STAG_TX)

static void internal_setup(struct net_device *dev)
{
	ether_setup(dev);
	eth_hw_addr_random(dev);
	dev->max_mtu = ETH_MAX_MTU;

	dev->features = INTERNAL_OFFLOADS | INTERNAL_VLAN_TX;
	dev->hw_features = dev->features & ~NETIF_F_LLTX;
	dev->vlan_features = INTERNAL_OFFLOADS;
	dev->hw_enc_features = INTERNAL_OFFLOADS;

	/* No qdisc, the datapath being the queue, and no shared skbs, since
	 * the datapath edits the packets it is given.
	 */
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_OPENVSWITCH |
			   IFF_NO_QUEUE;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;

	dev->netdev_ops = &internal_netdev_ops;
	dev->ethtool_ops = &internal_ethtool_ops;
	dev->rtnl_link_ops = &internal_link_ops;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	dev->needs_free_netdev = true;
}

bool rsw_is_internal_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &internal_netdev_ops;
}

struct rsw_vport *rsw_internal_dev_vport(const struct net_device *dev)
{
	const struct internal_dev *priv = netdev_priv(dev);

	return rcu_dereference_check(priv->vport,
				     lockdep_rtnl_is_held() ||
				     lockdep_is_held(&rsw_mutex));
}

static struct rsw_vport *internal_create(const struct rsw_vport_parms *parms)
{
	struct internal_dev *priv;
	struct rsw_vport *vport;
	struct net_device *dev;
	int err;

	vport = rsw_vport_alloc(&rsw_internal_vport_ops, parms);
	if (IS_ERR(vport))
		return vport;

	dev = alloc_netdev(sizeof(*priv), parms->name, NET_NAME_USER,
			   internal_setup);
	if (!dev) {
		err = -ENOMEM;
		goto err_free_vport;
	}
	dev_net_set(dev, rsw_dp_net(parms->dp));
	dev->ifindex = parms->desired_ifindex;
	/* The local port stays with its datapath's namespace. */
	if (parms->port_no == OVSP_LOCAL)
		dev->features |= NETIF_F_NETNS_LOCAL;
	priv = netdev_priv(dev);
	RCU_INIT_POINTER(priv->vport, vport);

	rtnl_lock();
	err = register_netdevice(dev);
	if (err)
		goto err_unlock;
	netdev_hold(dev, &vport->dev_tracker, GFP_KERNEL);
	vport->dev = dev;
	dev_set_promiscuity(dev, 1);
	rtnl_unlock();
	netif_start_queue(dev);
	return vport;

err_unlock:
	rtnl_unlock();
	free_netdev(dev);
err_free_vport:
	rsw_vport_free(vport);
	return ERR_PTR(err);
}

static void internal_destroy(struct rsw_vport *vport)
{
	struct net_device *dev = vport->dev;
	struct internal_dev *priv = netdev_priv(dev);

	rtnl_lock();
	/* From now on the device feeds nothing and the notifier ignores it. */
	RCU_INIT_POINTER(priv->vport, NULL);
	/* The device may be going away on its own (its namespace died). */
	if (dev->reg_state == NETREG_REGISTERED) {
		dev_set_promiscuity(dev, -1);
		unregister_netdevice(dev);
	}
	/* rtnl_unlock() waits for the device's references to drop, ours
	 * included, so the release must be queued before it.
	 */
	rsw_vport_free_rcu(vport);
	rtnl_unlock();
}

/*
 * Forget where a packet has been before the host receives it: the route,
 * conntrack entry and IPsec state it picked up on another device mean
 * nothing on this one.  The mark and priority a flow gave it stay, and so
 * does everything else; the type is recomputed by eth_type_trans() against
 * this device's address, which the host is.
 */
static void reset_for_host(struct sk_buff *skb)
{
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	secpath_reset(skb);
	skb->pkt_type = PACKET_HOST;
}

/*
 * Output to an internal port is input to the host: the frame arrives on
 * the device, through the backlog like any other received frame.  Counted
 * as received, as the host sees it; a device that is down drops it.
 */
static void internal_send(struct rsw_vport *vport, struct sk_buff *skb)
{
	struct net_device *dev = vport->dev;

	if (likely(dev->flags & IFF_UP)) {
		reset_for_host(skb);
		skb->protocol = eth_type_trans(skb, dev);
		/* eth_type_trans() pulled the header off skb->csum's span. */
		skb_postpull_rcsum(skb, eth_hdr(skb), ETH_HLEN);
		dev_sw_netstats_rx_add(dev, skb->len);
		netif_rx(skb);
		return;
	}
	DEV_STATS_INC(dev, rx_dropped);
	kfree_skb(skb);
}

const struct rsw_vport_ops rsw_internal_vport_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.create = internal_create,
	.destroy = internal_destroy,
	.send = internal_send,
};

int rsw_internal_vport_init(void)
{
	return rtnl_link_register(&internal_link_ops);
}

void rsw_internal_vport_uninit(void)
{
	rtnl_link_unregister(&internal_link_ops);
}
