/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Vports: the datapath's ports.  Each is backed by a net_device: an
 * existing one we attach to (netdev) or one we create (internal).
 */
#ifndef _RSW_VPORT_H
#define _RSW_VPORT_H

#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/rcupdate.h>
#include "txhold.h"

struct rsw_datapath;
struct rsw_redirect;

/* Where upcalls for packets from this port go: one PID, or spread. */
struct rsw_upcall_pids {
	struct rcu_head rcu;
	u32 n;
	u32 ids[];
};

struct rsw_vport_parms {
	const char *name;
	enum ovs_vport_type type;
	struct rsw_datapath *dp;
	u32 port_no;
	int desired_ifindex;			/* internal ports; 0 = any */
	const struct nlattr *options;		/* OVS_VPORT_ATTR_OPTIONS */
	const struct nlattr *upcall_pids;	/* OVS_VPORT_ATTR_UPCALL_PID */
};

struct rsw_vport;

struct rsw_vport_ops {
	enum ovs_vport_type type;
	/* Under rsw_mutex; takes RTNL itself where the device needs it. */
	struct rsw_vport *(*create)(const struct rsw_vport_parms *parms);
	/* Under rsw_mutex, after the port is unpublished. */
	void (*destroy)(struct rsw_vport *vport);
	/* Packet path: transmit @skb (consumed) out of the port. */
	void (*send)(struct rsw_vport *vport, struct sk_buff *skb);
};

struct rsw_vport {
	struct net_device *dev;		/* held for the vport's life */
	netdevice_tracker dev_tracker;
	struct rsw_datapath *dp;
	u32 port_no;
	const struct rsw_vport_ops *ops;
	struct rsw_upcall_pids __rcu *upcall_pids;
	/* Set and cleared under rsw_mutex (redirect.h); NULL mostly. */
	struct rsw_redirect __rcu *redirect;
	/* netdev ports: frames held while the device has no qdisc */
	struct rsw_txhold hold;
	struct rcu_head rcu;
};

/*
 * Allocate a vport for @ops, with the parms' datapath, number and upcall
 * PIDs; ops->create() attaches its device.
 */
struct rsw_vport *rsw_vport_alloc(const struct rsw_vport_ops *ops,
				  const struct rsw_vport_parms *parms);
/*
 * Free a vport nothing can reach any more: never published, or a grace
 * period after it was unpublished (rsw_vport_free_rcu() waits for that).
 * Drops the device reference if one was taken.
 */
void rsw_vport_free(struct rsw_vport *vport);
void rsw_vport_free_rcu(struct rsw_vport *vport);

/* Create a vport of parms->type; ERR_PTR(-EAFNOSUPPORT) for types we lack. */
struct rsw_vport *rsw_vport_create(const struct rsw_vport_parms *parms);
void rsw_vport_destroy(struct rsw_vport *vport);

/* The vport attached to @dev, or NULL; RCU or RTNL. */
struct rsw_vport *rsw_vport_from_dev(const struct net_device *dev);

int rsw_vport_set_upcall_pids(struct rsw_vport *vport,
			      const struct nlattr *pids);
int rsw_vport_put_upcall_pids(const struct rsw_vport *vport,
			      struct sk_buff *skb);
/*
 * The PID a miss from this port goes to, spread by @skb's hash, which is
 * computed and stored in @skb if it has none yet.
 */
u32 rsw_vport_upcall_pid(const struct rsw_vport *vport, struct sk_buff *skb);

void rsw_vport_get_stats(struct rsw_vport *vport,
			 struct ovs_vport_stats *stats);

/**
 * rsw_vport_send - packet path: send @skb (consumed) out of @vport
 * @mru: largest fragment seen on reassembly, 0 if none
 *
 * The caller has already applied any pending trunc (RSW_CB(skb)->cutlen);
 * it is not looked at here.  Packets larger than the device's MTU, or
 * than @mru when set, are dropped unless they are GSO.
 */
void rsw_vport_send(struct rsw_vport *vport, struct sk_buff *skb, u16 mru);

/* Called by a vport's receive hook for every packet; consumes @skb. */
void rsw_vport_receive(struct rsw_vport *vport, struct sk_buff *skb);

extern const struct rsw_vport_ops rsw_netdev_vport_ops;
extern const struct rsw_vport_ops rsw_internal_vport_ops;

/* True if @dev is an internal vport's device. */
bool rsw_is_internal_dev(const struct net_device *dev);

/*
 * Unhook a netdev vport from its device (rx handler, master link,
 * promiscuity), under RTNL; for the device notifier.  The vport stays in
 * its datapath until removed under rsw_mutex.  Idempotent.
 */
void rsw_netdev_vport_detach(struct rsw_vport *vport);

/* The vport of internal device @dev, NULL while it is torn down. */
struct rsw_vport *rsw_internal_dev_vport(const struct net_device *dev);

/* The "openvswitch" rtnl_link kind of internal devices. */
int rsw_internal_vport_init(void);
void rsw_internal_vport_uninit(void);

int rsw_vport_init(void);
void rsw_vport_uninit(void);

#endif /* _RSW_VPORT_H */
