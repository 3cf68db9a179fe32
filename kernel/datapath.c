// SPDX-License-Identifier: GPL-2.0
/*
 * Datapath objects: their lifetime, their ports, and the packet path that
 * ties a port's packets to the flow table and to userspace.
 */

#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/netns/generic.h>
#include "actions.h"
#include "datapath.h"
#include "redirect_genl.h"
#include "upcall.h"
#include "vport.h"

/* Serialises every change to datapaths, ports and flows: DOC: Locking. */
DEFINE_MUTEX(rsw_mutex);
unsigned int rsw_net_id __read_mostly;

/* Runs the deferred frees of deleted datapaths; drained at unload. */
static struct workqueue_struct *rsw_dp_wq;

static struct rsw_datapath *dp_of_local_dev(struct net_device *dev)
{
	struct rsw_vport *vport;

	if (!dev || !rsw_is_internal_dev(dev))
		return NULL;
	vport = rsw_vport_from_dev(dev);
	return vport && vport->port_no == OVSP_LOCAL ? vport->dp : NULL;
}

struct rsw_datapath *rsw_dp_lookup(struct net *net, int dp_ifindex)
{
	struct rsw_datapath *dp;

	rcu_read_lock();
	dp = dp_of_local_dev(dev_get_by_index_rcu(net, dp_ifindex));
	rcu_read_unlock();
	return dp;
}

struct rsw_datapath *rsw_dp_lookup_name(struct net *net, const char *name)
{
	struct rsw_datapath *dp;

	rcu_read_lock();
	dp = dp_of_local_dev(dev_get_by_name_rcu(net, name));
	rcu_read_unlock();
	return dp;
}

struct rsw_vport *rsw_dp_local_port(struct rsw_datapath *dp)
{
	return rsw_dp_port(dp, OVSP_LOCAL);
}

const char *rsw_dp_name(struct rsw_datapath *dp)
{
	struct rsw_vport *local = rsw_dp_local_port(dp);

	return local ? local->dev->name : "";
}

int rsw_dp_ifindex(struct rsw_datapath *dp)
{
	struct rsw_vport *local = rsw_dp_local_port(dp);

	return local ? local->dev->ifindex : 0;
}

struct rsw_vport *rsw_dp_add_port(struct rsw_datapath *dp,
				  struct rsw_vport_parms *parms)
{
	struct rsw_vport *vport;
	int err;

	rsw_assert_locked();

	if (!rsw_dp_local_port(dp)) {
		parms->port_no = OVSP_LOCAL;
		err = xa_insert(&dp->ports, OVSP_LOCAL, NULL, GFP_KERNEL);
	} else if (parms->port_no) {
		if (parms->port_no >= RSW_MAX_PORTS)
			return ERR_PTR(-EFBIG);
		err = xa_insert(&dp->ports, parms->port_no, NULL, GFP_KERNEL);
	} else {
		err = xa_alloc(&dp->ports, &parms->port_no, NULL,
			       XA_LIMIT(OVSP_LOCAL + 1, RSW_MAX_PORTS - 1),
			       GFP_KERNEL);
		/* A full datapath reads as "too big", as in other kernels. */
		if (err == -EBUSY)
			err = -EFBIG;
	}
	if (err)
		return ERR_PTR(err);

	parms->dp = dp;
	vport = rsw_vport_create(parms);
	if (IS_ERR(vport)) {
		xa_release(&dp->ports, parms->port_no);
		return vport;
	}
	xa_store(&dp->ports, parms->port_no, vport, GFP_KERNEL);
	return vport;
}

void rsw_dp_del_port(struct rsw_vport *vport)
{
	rsw_assert_locked();

	/* While it is still published, so the announcements can name it. */
	rsw_redirect_port_gone(vport);
	xa_erase(&vport->dp->ports, vport->port_no);
	rsw_vport_destroy(vport);
}

u32 rsw_dp_upcall_portid(const struct rsw_datapath *dp,
			 const struct rsw_vport *vport, struct sk_buff *skb)
{
	const struct rsw_cpu_pids *pids;
	unsigned int cpu;

	if (!(READ_ONCE(dp->user_features) & OVS_DP_F_DISPATCH_UPCALL_PER_CPU))
		return rsw_vport_upcall_pid(vport, skb);

	pids = rcu_dereference(dp->cpu_pids);
	if (!pids || !pids->n)
		return 0;
	cpu = smp_processor_id();
	if (cpu >= pids->n)
		/* Fewer handler sockets than CPUs: still deliver. */
		cpu %= pids->n;
	return pids->ids[cpu];
}

void rsw_dp_count_lost(struct rsw_datapath *dp)
{
	struct rsw_dp_stats *stats = this_cpu_ptr(dp->stats);

	lockdep_assert_in_softirq();

	u64_stats_update_begin(&stats->syncp);
	stats->lost++;
	u64_stats_update_end(&stats->syncp);
}

void rsw_dp_process_packet(struct sk_buff *skb, struct rsw_flow_key *key)
{
	struct rsw_vport *input = RSW_CB(skb)->input_vport;
	const struct rsw_flow_actions *acts;
	struct rsw_datapath *dp = input->dp;
	u32 n_mask_hit = 0, n_cache_hit = 0;
	struct rsw_dp_stats *stats;
	struct rsw_flow *flow;
	bool hit = false;
	u32 hash;

	lockdep_assert_in_softirq();

	/* The caches want a hash, not the skb's in particular: one the
	 * device gave is free, and where there is none, one of the key
	 * costs a fraction of what skb_get_hash() would, dissecting the
	 * packet again and running siphash over what it finds.
	 */
	hash = skb_get_hash_raw(skb);
	if (!skb->l4_hash && !skb->sw_hash) {
		RSW_CB(skb)->hash_due = true;
		if (!hash)
			hash = rsw_flow_table_key_hash(key);
	}
	flow = rsw_flow_table_lookup(&dp->table, key, hash, &n_mask_hit,
				     &n_cache_hit);
	if (flow) {
		hit = true;
		rsw_flow_stats_update(flow, key->tcp_flags, skb);
		acts = rcu_dereference(flow->acts);
		rsw_actions_execute(dp, skb, acts, key);
	} else {
		struct rsw_upcall_info info = {
			.cmd = OVS_PACKET_CMD_MISS,
			.portid = rsw_dp_upcall_portid(dp, input, skb),
			.mru = RSW_CB(skb)->mru,
		};

		if (rsw_upcall(dp, skb, key, &info, 0))
			kfree_skb(skb);
		else
			consume_skb(skb);
	}

	stats = this_cpu_ptr(dp->stats);
	u64_stats_update_begin(&stats->syncp);
	if (hit)
		stats->hit++;
	else
		stats->missed++;
	stats->mask_hit += n_mask_hit;
	stats->cache_hit += n_cache_hit;
	u64_stats_update_end(&stats->syncp);
}

void rsw_dp_read_stats(const struct rsw_datapath *dp,
		       struct ovs_dp_stats *stats,
		       struct ovs_dp_megaflow_stats *mega)
{
	int cpu;

	memset(stats, 0, sizeof(*stats));
	memset(mega, 0, sizeof(*mega));
	mega->n_masks = rsw_flow_table_mask_count(&dp->table);

	for_each_possible_cpu(cpu) {
		const struct rsw_dp_stats *pcpu = per_cpu_ptr(dp->stats, cpu);
		struct rsw_dp_stats snap;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&pcpu->syncp);
			snap = *pcpu;
		} while (u64_stats_fetch_retry(&pcpu->syncp, start));

		stats->n_hit += snap.hit;
		stats->n_missed += snap.missed;
		stats->n_lost += snap.lost;
		mega->n_mask_hit += snap.mask_hit;
		mega->n_cache_hit += snap.cache_hit;
	}
	stats->n_flows = rsw_flow_table_count(&dp->table);
}

int rsw_dp_set_cpu_pids(struct rsw_datapath *dp, const struct nlattr *attr)
{
	struct rsw_cpu_pids *pids, *old;
	int len = nla_len(attr);

	rsw_assert_locked();

	if (!len || len % sizeof(u32))
		return -EINVAL;
	pids = kmalloc(struct_size(pids, ids, len / sizeof(u32)), GFP_KERNEL);
	if (!pids)
		return -ENOMEM;
	pids->n = len / sizeof(u32);
	nla_memcpy(pids->ids, attr, len);

	old = rsw_deref(dp->cpu_pids);
	rcu_assign_pointer(dp->cpu_pids, pids);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

struct rsw_datapath *rsw_dp_alloc(struct net *net)
{
	struct rsw_datapath *dp;
	int err;

	dp = kzalloc(sizeof(*dp), GFP_KERNEL);
	if (!dp)
		return ERR_PTR(-ENOMEM);
	write_pnet(&dp->net, net);
	xa_init_flags(&dp->ports, XA_FLAGS_ALLOC);

	err = rsw_flow_table_init(&dp->table);
	if (err)
		goto err_free_dp;
	dp->stats = netdev_alloc_pcpu_stats(struct rsw_dp_stats);
	if (!dp->stats) {
		err = -ENOMEM;
		goto err_uninit_table;
	}
	return dp;

err_uninit_table:
	rsw_flow_table_uninit(&dp->table);
err_free_dp:
	kfree(dp);
	return ERR_PTR(err);
}

/* Frees a datapath no reader can reach any more. */
static void dp_free(struct rsw_datapath *dp)
{
	rsw_flow_table_uninit(&dp->table);
	kfree(rcu_dereference_protected(dp->cpu_pids, true));
	free_percpu(dp->stats);
	xa_destroy(&dp->ports);
	kfree(dp);
}

static void dp_free_work(struct work_struct *work)
{
	dp_free(container_of(to_rcu_work(work), struct rsw_datapath,
			     free_work));
}

void rsw_dp_free_unpublished(struct rsw_datapath *dp)
{
	dp_free(dp);
}

void rsw_dp_publish(struct rsw_datapath *dp)
{
	struct rsw_net *rn = net_generic(rsw_dp_net(dp), rsw_net_id);

	rsw_assert_locked();
	list_add_tail_rcu(&dp->node, &rn->datapaths);
	rsw_flow_table_start(&dp->table);
}

void rsw_dp_destroy(struct rsw_datapath *dp)
{
	struct rsw_vport *vport;
	unsigned long port_no;

	rsw_assert_locked();

	rsw_flow_table_stop(&dp->table);
	/* The local port goes last: the others are linked beneath it. */
	xa_for_each_start(&dp->ports, port_no, vport, OVSP_LOCAL + 1)
		rsw_dp_del_port(vport);
	list_del_rcu(&dp->node);
	vport = rsw_dp_local_port(dp);
	if (vport)
		rsw_dp_del_port(vport);

	rsw_flow_table_flush(&dp->table);

	/* Packet-path readers may still hold @dp until a grace period ends;
	 * the table's teardown sleeps, so free from a workqueue after it.
	 */
	INIT_RCU_WORK(&dp->free_work, dp_free_work);
	queue_rcu_work(rsw_dp_wq, &dp->free_work);
}

static int __net_init rsw_net_init(struct net *net)
{
	struct rsw_net *rn = net_generic(net, rsw_net_id);

	INIT_LIST_HEAD(&rn->datapaths);
	return 0;
}

static void __net_exit rsw_net_exit(struct net *net)
{
	struct rsw_net *rn = net_generic(net, rsw_net_id);
	struct rsw_datapath *dp, *next;

	mutex_lock(&rsw_mutex);
	list_for_each_entry_safe(dp, next, &rn->datapaths, node)
		rsw_dp_destroy(dp);
	mutex_unlock(&rsw_mutex);
}

static struct pernet_operations rsw_net_ops = {
	.init = rsw_net_init,
	.exit = rsw_net_exit,
	.id = &rsw_net_id,
	.size = sizeof(struct rsw_net),
};

int rsw_datapath_init(void)
{
	int err;

	rsw_dp_wq = alloc_workqueue("rsw_dp", 0, 0);
	if (!rsw_dp_wq)
		return -ENOMEM;
	err = register_pernet_device(&rsw_net_ops);
	if (err)
		goto err_destroy_wq;
	return 0;

err_destroy_wq:
	destroy_workqueue(rsw_dp_wq);
	return err;
}

void rsw_datapath_uninit(void)
{
	/* Destroys every remaining datapath through rsw_net_exit(). */
	unregister_pernet_device(&rsw_net_ops);
	/* Let queued rcu_works get queued, then run them. */
	rcu_barrier();
	destroy_workqueue(rsw_dp_wq);
}
