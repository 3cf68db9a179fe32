// SPDX-License-Identifier: GPL-2.0
/*
 * Devices under our vports going away.  The notifier runs under RTNL and
 * may not take rsw_mutex (see DOC: Locking), so it only unhooks a netdev
 * port from its device there; removing dead ports from their datapaths and
 * telling userspace happens in a work item that takes rsw_mutex.
 *
 * Our reference on the device holds its unregistration in
 * netdev_run_todo() until that work has removed the port and a grace
 * period has passed, so the work always runs before the device is freed.
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "datapath.h"
#include "dev_notifier.h"
#include "vport.h"
#include "vport_genl.h"

/*
 * A port whose device is gone from under it: a netdev port the notifier
 * detached (the device is unregistering or left the namespace), or an
 * internal port whose device is unregistering.  Moving an internal device
 * to another namespace leaves it a port, as other kernels do.
 */
static bool port_is_dead(const struct rsw_vport *vport)
{
	const struct net_device *dev = vport->dev;

	if (READ_ONCE(dev->reg_state) != NETREG_REGISTERED)
		return true;
	return vport->ops->type == OVS_VPORT_TYPE_NETDEV &&
	       !netif_is_ovs_port(dev);
}

/* Remove @vport and announce it on the vport multicast group. */
static void reap_port(struct rsw_vport *vport)
{
	struct rsw_datapath *dp = vport->dp;
	struct net *net = rsw_dp_net(dp);
	struct sk_buff *msg;

	msg = rsw_vport_cmd_build_info(vport, net, 0, 0, OVS_VPORT_CMD_DEL);
	rsw_dp_del_port(vport);
	if (IS_ERR(msg)) {
		genl_set_err(&rsw_vport_family, net, 0, 0, PTR_ERR(msg));
		return;
	}
	genlmsg_multicast_netns(&rsw_vport_family, net, msg, 0, 0, GFP_KERNEL);
}

/* Find one dead port in any namespace; under rsw_mutex and net_rwsem. */
static struct rsw_vport *find_dead_port(void)
{
	struct rsw_datapath *dp;
	struct rsw_vport *vport;
	unsigned long port_no;
	struct rsw_net *rn;
	struct net *net;

	rsw_assert_locked();
	lockdep_assert_held(&net_rwsem);
	for_each_net(net) {
		rn = net_generic(net, rsw_net_id);
		list_for_each_entry(dp, &rn->datapaths, node)
			xa_for_each(&dp->ports, port_no, vport)
				if (port_is_dead(vport))
					return vport;
	}
	return NULL;
}

static void reap_work_fn(struct work_struct *work)
{
	struct rsw_vport *vport;

	mutex_lock(&rsw_mutex);
	/* Removing a port takes RTNL, which must not nest inside net_rwsem:
	 * search under it, then act outside it.  rsw_mutex keeps what was
	 * found alive in between.  Dead ports are rare; rescanning is cheap.
	 */
	for (;;) {
		down_read(&net_rwsem);
		vport = find_dead_port();
		up_read(&net_rwsem);
		if (!vport)
			break;
		/* Without its local port a datapath cannot work at all. */
		if (vport->port_no == OVSP_LOCAL)
			rsw_dp_destroy(vport->dp);
		else
			reap_port(vport);
	}
	mutex_unlock(&rsw_mutex);
}

static DECLARE_WORK(reap_work, reap_work_fn);

/*
 * Set at unload: unregistering the notifier replays NETDEV_UNREGISTER for
 * every device, which must not be taken for real.  Destroying the
 * datapaths right after detaches everything anyway.
 */
static bool unloading;

static int dev_event(struct notifier_block *nb, unsigned long event,
		     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct rsw_vport *vport;

	if (event != NETDEV_UNREGISTER || unloading)
		return NOTIFY_DONE;

	/* Under RTNL: a vport found here is still hooked to @dev, so it and
	 * its datapath are alive.
	 */
	vport = rsw_vport_from_dev(dev);
	if (!vport)
		return NOTIFY_DONE;

	if (rsw_is_internal_dev(dev)) {
		/* Only a namespace change; the port stays. */
		if (dev->reg_state == NETREG_REGISTERED)
			return NOTIFY_DONE;
	} else {
		/* Stop traffic and free the device of its master now. */
		rsw_netdev_vport_detach(vport);
	}
	queue_work(system_wq, &reap_work);
	return NOTIFY_DONE;
}

static struct notifier_block dev_nb = {
	.notifier_call = dev_event,
};

int rsw_dev_notifier_init(void)
{
	return register_netdevice_notifier(&dev_nb);
}

void rsw_dev_notifier_uninit(void)
{
	/* Under RTNL, so the notifier sees it at its next call. */
	rtnl_lock();
	unloading = true;
	rtnl_unlock();
	unregister_netdevice_notifier(&dev_nb);
	/* The families are gone, so no notifications can be sent: leave
	 * ports already detached to the datapaths' destruction, which
	 * follows.
	 */
	cancel_work_sync(&reap_work);
}
