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

static void internal_setup(struct net_device *dev)
{
	ether_setup(dev);

	dev->netdev_ops = &internal_netdev_ops;
	dev->ethtool_ops = &internal_ethtool_ops;
	dev->rtnl_link_ops = &internal_link_ops;
	dev->needs_free_netdev = true;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	dev->max_mtu = ETH_MAX_MTU;

	/* No qdisc: the datapath is the queue.  Packets must not be shared
	 * because the datapath edits them.
	 */
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_OPENVSWITCH |
			   IFF_NO_QUEUE;

	/* Offloads survive the datapath untouched and are resolved on the
	 * port a packet finally leaves by, so offer all the software ones.
	 */
	dev->features = NETIF_F_LLTX | NETIF_F_SG | NETIF_F_FRAGLIST |
			NETIF_F_HIGHDMA | NETIF_F_HW_CSUM |
			NETIF_F_GSO_SOFTWARE | NETIF_F_GSO_ENCAP_ALL;
	dev->vlan_features = dev->features;
	dev->hw_enc_features = dev->features;
	dev->features |= NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_STAG_TX;
	dev->hw_features = dev->features & ~NETIF_F_LLTX;

	eth_hw_addr_random(dev);
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

	vport = rsw_vport_alloc(0, &rsw_internal_vport_ops, parms);
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

/* The datapath sends a packet to the host: it arrives on the device. */
static void internal_send(struct rsw_vport *vport, struct sk_buff *skb)
{
	struct net_device *dev = vport->dev;

	if (unlikely(!(dev->flags & IFF_UP))) {
		DEV_STATS_INC(dev, rx_dropped);
		kfree_skb(skb);
		return;
	}

	/* Nothing from the path it came by applies on the way up. */
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	secpath_reset(skb);

	skb->pkt_type = PACKET_HOST;
	skb->protocol = eth_type_trans(skb, dev);
	skb_postpull_rcsum(skb, eth_hdr(skb), ETH_HLEN);
	dev_sw_netstats_rx_add(dev, skb->len);
	netif_rx(skb);
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
