/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The megaflow table: flows are (masked key, mask) pairs, looked up by
 * trying each distinct mask in turn, and optionally named by a UFID.
 */
#ifndef _RSW_FLOW_TABLE_H
#define _RSW_FLOW_TABLE_H

#include <linux/rhashtable-types.h>
#include <linux/openvswitch.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "flow_key.h"
#include "flow_stats.h"

#define RSW_UFID_MAX_BYTES 16

/*
 * An entry of the per-CPU mask cache: which slot of the mask array last
 * matched a packet with this skb hash.
 */
struct rsw_mask_cache_entry {
	u32 skb_hash;
	u32 mask_index;
};

/*
 * Mask cache sizes, in entries per CPU.  OVS_DP_ATTR_MASKS_CACHE_SIZE
 * accepts 0 (no cache) or a power of two up to RSW_MASKS_CACHE_MAX, the
 * most entries whose per-CPU array fits one minimal percpu unit: the same
 * bound the in-tree datapath puts in its policy.
 */
#define RSW_MASKS_CACHE_DEFAULT 256
#define RSW_MASKS_CACHE_MAX \
	(PCPU_MIN_UNIT_SIZE / sizeof(struct rsw_mask_cache_entry))

/*
 * A mask: which bits of the key a flow matches on.  [@start, @end) is the
 * long-aligned byte range of @key holding every set bit; lookups compare
 * and hash only that range.  Masks are shared by every flow that uses the
 * same one and freed after a grace period once the last flow is gone.
 */
struct rsw_flow_mask {
	/* Ahead of @key: a probe reads them with the key's first words. */
	u16 start;
	u16 end;
	struct rsw_flow_key key;
	/* Flows using this mask; only changed under rsw_mutex, which
	 * mask_get() and mask_put() assert.
	 */
	unsigned int users;
	/* Lookups this mask answered, per CPU, counted without a lock. */
	u64 __percpu *hits;
	/* The sum of @hits at the last reordering; rsw_mutex. */
	u64 hits_seen;
	struct rcu_head rcu;
};

/*
 * A flow's unique identifier, chosen by userspace; @len 0 means none.
 * rsw_flow_id_set() fills it, @hash with @bytes: hashed once a request,
 * not at every lookup or table resize.
 */
struct rsw_flow_id {
	u32 len;
	u32 hash;
	u8 bytes[RSW_UFID_MAX_BYTES];
};

void rsw_flow_id_set(struct rsw_flow_id *id, const void *bytes, u32 len);

struct rsw_flow_actions;

struct rsw_flow {
	/*
	 * What a lookup reads of every flow on its hash chain comes first,
	 * in one cache line: the link, the mask and the hash.
	 */
	struct rhash_head match_node;	/* in table->flows */
	/*
	 * @mask and @hash are set by rsw_flow_table_insert() under
	 * rsw_mutex before any reader can reach the flow and never changed
	 * after, failed insert or not: readers follow @mask without RCU
	 * annotation.  The mask outlives every reader of the flow (it is
	 * freed a grace period after its last flow is unpublished).
	 */
	struct rsw_flow_mask *mask;
	u32 hash;			/* @key's range under @mask, hashed */
	/*
	 * Set, under rsw_mutex, once the insert can no longer fail:
	 * @dump_index's slot holds the flow from the insert's first step,
	 * and dumps and the flow cache, which find it there, pass it over
	 * until then.
	 */
	bool published;
	struct rhash_head ufid_node;	/* in table->ufids, if @id.len */
	struct rsw_flow_key key;	/* masked key: key & mask->key */
	struct rsw_flow_key unmasked;	/* the key as userspace gave it */
	struct rsw_flow_id id;
	struct rsw_flow_actions __rcu *acts;
	struct rsw_flow_stats __percpu *stats;	/* a slot of @stats_block */
	struct rsw_stats_block *stats_block;
	u32 dump_index;			/* in table->all; set on insert */
	struct rcu_head rcu;
};

struct rsw_mask_array;
struct rsw_mask_cache;

/*
 * A datapath's flows.  Writers hold rsw_mutex; the packet path and dumps
 * read under RCU.
 */
struct rsw_flow_table {
	struct rhashtable flows;	/* (mask, masked key) -> flow */
	struct rhashtable ufids;	/* UFID -> flow */
	struct rsw_mask_array __rcu *masks;	/* every mask in use */
	struct rsw_mask_cache __rcu *cache;	/* per-CPU skb hash -> mask */
	struct xarray all;		/* dump_index -> flow, for dumps */
	/* Flows: written under rsw_mutex, read by rsw_flow_table_count(). */
	unsigned int count;
	/* Puts the busiest masks first, every RSW_MASKS_REORDER_MS. */
	struct delayed_work reorder;
	/* Set once by rsw_flow_table_stop(); rsw_mutex. */
	bool stopped;
};

/* How often the masks are reordered by the lookups each answered. */
#define RSW_MASKS_REORDER_MS 1000

int rsw_flow_table_init(struct rsw_flow_table *table);
/*
 * Start reordering the masks once the table is reachable, and stop for
 * good when it is about to go; both under rsw_mutex.  Stopping does not
 * wait for a reordering under way: rsw_flow_table_uninit() does.
 */
void rsw_flow_table_start(struct rsw_flow_table *table);
void rsw_flow_table_stop(struct rsw_flow_table *table);
/*
 * Frees every flow. The table must be unreachable by readers and stopped,
 * or never started; called without rsw_mutex, unless never started.
 */
void rsw_flow_table_uninit(struct rsw_flow_table *table);

/*
 * A hash of @key for the lookup's caches, for a packet the device gave no
 * hash: its addresses, ports and input port, with a secret seed.
 */
u32 rsw_flow_table_key_hash(const struct rsw_flow_key *key);

/**
 * rsw_flow_table_lookup - the packet path's lookup, under RCU
 * @table: the datapath's table
 * @key: the packet's full key
 * @skb_hash: the packet's hash (the skb's or rsw_flow_table_key_hash()),
 *	      for the per-CPU flow and mask caches; 0 skips them, and only
 *	      then may the caller have bottom halves enabled
 * @n_mask_hit: incremented by the number of masks tried (a flow cache hit
 *		counts one)
 * @n_cache_hit: incremented when the flow or the mask cache answered
 *
 * Cost is bounded by the number of mask slots: one past the highest slot
 * in use, holes left by removed masks costing a NULL test each until a new
 * mask fills them (new masks take the lowest hole) or the next reordering
 * drops them.  The masks that answered the most lookups lately are tried
 * first.  A mask in use for the whole lookup is always tried, however
 * masks come and go or change places meanwhile.
 *
 * Return: the matching flow, valid until the RCU read side ends, or NULL.
 */
struct rsw_flow *rsw_flow_table_lookup(struct rsw_flow_table *table,
				       const struct rsw_flow_key *key,
				       u32 skb_hash, u32 *n_mask_hit,
				       u32 *n_cache_hit);

/* Find the flow with this UFID; RCU or rsw_mutex. */
struct rsw_flow *rsw_flow_table_find_ufid(struct rsw_flow_table *table,
					  const struct rsw_flow_id *id);

/*
 * Find the flow installed with exactly this unmasked key and mask (how a
 * flow without a UFID is named); RCU or rsw_mutex.  A NULL @mask accepts
 * any mask, which is how the in-tree datapath names flows in GET, SET and
 * DEL requests that carry only a key.
 */
struct rsw_flow *rsw_flow_table_find_exact(struct rsw_flow_table *table,
					   const struct rsw_flow_key *unmasked,
					   const struct rsw_flow_key *mask);

/**
 * rsw_flow_table_insert - publish a new flow, under rsw_mutex
 * @table: the datapath's table
 * @flow: from rsw_flow_alloc(), with unmasked, id and acts set
 * @mask: the mask as parsed; shared with an identical mask already in use,
 *	  or copied
 *
 * Fills @flow->key and @flow->mask.  Dumps see the flow only once nothing
 * can fail any more.  On failure the flow was never visible to lookups or
 * dumps, its fields are left as they were set, and it is released with
 * rsw_flow_free() like any other.
 *
 * Return: 0; -EEXIST when a flow with the same UFID, or the same mask and
 * masked key, is already in @table; -ENOMEM.
 */
int rsw_flow_table_insert(struct rsw_flow_table *table, struct rsw_flow *flow,
			  const struct rsw_flow_key *mask);

/* Unpublish @flow, under rsw_mutex; free it with rsw_flow_free(). */
void rsw_flow_table_remove(struct rsw_flow_table *table,
			   struct rsw_flow *flow);

/* Remove and free every flow, under rsw_mutex. */
void rsw_flow_table_flush(struct rsw_flow_table *table);

/* Number of flows; any context. */
static inline u32 rsw_flow_table_count(const struct rsw_flow_table *table)
{
	return READ_ONCE(table->count);
}

/* Number of masks in use, for OVS_DP_ATTR_MEGAFLOW_STATS; any context. */
u32 rsw_flow_table_mask_count(const struct rsw_flow_table *table);

/**
 * rsw_flow_table_set_cache_size - resize the per-CPU mask cache
 * @table: the datapath's table, under rsw_mutex
 * @size: entries per CPU
 *
 * Accepts what the in-tree datapath accepts for
 * OVS_DP_ATTR_MASKS_CACHE_SIZE: the current size (a no-op), 0, or a power
 * of two up to RSW_MASKS_CACHE_MAX.
 *
 * Return: 0; -EINVAL for any other size; -ENOMEM if the new cache cannot
 * be allocated, leaving the old one in place.
 */
int rsw_flow_table_set_cache_size(struct rsw_flow_table *table, u32 size);
u32 rsw_flow_table_cache_size(const struct rsw_flow_table *table);

/**
 * struct rsw_flow_walk - a dump's walk over a table's flows, under RCU
 * @xas: where the walk is in table->all
 * @done: the cursor it started from is past every slot
 *
 * Every flow has a fixed slot in table->all for its whole life, and a
 * dump's cursor is one past the slot of the last flow it used, so a dump
 * resumed across many messages returns each flow at most once.  Within
 * a message the walk goes on from the slot it is at, a step per flow;
 * only its first step descends from the root.  Flows inserted meanwhile
 * may land before the cursor (slots are reused) and be missed; removed
 * ones stop being returned, and none is freed under the walk.
 */
struct rsw_flow_walk {
	struct xa_state xas;
	bool done;
};

/* Start a walk at @pos: 0, or what rsw_flow_walk_pos() gave before. */
void rsw_flow_walk_start(struct rsw_flow_walk *walk,
			 struct rsw_flow_table *table, u64 pos);
/* The next flow, valid until the RCU read side ends, or NULL. */
struct rsw_flow *rsw_flow_walk_next(struct rsw_flow_walk *walk);

/* The cursor past the flow rsw_flow_walk_next() returned last. */
static inline u64 rsw_flow_walk_pos(const struct rsw_flow_walk *walk)
{
	return (u64)walk->xas.xa_index + 1;
}

/* @dst = @src & @mask, over the whole key. */
void rsw_flow_key_mask(struct rsw_flow_key *dst, const struct rsw_flow_key *src,
		       const struct rsw_flow_key *mask);

struct rsw_flow *rsw_flow_alloc(void);
/* Free @flow and its actions after a grace period. */
void rsw_flow_free(struct rsw_flow *flow);

/* Account one packet to @flow; packet path, under RCU, BH disabled. */
void rsw_flow_stats_update(struct rsw_flow *flow, __be16 tcp_flags,
			   const struct sk_buff *skb);
void rsw_flow_stats_read(const struct rsw_flow *flow,
			 struct ovs_flow_stats *stats, unsigned long *used,
			 __be16 *tcp_flags);
void rsw_flow_stats_clear(struct rsw_flow *flow);

int rsw_flow_table_module_init(void);
void rsw_flow_table_module_uninit(void);

#endif /* _RSW_FLOW_TABLE_H */
