// SPDX-License-Identifier: GPL-2.0
/*
 * Frames held for a port whose device is between two qdiscs (txhold.h).
 */

#include <linux/jiffies.h>
#include <net/sch_generic.h>
#include "txhold.h"

/* How long a device may stay without a qdisc before its frames go. */
#define TXHOLD_MAX_WAIT		HZ
/*
 * Held frames at most: the device's txqueuelen, within these bounds (a
 * migrated guest's tap has 8,192; a swap takes milliseconds).
 */
#define TXHOLD_MIN_FRAMES	64
#define TXHOLD_MAX_FRAMES	1024

/*
 * dev_deactivate() gives every transmit queue noop_qdisc until
 * dev_activate() puts the real one back.  The queues change together:
 * the first tells.
 */
static bool txhold_no_qdisc(const struct net_device *dev)
{
	return rcu_access_pointer(netdev_get_tx_queue(dev, 0)->qdisc) ==
	       &noop_qdisc;
}

/*
 * A device that is down or has no carrier keeps noop_qdisc for as long
 * as that lasts, and what is sent to it is dropped, as it always was:
 * holding it would only delay the drop and keep the timer running.  A
 * running device with carrier has noop_qdisc only while its qdisc is
 * swapped, or until linkwatch activates it after carrier-on: that is
 * worth waiting for.
 */
static bool txhold_between_qdiscs(const struct net_device *dev)
{
	return txhold_no_qdisc(dev) && netif_running(dev) &&
	       netif_carrier_ok(dev);
}

static unsigned int txhold_limit(const struct net_device *dev)
{
	return clamp_t(unsigned int, READ_ONCE(dev->tx_queue_len),
		       TXHOLD_MIN_FRAMES, TXHOLD_MAX_FRAMES);
}

/* Under hold->lock. */
static void txhold_drop_all(struct rsw_txhold *hold)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&hold->frames))) {
		dev_core_stats_tx_dropped_inc(hold->dev);
		kfree_skb(skb);
	}
}

/*
 * Send what is held, oldest first, once the device has its qdisc back.
 * The lock is dropped around each send: a frame that comes meanwhile
 * joins the queue behind the rest (rsw_txhold_take()).
 */
static void txhold_flush(struct timer_list *timer)
{
	struct rsw_txhold *hold = from_timer(hold, timer, timer);
	struct sk_buff *skb;

	spin_lock_bh(&hold->lock);
	if (hold->closing)
		goto out;
	if (txhold_no_qdisc(hold->dev)) {
		/* gone down or lost its carrier meanwhile: no qdisc soon */
		if (txhold_between_qdiscs(hold->dev) &&
		    time_before(jiffies, hold->deadline))
			mod_timer(&hold->timer, jiffies + 1);
		else
			txhold_drop_all(hold);
		goto out;
	}
	while ((skb = __skb_dequeue(&hold->frames))) {
		spin_unlock_bh(&hold->lock);
		dev_queue_xmit(skb);
		spin_lock_bh(&hold->lock);
	}
out:
	spin_unlock_bh(&hold->lock);
}

bool rsw_txhold_take(struct rsw_txhold *hold, struct sk_buff *skb)
{
	struct net_device *dev = hold->dev;

	if (likely(!txhold_between_qdiscs(dev) &&
		   skb_queue_empty_lockless(&hold->frames)))
		return false;

	spin_lock_bh(&hold->lock);
	if (hold->closing ||
	    (!txhold_between_qdiscs(dev) && skb_queue_empty(&hold->frames))) {
		spin_unlock_bh(&hold->lock);
		return false;
	}
	if (skb_queue_len(&hold->frames) >= txhold_limit(dev)) {
		spin_unlock_bh(&hold->lock);
		dev_core_stats_tx_dropped_inc(dev);
		kfree_skb(skb);
		return true;
	}
	if (skb_queue_empty(&hold->frames)) {
		hold->deadline = jiffies + TXHOLD_MAX_WAIT;
		mod_timer(&hold->timer, jiffies + 1);
	}
	__skb_queue_tail(&hold->frames, skb);
	spin_unlock_bh(&hold->lock);
	return true;
}

void rsw_txhold_init(struct rsw_txhold *hold, struct net_device *dev)
{
	hold->dev = dev;
	spin_lock_init(&hold->lock);
	__skb_queue_head_init(&hold->frames);
	hold->closing = false;
	timer_setup(&hold->timer, txhold_flush, 0);
}

void rsw_txhold_uninit(struct rsw_txhold *hold)
{
	spin_lock_bh(&hold->lock);
	hold->closing = true;
	txhold_drop_all(hold);
	spin_unlock_bh(&hold->lock);
	/* closing keeps a running flush from arming it again */
	del_timer_sync(&hold->timer);
}
