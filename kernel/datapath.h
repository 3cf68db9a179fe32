/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Datapaths: a flow table, a set of ports and the upcall configuration,
 * per network namespace.
 */
#ifndef _RSW_DATAPATH_H
#define _RSW_DATAPATH_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include "flow_table.h"

/**
 * DOC: Locking
 *
 * rsw_mutex serialises every change: all mutating Generic Netlink commands,
 * the deferred handling of unregistering devices, the masks' periodic
 * reordering (a delayed work: nothing holding rsw_mutex may wait for it,
 * see rsw_flow_table_uninit()), namespace exit and module unload.  It
 * nests outside RTNL: code holding rsw_mutex may take
 * rtnl_lock(), never the reverse, which is why the netdevice notifier
 * (called under RTNL) only unhooks the device and defers the rest.  Entry
 * points that change state assert it with rsw_assert_locked().
 *
 * Readers never take it.  The packet path runs in softirq context, or with
 * bottom halves disabled, under RCU; GET and dump commands take
 * rcu_read_lock().  Everything a reader can reach (datapaths, vports,
 * flows, masks, action lists, PID arrays) is published with
 * rcu_assign_pointer() or an RCU-safe container, unpublished under
 * rsw_mutex and freed after a grace period.  Pointers annotated __rcu are
 * read with rcu_dereference() by readers and with rsw_deref() by writers,
 * which lockdep checks against rsw_mutex.  Plain fields that readers
 * follow are set before publication and never changed after (a flow's
 * mask), or written with WRITE_ONCE() and read with READ_ONCE() (counts,
 * user features).
 *
 * Per-CPU state (counters, the mask cache, the actions' nesting and key
 * slots) is only touched with bottom halves disabled, so nothing else runs
 * on that CPU between a read and a write of it; those paths assert that
 * with lockdep_assert_in_softirq().  Counters are updated without locks
 * under u64_stats_sync; readers sum them.  The masks' hit counts are the
 * exception: one this_cpu_inc() each, from any context, read without
 * u64_stats_sync by the reordering, which only needs them roughly.
 */
extern struct mutex rsw_mutex;

#define rsw_deref(p) rcu_dereference_protected(p, lockdep_is_held(&rsw_mutex))
/* For code that runs either under RCU or under rsw_mutex. */
#define rsw_deref_any(p) rcu_dereference_check(p, lockdep_is_held(&rsw_mutex))

static inline void rsw_assert_locked(void)
{
	lockdep_assert_held(&rsw_mutex);
}

struct rsw_dp_stats {
	u64 hit;		/* packets that matched a flow */
	u64 missed;		/* packets sent to userspace as misses */
	u64 lost;		/* upcalls that could not be delivered */
	u64 mask_hit;		/* masks tried over all lookups */
	u64 cache_hit;		/* lookups answered by the mask cache */
	struct u64_stats_sync syncp;
};

/* PIDs for OVS_DP_F_DISPATCH_UPCALL_PER_CPU, indexed by CPU id. */
struct rsw_cpu_pids {
	struct rcu_head rcu;
	u32 n;
	u32 ids[];
};

struct rsw_vport;
struct rsw_vport_parms;

struct rsw_datapath {
	struct list_head node;		/* in rsw_net.datapaths; rsw_mutex */
	struct rcu_work free_work;	/* frees it a grace period after DEL */
	possible_net_t net;
	struct rsw_flow_table table;
	/*
	 * port_no -> struct rsw_vport *.  Stores happen under rsw_mutex (the
	 * xarray's own lock nests inside it); readers use xa_load() under RCU.
	 */
	struct xarray ports;
	struct rsw_dp_stats __percpu *stats;
	u32 user_features;		/* OVS_DP_F_*; READ_ONCE on the fast path */
	struct rsw_cpu_pids __rcu *cpu_pids;
	unsigned int n_redirects;	/* ports redirected; rsw_mutex */
};

struct rsw_net {
	struct list_head datapaths;	/* rsw_mutex; RCU for readers */
};

extern unsigned int rsw_net_id;

static inline struct net *rsw_dp_net(const struct rsw_datapath *dp)
{
	return read_pnet(&dp->net);
}

/* Ports are numbered below this; OVSP_LOCAL (0) is the local port. */
#define RSW_MAX_PORTS USHRT_MAX

/* The datapath whose local port has @dp_ifindex, or NULL; RCU or mutex. */
struct rsw_datapath *rsw_dp_lookup(struct net *net, int dp_ifindex);
/* Look up by OVS_DP_ATTR_NAME when dp_ifindex is 0; RCU or mutex. */
struct rsw_datapath *rsw_dp_lookup_name(struct net *net, const char *name);

/* Port @port_no of @dp or NULL; RCU or rsw_mutex. */
static inline struct rsw_vport *rsw_dp_port(struct rsw_datapath *dp,
					    u32 port_no)
{
	return xa_load(&dp->ports, port_no);
}

struct rsw_vport *rsw_dp_local_port(struct rsw_datapath *dp);
/* The local port's name, which is also the datapath's. */
const char *rsw_dp_name(struct rsw_datapath *dp);
int rsw_dp_ifindex(struct rsw_datapath *dp);

/*
 * Add a port (under rsw_mutex): parms->port_no 0 from callers other than
 * datapath creation means "pick the lowest free number".
 */
struct rsw_vport *rsw_dp_add_port(struct rsw_datapath *dp,
				  struct rsw_vport_parms *parms);
/* Remove a port (under rsw_mutex); it is freed after a grace period. */
void rsw_dp_del_port(struct rsw_vport *vport);

/*
 * The packet path: look @skb up by @key and run the flow's actions, or
 * send it to userspace as a miss.  Consumes @skb.  Under RCU, BH off.
 */
void rsw_dp_process_packet(struct sk_buff *skb, struct rsw_flow_key *key);

/*
 * The netlink PID a miss of @skb from @vport goes to.  May compute and
 * store @skb's hash, to spread misses over a port's PIDs.
 */
u32 rsw_dp_upcall_portid(const struct rsw_datapath *dp,
			 const struct rsw_vport *vport, struct sk_buff *skb);

/* An upcall could not be delivered; packet path, BH disabled. */
void rsw_dp_count_lost(struct rsw_datapath *dp);

/*
 * Datapath lifetime, for the ovs_datapath family.  A datapath is allocated
 * unpublished, gets its local port and settings, and is published on the
 * namespace's list; destroying it (under rsw_mutex) removes its ports and
 * flows and frees it after a grace period.
 */
struct rsw_datapath *rsw_dp_alloc(struct net *net);
void rsw_dp_free_unpublished(struct rsw_datapath *dp);
void rsw_dp_publish(struct rsw_datapath *dp);
void rsw_dp_destroy(struct rsw_datapath *dp);

/* OVS_DP_ATTR_PER_CPU_PIDS, under rsw_mutex. */
int rsw_dp_set_cpu_pids(struct rsw_datapath *dp, const struct nlattr *attr);

void rsw_dp_read_stats(const struct rsw_datapath *dp,
		       struct ovs_dp_stats *stats,
		       struct ovs_dp_megaflow_stats *mega);

/* Control block the datapath keeps in skb->cb while a packet is ours. */
struct rsw_skb_cb {
	struct rsw_vport *input_vport;
	u16 mru;		/* largest fragment size seen on reassembly */
	u16 acts_origlen;	/* packet length before a trunc action */
	u32 cutlen;		/* bytes a trunc action will drop on output */
	/* The lookup went without the skb hash the in-tree datapath
	 * computes there (rsw_dp_process_packet()): an upcall computes it
	 * first, so that it reports the same.
	 */
	bool hash_due;
};

#define RSW_CB(skb) ((struct rsw_skb_cb *)(skb)->cb)

int rsw_datapath_init(void);
void rsw_datapath_uninit(void);

#endif /* _RSW_DATAPATH_H */
