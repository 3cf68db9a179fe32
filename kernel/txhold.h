/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames held for a port whose device is between two qdiscs.
 *
 * While the kernel swaps a device's queueing discipline (any qdisc
 * change on it, egress or ingress, and a txqueuelen change), and until
 * linkwatch activates a device whose carrier just came on, its transmit
 * queues have noop_qdisc: dev_queue_xmit() then drops every frame and
 * counts none.  ovs-vswitchd sets a port's ingress policing by removing
 * and adding the ingress qdisc, and does it again after every link
 * notification of the device, such as the offload change QEMU makes on a
 * migrated guest's tap as its state loads: each time, what the switch
 * sends the guest in the meantime is lost.  A switch port should not
 * lose frames because its configuration is being rewritten, so a netdev
 * port holds them instead, in order, and sends them once the device has
 * a qdisc again: within a second, and at most as many as its txqueuelen
 * (64 to 1,024), or they are dropped and counted as the device's
 * tx_dropped.  A device that is down or has lost its carrier is not
 * waited for: what is sent to it then is dropped, as it always was, and
 * what was held when that happened is dropped and counted.
 */
#ifndef _RSW_TXHOLD_H
#define _RSW_TXHOLD_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct rsw_txhold {
	struct net_device *dev;
	/* Protects frames, deadline and closing; taken with bottom halves
	 * off, by the packet path and by the timer.
	 */
	spinlock_t lock;
	struct sk_buff_head frames;	/* oldest first; its own lock unused */
	unsigned long deadline;		/* jiffies: drop what is held then */
	bool closing;			/* the port is going: hold nothing */
	struct timer_list timer;	/* armed while frames are held */
};

void rsw_txhold_init(struct rsw_txhold *hold, struct net_device *dev);
/* Process context: drops what is held and stops the timer for good. */
void rsw_txhold_uninit(struct rsw_txhold *hold);

/* Hold @skb (consumed) if the device has no qdisc or frames are held
 * already, so that none overtakes another; false: send it now.  Packet
 * path: RCU, bottom halves off.
 */
bool rsw_txhold_take(struct rsw_txhold *hold, struct sk_buff *skb);

#endif /* _RSW_TXHOLD_H */
