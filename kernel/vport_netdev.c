// SPDX-License-Identifier: GPL-2.0
/*
 * Netdev vports: an existing Ethernet device becomes a datapath port.  Its
 * received frames are taken from the stack by an rx handler, and it shows
 * as a slave of the datapath's local device.
 */

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include "datapath.h"
#include "vport.h"

/* Under rcu_read_lock with BH disabled, as every rx handler. */
static rx_handler_result_t netdev_rx(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct rsw_vport *vport;

	/* Our own transmissions looped back by the stack are not input. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;

	vport = rcu_dereference(skb->dev->rx_handler_data);
	if (unlikely(!vport || skb_warn_if_lro(skb))) {
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}

	/* Taps (AF_PACKET) may share the skb; the datapath edits it. */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb))
		return RX_HANDLER_CONSUMED;

	/* The stack already pulled the Ethernet header; flows see it. */
	skb_push_rcsum(skb, ETH_HLEN);
	rsw_vport_receive(vport, skb);
	return RX_HANDLER_CONSUMED;
}

static struct rsw_vport *netdev_create(const struct rsw_vport_parms *parms)
{
	struct rsw_vport *local, *vport;
	struct net_device *dev;
	int err;

	vport = rsw_vport_alloc(&rsw_netdev_vport_ops, parms);
	if (IS_ERR(vport))
		return vport;

	dev = dev_get_by_name(rsw_dp_net(parms->dp), parms->name);
	if (!dev) {
		err = -ENODEV;
		goto err_free_vport;
	}
	vport->dev = dev;
	netdev_tracker_alloc(dev, &vport->dev_tracker, GFP_KERNEL);
	rsw_txhold_init(&vport->hold, dev);

	/* Only plain Ethernet devices; never one of our own ports. */
	if (dev->flags & IFF_LOOPBACK || dev->type != ARPHRD_ETHER ||
	    rsw_is_internal_dev(dev)) {
		err = -EINVAL;
		goto err_free_vport;
	}

	local = rsw_dp_local_port(parms->dp);
	if (!local) {
		err = -ENODEV;
		goto err_free_vport;
	}

	rtnl_lock();
	/* A device already enslaved (bridge, bond, another datapath)
	 * refuses a second master with -EBUSY.
	 */
	err = netdev_master_upper_dev_link(dev, local->dev, NULL, NULL, NULL);
	if (err)
		goto err_unlock;
	err = netdev_rx_handler_register(dev, netdev_rx, vport);
	if (err)
		goto err_unlink;
	dev_disable_lro(dev);
	dev_set_promiscuity(dev, 1);
	dev->priv_flags |= IFF_OVS_DATAPATH;
	rtnl_unlock();
	return vport;

err_unlink:
	netdev_upper_dev_unlink(dev, local->dev);
err_unlock:
	rtnl_unlock();
err_free_vport:
	rsw_vport_free(vport);
	return ERR_PTR(err);
}

void rsw_netdev_vport_detach(struct rsw_vport *vport)
{
	struct net_device *dev = vport->dev;
	struct net_device *master;

	ASSERT_RTNL();
	if (!netif_is_ovs_port(dev))
		return;

	netdev_rx_handler_unregister(dev);
	master = netdev_master_upper_dev_get(dev);
	if (master)
		netdev_upper_dev_unlink(dev, master);
	dev_set_promiscuity(dev, -1);
	dev->priv_flags &= ~IFF_OVS_DATAPATH;
	/* the device may be going: what it would have sent goes now */
	rsw_txhold_uninit(&vport->hold);
}

static void netdev_destroy(struct rsw_vport *vport)
{
	/* The device notifier may have detached it already. */
	rtnl_lock();
	rsw_netdev_vport_detach(vport);
	rtnl_unlock();

	/* Receivers that found the vport through the rx handler are done
	 * after a grace period; then the device reference can go.
	 */
	rsw_vport_free_rcu(vport);
}

static void netdev_send(struct rsw_vport *vport, struct sk_buff *skb)
{
	if (!rsw_txhold_take(&vport->hold, skb))
		dev_queue_xmit(skb);
}

const struct rsw_vport_ops rsw_netdev_vport_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.create = netdev_create,
	.destroy = netdev_destroy,
	.send = netdev_send,
};
