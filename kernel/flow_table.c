// SPDX-License-Identifier: GPL-2.0
/*
 * The megaflow table.  A packet is looked up by masking its key with each
 * distinct mask in use and probing one hash table keyed by (mask, masked
 * key).  Two per-CPU caches keyed by the packet's hash (the device's, or
 * rsw_flow_table_key_hash()) spare most packets the walk: the flow cache
 * remembers the flow that matched, the mask cache the mask.
 */

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "actions.h"
#include "datapath.h"
#include "fault.h"
#include "flow_table.h"

/* Initial room in a mask array; it doubles when full. */
#define MASKS_MIN_CAPACITY 16

/*
 * Cache slots probed per packet: successive bytes of the skb hash pick
 * them, so two flows whose hashes collide in one slot rarely collide in
 * all of them.
 */
#define CACHE_PROBES 4
#define CACHE_PROBE_SHIFT 8

/*
 * The masks in use, each in a slot it keeps until it is removed.  Readers
 * walk masks[0..nr_slots) under RCU and skip empty (NULL) slots.  A new
 * mask takes the lowest empty slot, or a new one past the end (filled
 * before nr_slots grows past it); a removed mask leaves its slot empty,
 * and nr_slots shrinks only over empty slots at the end.
 *
 * Since no mask ever moves within an array, a reader never skips one that
 * was in use for the whole of its walk, and a packet that has a flow is
 * never sent to userspace as a miss because a mask elsewhere went away.
 * (Filling the hole with the last mask instead, as the in-tree datapath
 * does, lets a reader that had already passed the hole miss the mask moved
 * into it.)  Masks change places only in a new array: a full array is
 * replaced by a copy twice as large, slots unchanged, and every
 * RSW_MASKS_REORDER_MS the masks are copied into a new array busiest
 * first, holes dropped (reorder_masks()).  Either is published whole, and
 * a reader still walking the old array sees every mask that was in it.
 * A cached slot index may come to name another mask; the cache probe then
 * finds no flow and the full walk follows, so that only costs time.
 * Removed masks are freed after a grace period.
 */
struct rsw_mask_array {
	struct rcu_head rcu;
	u32 nr_slots;		/* slots readers walk */
	u32 nr_masks;		/* slots in use, for the megaflow stats */
	u32 capacity;
	struct rsw_flow_mask __rcu *masks[];
};

/*
 * The flow cache, in front of the mask cache: per CPU, which flow last
 * matched a packet with this skb hash, named by its dump index.  A hit is
 * checked against the flow itself (the packet's key under the flow's own
 * mask), so a flow since removed, or its index since reused by another
 * flow, costs one compare before the usual lookup: nothing here is ever
 * invalidated.  A hit spares the hash and probe of a cached mask; and at
 * 16 times the mask cache's default size, it keeps far more 5-tuples, so
 * that with many busy masks its hits spare whole walks.  It lives and dies
 * with the mask cache: a table whose mask cache is off
 * (OVS_DP_ATTR_MASKS_CACHE_SIZE 0) has none, and walks for every packet.
 */
#define FLOW_CACHE_ENTRIES 4096		/* 32 KiB a CPU: one percpu unit */

struct flow_cache_entry {
	u32 skb_hash;
	u32 flow_index;			/* rsw_flow.dump_index */
};

struct rsw_mask_cache {
	struct rcu_head rcu;
	u32 size;			/* 0 or a power of two */
	/* Both NULL when @size is 0. */
	struct rsw_mask_cache_entry __percpu *entries;
	struct flow_cache_entry __percpu *flows;
};

/*
 * What a lookup in table->flows is keyed by: a mask and a key, which the
 * hash and the comparison mask as they read it.
 */
struct match_arg {
	const struct rsw_flow_mask *mask;
	const struct rsw_flow_key *key;
	u32 hash;				/* range_hash(key, mask, ...) */
};

/*
 * Words of a key hashed a block at a time: jhash mixes 3 u32s a round
 * and keeps the last 1 to 3 for its final round.
 */
#define HASH_BLOCK_WORDS 3
#define HASH_BLOCKS_MAX \
	DIV_ROUND_UP(sizeof(struct rsw_flow_key), HASH_BLOCK_WORDS * sizeof(u32))

/*
 * What hashing a packet's key under one mask leaves for the next mask of
 * the same walk: jhash's state after each mixed block.  A mask whose
 * range starts where @mask's does and whose first blocks are @mask's
 * hashes those blocks of the packet to the same state, so it resumes from
 * there (range_hash()).
 */
struct range_hash_state {
	const struct rsw_flow_mask *mask;	/* NULL: nothing to resume */
	u32 blocks;				/* mixed blocks kept in abc */
	u32 abc[HASH_BLOCKS_MAX][3];
};

static struct kmem_cache *flow_cache;

/*
 * Seeds every flow's range hash, chosen once per module load; the UFIDs'
 * hashes and the caches' key hash use it too.  The hash is kept in the
 * flow, so it must outlive the rhashtable's own seed, which changes at
 * every resize; the table mixes its seed in on top.  Secret all the same:
 * the keys come from packets, and predictable hashes would let traffic
 * build long chains.
 */
static u32 match_seed __read_mostly;

/* Count a lookup @mask answered; any context, no lock. */
static void mask_hit(struct rsw_flow_mask *mask)
{
	this_cpu_inc(*mask->hits);
}

/* Mixed blocks of @mask's range: all but the last 1 to 3 words. */
static u32 mask_blocks(const struct rsw_flow_mask *mask)
{
	u32 words = (mask->end - mask->start) / sizeof(u32);

	return words ? (words - 1) / HASH_BLOCK_WORDS : 0;
}

/* How many of @mask's first blocks the walk's last mask shared. */
static u32 shared_blocks(const struct range_hash_state *st,
			 const struct rsw_flow_mask *mask, u32 blocks)
{
	const struct rsw_flow_mask *prev = st->mask;
	const u32 *m, *p;
	u32 i, n;

	if (!prev || prev->start != mask->start)
		return 0;
	m = (const u32 *)((const u8 *)&mask->key + mask->start);
	p = (const u32 *)((const u8 *)&prev->key + mask->start);
	n = min(blocks, st->blocks) * HASH_BLOCK_WORDS;
	for (i = 0; i < n; i++)
		if (m[i] != p[i])
			break;
	return i / HASH_BLOCK_WORDS;
}

/*
 * jhash's rounds over @key & @mask's key in the mask's range, masking
 * each word as it is read: the same for a packet's key as for the flow's
 * masked key it should find.  The start depends on the secret seed and
 * the range's start alone, and the mask itself is mixed in only at the
 * end, so that masks alike in their first blocks share them: with @st,
 * the hash resumes after the blocks @st's mask had in common with @mask,
 * and leaves its own for the next.  Masks that differ only in their L3
 * and L4 prefixes, the usual megaflows, hash their common head once a
 * packet.
 */
static u32 range_hash(const struct rsw_flow_key *key,
		      const struct rsw_flow_mask *mask,
		      struct range_hash_state *st)
{
	const u32 *k = (const u32 *)((const u8 *)key + mask->start);
	const u32 *m = (const u32 *)((const u8 *)&mask->key + mask->start);
	u32 words = (mask->end - mask->start) / sizeof(u32);
	u32 blocks = mask_blocks(mask);
	u32 a, b, c, i = 0;

	if (st)
		i = shared_blocks(st, mask, blocks);
	if (i) {
		a = st->abc[i - 1][0];
		b = st->abc[i - 1][1];
		c = st->abc[i - 1][2];
	} else {
		a = JHASH_INITVAL + match_seed + mask->start;
		b = a;
		c = a;
	}
	for (; i < blocks; i++) {
		const u32 *kb = k + i * HASH_BLOCK_WORDS;
		const u32 *mb = m + i * HASH_BLOCK_WORDS;

		a += kb[0] & mb[0];
		b += kb[1] & mb[1];
		c += kb[2] & mb[2];
		__jhash_mix(a, b, c);
		if (st) {
			st->abc[i][0] = a;
			st->abc[i][1] = b;
			st->abc[i][2] = c;
		}
	}
	if (st) {
		st->mask = mask;
		st->blocks = blocks;
	}

	k += blocks * HASH_BLOCK_WORDS;
	m += blocks * HASH_BLOCK_WORDS;
	switch (words - blocks * HASH_BLOCK_WORDS) {
	case 3:
		c += k[2] & m[2];
		fallthrough;
	case 2:
		b += k[1] & m[1];
		fallthrough;
	case 1:
		a += k[0] & m[0];
		break;
	}
	a += mask->end;
	b += hash32_ptr(mask);
	__jhash_final(a, b, c);
	return c;
}

static bool range_equal(const struct rsw_flow_key *a,
			const struct rsw_flow_key *b, u16 start, u16 end)
{
	const unsigned long *wa = (const unsigned long *)a;
	const unsigned long *wb = (const unsigned long *)b;
	unsigned int i;

	for (i = start / sizeof(long); i < end / sizeof(long); i++)
		if (wa[i] != wb[i])
			return false;
	return true;
}

static u32 match_hashfn(const void *data, u32 len, u32 seed)
{
	const struct match_arg *arg = data;

	return arg->hash ^ seed;
}

static u32 match_obj_hashfn(const void *data, u32 len, u32 seed)
{
	const struct rsw_flow *flow = data;

	return flow->hash ^ seed;
}

/*
 * Whether @key, under @flow's mask, is @flow's key: the key is masked as
 * it is read, with no copy.
 */
static bool flow_matches(const struct rsw_flow *flow,
			 const struct rsw_flow_key *key)
{
	const struct rsw_flow_mask *mask = flow->mask;
	const unsigned long *m = (const unsigned long *)&mask->key;
	const unsigned long *f = (const unsigned long *)&flow->key;
	const unsigned long *k = (const unsigned long *)key;
	unsigned int i;

	for (i = mask->start / sizeof(long); i < mask->end / sizeof(long); i++)
		if ((k[i] & m[i]) != f[i])
			return false;
	return true;
}

static int match_cmpfn(struct rhashtable_compare_arg *cmp, const void *obj)
{
	const struct rsw_flow *flow = obj;
	const struct match_arg *arg = cmp->key;

	/* The hash and mask share the flow's first cache line with the
	 * chain link: a flow of another mask, the usual case when a packet
	 * tries a mask it does not match, costs no other line.
	 */
	return flow->hash != arg->hash || flow->mask != arg->mask ||
	       !flow_matches(flow, arg->key);
}

static const struct rhashtable_params match_params = {
	.head_offset = offsetof(struct rsw_flow, match_node),
	.hashfn = match_hashfn,
	.obj_hashfn = match_obj_hashfn,
	.obj_cmpfn = match_cmpfn,
	.automatic_shrinking = true,
};

/*
 * The UFID's hash, kept beside it so that lookups, inserts and resizes of
 * the UFID table never hash it again; secret as the range hash is.
 */
void rsw_flow_id_set(struct rsw_flow_id *id, const void *bytes, u32 len)
{
	id->len = len;
	memcpy(id->bytes, bytes, len);
	id->hash = jhash(id->bytes, len, match_seed ^ len);
}

static u32 ufid_hashfn(const void *data, u32 len, u32 seed)
{
	const struct rsw_flow_id *id = data;

	return id->hash ^ seed;
}

static u32 ufid_obj_hashfn(const void *data, u32 len, u32 seed)
{
	const struct rsw_flow *flow = data;

	return flow->id.hash ^ seed;
}

static int ufid_cmpfn(struct rhashtable_compare_arg *cmp, const void *obj)
{
	const struct rsw_flow *flow = obj;
	const struct rsw_flow_id *id = cmp->key;

	return flow->id.len != id->len ||
	       memcmp(flow->id.bytes, id->bytes, id->len);
}

static const struct rhashtable_params ufid_params = {
	.head_offset = offsetof(struct rsw_flow, ufid_node),
	.hashfn = ufid_hashfn,
	.obj_hashfn = ufid_obj_hashfn,
	.obj_cmpfn = ufid_cmpfn,
	.automatic_shrinking = true,
};

void rsw_flow_key_mask(struct rsw_flow_key *dst, const struct rsw_flow_key *src,
		       const struct rsw_flow_key *mask)
{
	const unsigned long *s = (const unsigned long *)src;
	const unsigned long *m = (const unsigned long *)mask;
	unsigned long *d = (unsigned long *)dst;
	unsigned int i;

	for (i = 0; i < RSW_FLOW_KEY_LONGS; i++)
		d[i] = s[i] & m[i];
}

static void key_range(const struct rsw_flow_key *key, u16 *start, u16 *end)
{
	const unsigned long *w = (const unsigned long *)key;
	int first = -1, last = -1, i;

	for (i = 0; i < RSW_FLOW_KEY_LONGS; i++) {
		if (!w[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	/* An all-zero mask has an empty range and matches every packet. */
	*start = first < 0 ? 0 : first * sizeof(long);
	*end = first < 0 ? 0 : (last + 1) * sizeof(long);
}

/*
 * The flow with @mask whose masked key matches @key, or NULL; under RCU.
 * @st, if not NULL, carries hashing work from one mask of a walk to the
 * next (range_hash()).
 */
static struct rsw_flow *masked_lookup(struct rsw_flow_table *table,
				      const struct rsw_flow_key *key,
				      const struct rsw_flow_mask *mask,
				      struct range_hash_state *st)
{
	struct match_arg arg = {
		.mask = mask, .key = key, .hash = range_hash(key, mask, st)
	};

	return rhashtable_lookup(&table->flows, &arg, match_params);
}

/*
 * Try every mask except the one at @skip; on a match, *@index is where the
 * matching mask sits.
 */
static struct rsw_flow *scan_masks(struct rsw_flow_table *table,
				   const struct rsw_mask_array *ma,
				   const struct rsw_flow_key *key, u32 skip,
				   u32 *n_mask_hit, u32 *index)
{
	u32 nr_slots = READ_ONCE(ma->nr_slots);
	struct range_hash_state st;
	struct rsw_flow_mask *mask;
	struct rsw_flow *flow;
	u32 i;

	st.mask = NULL;
	for (i = 0; i < nr_slots; i++) {
		if (i == skip)
			continue;
		mask = rcu_dereference(ma->masks[i]);
		if (unlikely(!mask))
			continue;
		(*n_mask_hit)++;
		flow = masked_lookup(table, key, mask, &st);
		if (flow) {
			mask_hit(mask);
			*index = i;
			return flow;
		}
	}
	return NULL;
}

/*
 * The cache entries for a hash are probed in turn; the first that holds
 * the hash names the slot to try first, and the other slots follow in
 * order when that mask finds nothing.  A hash held by none of them takes
 * one of the probed entries once the full walk has found its mask.
 */
static struct rsw_flow *mask_cache_lookup(struct rsw_flow_table *table,
					  struct rsw_mask_cache *mc,
					  const struct rsw_flow_key *key,
					  u32 skb_hash, u32 *n_mask_hit,
					  u32 *n_cache_hit)
{
	struct rsw_mask_array *ma = rcu_dereference(table->masks);
	struct rsw_mask_cache_entry *entries, *e, *victim = NULL;
	struct rsw_flow_mask *mask;
	struct rsw_flow *flow;
	u32 index, h;
	int probe;

	entries = this_cpu_ptr(mc->entries);
	h = skb_hash;
	for (probe = 0; probe < CACHE_PROBES; probe++) {
		e = &entries[h & (mc->size - 1)];
		h >>= CACHE_PROBE_SHIFT;

		if (e->skb_hash != skb_hash) {
			/* Evict the smallest hash: cheap, roughly random. */
			if (!victim || e->skb_hash < victim->skb_hash)
				victim = e;
			continue;
		}

		index = e->mask_index;
		if (index < READ_ONCE(ma->nr_slots)) {
			mask = rcu_dereference(ma->masks[index]);
			if (mask) {
				(*n_mask_hit)++;
				flow = masked_lookup(table, key, mask, NULL);
				if (flow) {
					mask_hit(mask);
					(*n_cache_hit)++;
					return flow;
				}
			}
		}
		flow = scan_masks(table, ma, key, e->mask_index, n_mask_hit,
				  &index);
		if (flow)
			e->mask_index = index;
		else
			e->skb_hash = 0;
		return flow;
	}

	flow = scan_masks(table, ma, key, U32_MAX, n_mask_hit, &index);
	if (flow) {
		victim->skb_hash = skb_hash;
		victim->mask_index = index;
	}
	return flow;
}

/*
 * The fields that tell one microflow from another, as the flow dissector
 * would read them for skb_get_hash(), but from the key: the L3 addresses,
 * the L4 ports, the protocol, and beside them the input port, the
 * Ethernet addresses and the VLAN tags folded in.  Not the TCP flags,
 * which change within a connection, nor the TTL or TOS.
 */
u32 rsw_flow_table_key_hash(const struct rsw_flow_key *key)
{
	const u32 *l2 = (const u32 *)((const u8 *)key +
				      RSW_FLOW_KEY_PACKET_OFFSET);
	u32 ports = (__force u32)key->tp_src << 16 | (__force u16)key->tp_dst;
	u32 basis;

	/* eth_src, eth_dst, vlan and cvlan: five words from the offset */
	BUILD_BUG_ON(RSW_FLOW_KEY_PACKET_OFFSET % sizeof(u32) ||
		     offsetof(struct rsw_flow_key, eth_type) !=
		     RSW_FLOW_KEY_PACKET_OFFSET + 5 * sizeof(u32));
	basis = match_seed ^ key->in_port ^ l2[0] ^ l2[1] ^ l2[2] ^ l2[3] ^
		l2[4] ^ ((__force u32)key->eth_type << 8 | key->ip_proto);

	switch (key->eth_type) {
	case htons(ETH_P_IP):
	case htons(ETH_P_ARP):	/* sip and tip where IPv4's addresses are */
		return jhash_3words((__force u32)key->ipv4.src,
				    (__force u32)key->ipv4.dst, ports, basis);
	case htons(ETH_P_IPV6):
		return jhash2((const u32 *)&key->ipv6.src,
			      2 * sizeof(struct in6_addr) / sizeof(u32),
			      basis ^ ports);
	default:
		return jhash_1word(ports, basis);
	}
}

struct rsw_flow *rsw_flow_table_lookup(struct rsw_flow_table *table,
				       const struct rsw_flow_key *key,
				       u32 skb_hash, u32 *n_mask_hit,
				       u32 *n_cache_hit)
{
	struct rsw_mask_cache *mc = rcu_dereference(table->cache);
	struct flow_cache_entry *fe;
	struct rsw_flow *flow;
	u32 index;

	if (!skb_hash || !mc->size)
		return scan_masks(table, rcu_dereference(table->masks), key,
				  U32_MAX, n_mask_hit, &index);

	lockdep_assert_in_softirq();

	/* A packet keeps its hash across recirculation, but the flows
	 * before and after differ: give each pass its own entries.
	 */
	if (key->recirc_id)
		skb_hash = jhash_1word(skb_hash, key->recirc_id);

	fe = this_cpu_ptr(mc->flows) + (skb_hash & (FLOW_CACHE_ENTRIES - 1));
	if (fe->skb_hash == skb_hash) {
		flow = xa_load(&table->all, fe->flow_index);
		if (flow && READ_ONCE(flow->published) &&
		    flow_matches(flow, key)) {
			mask_hit(flow->mask);
			(*n_mask_hit)++;
			(*n_cache_hit)++;
			return flow;
		}
	}

	flow = mask_cache_lookup(table, mc, key, skb_hash, n_mask_hit,
				 n_cache_hit);
	if (flow) {
		fe->skb_hash = skb_hash;
		fe->flow_index = flow->dump_index;
	}
	return flow;
}

struct rsw_flow *rsw_flow_table_find_ufid(struct rsw_flow_table *table,
					  const struct rsw_flow_id *id)
{
	if (!id->len)
		return NULL;
	return rhashtable_lookup_fast(&table->ufids, id, ufid_params);
}

static bool mask_equal(const struct rsw_flow_mask *mask,
		       const struct rsw_flow_key *key, u16 start, u16 end)
{
	return mask->start == start && mask->end == end &&
	       range_equal(&mask->key, key, start, end);
}

struct rsw_flow *rsw_flow_table_find_exact(struct rsw_flow_table *table,
					   const struct rsw_flow_key *unmasked,
					   const struct rsw_flow_key *mask)
{
	struct rsw_flow *flow, *found = NULL;
	struct rsw_mask_array *ma;
	struct rsw_flow_mask *m;
	u16 start = 0, end = 0;
	u32 i;

	if (mask)
		key_range(mask, &start, &end);

	rcu_read_lock();
	ma = rcu_dereference(table->masks);
	for (i = 0; i < READ_ONCE(ma->nr_slots); i++) {
		m = rcu_dereference(ma->masks[i]);
		if (!m || (mask && !mask_equal(m, mask, start, end)))
			continue;
		flow = masked_lookup(table, unmasked, m, NULL);
		if (flow && !flow->id.len &&
		    !memcmp(&flow->unmasked, unmasked, sizeof(*unmasked))) {
			found = flow;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static struct rsw_mask_array *mask_array_alloc(u32 capacity)
{
	struct rsw_mask_array *ma;

	ma = kzalloc(struct_size(ma, masks, capacity), GFP_KERNEL);
	if (ma)
		ma->capacity = capacity;
	return ma;
}

/* The array with room for one more slot past the last; under rsw_mutex. */
static struct rsw_mask_array *mask_array_room(struct rsw_flow_table *table)
{
	struct rsw_mask_array *ma = rsw_deref(table->masks);
	struct rsw_mask_array *bigger;
	u32 i;

	if (ma->nr_slots < ma->capacity)
		return ma;

	bigger = mask_array_alloc(ma->capacity * 2);
	if (!bigger)
		return NULL;
	for (i = 0; i < ma->nr_slots; i++)
		RCU_INIT_POINTER(bigger->masks[i], rsw_deref(ma->masks[i]));
	bigger->nr_slots = ma->nr_slots;
	bigger->nr_masks = ma->nr_masks;
	rcu_assign_pointer(table->masks, bigger);
	kfree_rcu(ma, rcu);
	return bigger;
}

/* Publish @mask in the lowest empty slot; under rsw_mutex. */
static int mask_array_add(struct rsw_flow_table *table,
			  struct rsw_flow_mask *mask)
{
	struct rsw_mask_array *ma = rsw_deref(table->masks);
	u32 slot = 0;

	if (ma->nr_masks < ma->nr_slots) {
		while (rsw_deref(ma->masks[slot]))
			slot++;
		rcu_assign_pointer(ma->masks[slot], mask);
		WRITE_ONCE(ma->nr_masks, ma->nr_masks + 1);
		return 0;
	}

	ma = mask_array_room(table);
	if (!ma)
		return -ENOMEM;
	rcu_assign_pointer(ma->masks[ma->nr_slots], mask);
	WRITE_ONCE(ma->nr_masks, ma->nr_masks + 1);
	/* Readers that see the new length find the slot filled or NULL. */
	smp_store_release(&ma->nr_slots, ma->nr_slots + 1);
	return 0;
}

/* Empty @mask's slot, shortening the walk over empty slots at the end. */
static void mask_array_del(struct rsw_flow_table *table,
			   struct rsw_flow_mask *mask)
{
	struct rsw_mask_array *ma = rsw_deref(table->masks);
	u32 slot, nr_slots = ma->nr_slots;

	for (slot = 0; slot < nr_slots; slot++)
		if (rsw_deref(ma->masks[slot]) == mask)
			break;
	if (WARN_ON_ONCE(slot == nr_slots))
		return;

	RCU_INIT_POINTER(ma->masks[slot], NULL);
	WRITE_ONCE(ma->nr_masks, ma->nr_masks - 1);
	while (nr_slots && !rsw_deref(ma->masks[nr_slots - 1]))
		nr_slots--;
	WRITE_ONCE(ma->nr_slots, nr_slots);
}

static struct rsw_flow_mask *mask_alloc(const struct rsw_flow_key *key,
					u16 start, u16 end)
{
	struct rsw_flow_mask *mask;

	mask = kzalloc(sizeof(*mask), GFP_KERNEL);
	if (!mask)
		return NULL;
	mask->hits = alloc_percpu(u64);
	if (!mask->hits) {
		kfree(mask);
		return NULL;
	}
	mask->key = *key;
	mask->start = start;
	mask->end = end;
	mask->users = 1;
	return mask;
}

static void mask_free(struct rsw_flow_mask *mask)
{
	free_percpu(mask->hits);
	kfree(mask);
}

static void mask_free_rcu(struct rcu_head *head)
{
	mask_free(container_of(head, struct rsw_flow_mask, rcu));
}

/* Take a reference on the mask equal to @key, creating it if need be. */
static struct rsw_flow_mask *mask_get(struct rsw_flow_table *table,
				      const struct rsw_flow_key *key)
{
	struct rsw_mask_array *ma = rsw_deref(table->masks);
	struct rsw_flow_mask *mask;
	u16 start, end;
	u32 i;
	int err;

	rsw_assert_locked();

	key_range(key, &start, &end);
	for (i = 0; i < ma->nr_slots; i++) {
		mask = rsw_deref(ma->masks[i]);
		if (mask && mask_equal(mask, key, start, end)) {
			mask->users++;
			return mask;
		}
	}

	mask = mask_alloc(key, start, end);
	if (!mask)
		return ERR_PTR(-ENOMEM);
	err = mask_array_add(table, mask);
	if (err) {
		mask_free(mask);
		return ERR_PTR(err);
	}
	return mask;
}

static void mask_put(struct rsw_flow_table *table, struct rsw_flow_mask *mask)
{
	rsw_assert_locked();

	if (--mask->users)
		return;
	mask_array_del(table, mask);
	call_rcu(&mask->rcu, mask_free_rcu);
}

/* A mask's slot and the lookups it answered since the last reordering. */
struct mask_busy {
	u64 hits;
	u32 slot;
};

/* Busiest first; equally busy masks keep their order, so idle ones stay. */
static int busiest_first(const void *a, const void *b)
{
	const struct mask_busy *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return x->slot < y->slot ? -1 : 1;
}

/*
 * Lookups @mask answered since the last call; under rsw_mutex.  The
 * counters are read without stopping the CPUs that add to them: a count
 * that lands meanwhile goes to the next reordering.
 */
static u64 mask_hits_since(struct rsw_flow_mask *mask)
{
	u64 total = 0, since;
	int cpu;

	for_each_possible_cpu(cpu)
		total += READ_ONCE(*per_cpu_ptr(mask->hits, cpu));
	since = total - mask->hits_seen;
	mask->hits_seen = total;
	return since;
}

/*
 * Put the masks that answered the most lookups since the last call first,
 * so that a packet the cache cannot place tries them first, and drop the
 * holes; under rsw_mutex.  An order that is already right is left alone
 * (no new array, no cache entry made stale); an allocation failure leaves
 * the old order, to be tried again next time.
 */
static void reorder_masks(struct rsw_flow_table *table)
{
	struct rsw_mask_array *ma = rsw_deref(table->masks);
	struct rsw_mask_array *sorted;
	struct rsw_flow_mask *mask;
	struct mask_busy *busy;
	bool moved = false;
	u32 i, n = 0;

	rsw_assert_locked();

	if (!ma->nr_masks)
		return;
	busy = kvmalloc_array(ma->nr_masks, sizeof(*busy), GFP_KERNEL);
	if (!busy)
		return;
	for (i = 0; i < ma->nr_slots; i++) {
		mask = rsw_deref(ma->masks[i]);
		if (!mask)
			continue;
		busy[n].hits = mask_hits_since(mask);
		busy[n].slot = i;
		n++;
	}
	sort(busy, n, sizeof(*busy), busiest_first, NULL);
	/* Any hole below the last mask shows as a slot out of place too. */
	for (i = 0; i < n; i++)
		moved |= busy[i].slot != i;
	if (!moved)
		goto out_free;

	sorted = mask_array_alloc(ma->capacity);
	if (!sorted)
		goto out_free;
	for (i = 0; i < n; i++)
		RCU_INIT_POINTER(sorted->masks[i],
				 rsw_deref(ma->masks[busy[i].slot]));
	sorted->nr_slots = n;
	sorted->nr_masks = n;
	rcu_assign_pointer(table->masks, sorted);
	kfree_rcu(ma, rcu);
out_free:
	kvfree(busy);
}

static void reorder_work(struct work_struct *work)
{
	struct rsw_flow_table *table = container_of(to_delayed_work(work),
						    struct rsw_flow_table,
						    reorder);

	mutex_lock(&rsw_mutex);
	if (!table->stopped) {
		reorder_masks(table);
		queue_delayed_work(system_power_efficient_wq, &table->reorder,
				   msecs_to_jiffies(RSW_MASKS_REORDER_MS));
	}
	mutex_unlock(&rsw_mutex);
}

void rsw_flow_table_start(struct rsw_flow_table *table)
{
	rsw_assert_locked();
	queue_delayed_work(system_power_efficient_wq, &table->reorder,
			   msecs_to_jiffies(RSW_MASKS_REORDER_MS));
}

/*
 * A reordering that already waits for rsw_mutex sees @stopped once it has
 * it and neither reorders nor comes back.
 */
void rsw_flow_table_stop(struct rsw_flow_table *table)
{
	rsw_assert_locked();
	table->stopped = true;
	cancel_delayed_work(&table->reorder);
}

/* How long a failure forced by the fault point keeps the insert going. */
#define FORCED_FAILURE_MS 10

/*
 * The match-table insert, which rhashtable may fail with -ENOMEM when it
 * cannot allocate for a rehash.  The fault point fails it on demand, after
 * a pause that keeps the insert in flight long enough for concurrent dumps
 * and lookups to see whatever it has published so far (nothing, if the
 * order below is right).
 */
static void *insert_match(struct rsw_flow_table *table, struct rsw_flow *flow)
{
	struct match_arg arg = {
		.mask = flow->mask, .key = &flow->key, .hash = flow->hash
	};

	if (rsw_should_fail(RSW_FAULT_FLOW_INSERT)) {
		msleep(FORCED_FAILURE_MS);
		return ERR_PTR(-ENOMEM);
	}
	return rhashtable_lookup_get_insert_key(&table->flows, &arg,
						&flow->match_node,
						match_params);
}

/*
 * Order matters to lockless readers.  The flow takes its dump slot first,
 * in one step (a slot reserved and filled later costs the xarray's walk
 * twice), but is published last, once no step can fail: until then dumps
 * and the flow cache pass it over, so that neither shows a flow whose
 * insert is then undone.  The match table comes after the UFID table, so
 * that the packet path never finds a flow that fails afterwards either.
 */
int rsw_flow_table_insert(struct rsw_flow_table *table, struct rsw_flow *flow,
			  const struct rsw_flow_key *mask)
{
	struct rsw_flow_mask *m;
	void *old;
	int err;

	rsw_assert_locked();

	m = mask_get(table, mask);
	if (IS_ERR(m))
		return PTR_ERR(m);
	flow->mask = m;
	rsw_flow_key_mask(&flow->key, &flow->unmasked, &m->key);
	flow->hash = range_hash(&flow->key, m, NULL);

	err = xa_alloc(&table->all, &flow->dump_index, flow, xa_limit_31b,
		       GFP_KERNEL);
	if (err)
		goto err_put_mask;

	if (flow->id.len) {
		old = rhashtable_lookup_get_insert_key(&table->ufids, &flow->id,
						       &flow->ufid_node,
						       ufid_params);
		if (old) {
			err = IS_ERR(old) ? PTR_ERR(old) : -EEXIST;
			goto err_release_slot;
		}
	}

	old = insert_match(table, flow);
	if (old) {
		err = IS_ERR(old) ? PTR_ERR(old) : -EEXIST;
		goto err_remove_ufid;
	}

	WRITE_ONCE(flow->published, true);
	WRITE_ONCE(table->count, table->count + 1);
	return 0;

err_remove_ufid:
	if (flow->id.len)
		rhashtable_remove_fast(&table->ufids, &flow->ufid_node,
				       ufid_params);
err_release_slot:
	/* Readers that found it there are done with it before it is
	 * freed: rsw_flow_free() waits for a grace period.
	 */
	xa_erase(&table->all, flow->dump_index);
err_put_mask:
	mask_put(table, m);
	return err;
}

void rsw_flow_table_remove(struct rsw_flow_table *table,
			   struct rsw_flow *flow)
{
	rsw_assert_locked();

	rhashtable_remove_fast(&table->flows, &flow->match_node, match_params);
	if (flow->id.len)
		rhashtable_remove_fast(&table->ufids, &flow->ufid_node,
				       ufid_params);
	xa_erase(&table->all, flow->dump_index);
	/* Dumps and the packet path may still read flow->mask: it is
	 * freed only after a grace period.
	 */
	mask_put(table, flow->mask);
	WRITE_ONCE(table->count, table->count - 1);
}

void rsw_flow_table_flush(struct rsw_flow_table *table)
{
	struct rsw_flow *flow;
	unsigned long index;

	rsw_assert_locked();

	xa_for_each(&table->all, index, flow) {
		rsw_flow_table_remove(table, flow);
		rsw_flow_free(flow);
	}
}

u32 rsw_flow_table_mask_count(const struct rsw_flow_table *table)
{
	const struct rsw_mask_array *ma;
	u32 count;

	rcu_read_lock();
	ma = rcu_dereference(table->masks);
	count = READ_ONCE(ma->nr_masks);
	rcu_read_unlock();
	return count;
}

static struct rsw_mask_cache *cache_alloc(u32 size)
{
	struct rsw_mask_cache *mc;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return NULL;
	mc->size = size;
	if (!size)
		return mc;
	mc->entries = __alloc_percpu(array_size(sizeof(*mc->entries), size),
				     __alignof__(*mc->entries));
	if (!mc->entries)
		goto err_free_cache;
	mc->flows = __alloc_percpu(array_size(sizeof(*mc->flows),
					      FLOW_CACHE_ENTRIES),
				   __alignof__(*mc->flows));
	if (!mc->flows)
		goto err_free_entries;
	return mc;

err_free_entries:
	free_percpu(mc->entries);
err_free_cache:
	kfree(mc);
	return NULL;
}

static void cache_free(struct rsw_mask_cache *mc)
{
	free_percpu(mc->flows);
	free_percpu(mc->entries);
	kfree(mc);
}

static void cache_free_rcu(struct rcu_head *head)
{
	cache_free(container_of(head, struct rsw_mask_cache, rcu));
}

int rsw_flow_table_set_cache_size(struct rsw_flow_table *table, u32 size)
{
	struct rsw_mask_cache *old = rsw_deref(table->cache);
	struct rsw_mask_cache *mc;

	rsw_assert_locked();

	if (size == old->size)
		return 0;
	if ((size && !is_power_of_2(size)) || size > RSW_MASKS_CACHE_MAX)
		return -EINVAL;

	mc = cache_alloc(size);
	if (!mc)
		return -ENOMEM;
	rcu_assign_pointer(table->cache, mc);
	call_rcu(&old->rcu, cache_free_rcu);
	return 0;
}

u32 rsw_flow_table_cache_size(const struct rsw_flow_table *table)
{
	u32 size;

	rcu_read_lock();
	size = rcu_dereference(table->cache)->size;
	rcu_read_unlock();
	return size;
}

void rsw_flow_walk_start(struct rsw_flow_walk *walk,
			 struct rsw_flow_table *table, u64 pos)
{
	walk->done = pos > xa_limit_31b.max;
	walk->xas = (struct xa_state)__XA_STATE(&table->all,
						walk->done ? 0 : pos, 0, 0);
}

/*
 * xas_retry() starts the step again from the slot the walk is at when a
 * concurrent change moved the node it was in.  A flow whose insert is
 * still under way, and may yet fail, is passed over.
 */
struct rsw_flow *rsw_flow_walk_next(struct rsw_flow_walk *walk)
{
	struct rsw_flow *flow;

	if (walk->done)
		return NULL;
	do {
		flow = xas_next_entry(&walk->xas, xa_limit_31b.max);
	} while (xas_retry(&walk->xas, flow) ||
		 (flow && !READ_ONCE(flow->published)));
	return flow;
}

int rsw_flow_table_init(struct rsw_flow_table *table)
{
	struct rsw_mask_array *ma;
	struct rsw_mask_cache *mc;
	int err;

	err = rhashtable_init(&table->flows, &match_params);
	if (err)
		goto err_out;
	err = rhashtable_init(&table->ufids, &ufid_params);
	if (err)
		goto err_destroy_flows;

	err = -ENOMEM;
	ma = mask_array_alloc(MASKS_MIN_CAPACITY);
	if (!ma)
		goto err_destroy_ufids;
	mc = cache_alloc(RSW_MASKS_CACHE_DEFAULT);
	if (!mc)
		goto err_free_masks;

	RCU_INIT_POINTER(table->masks, ma);
	RCU_INIT_POINTER(table->cache, mc);
	xa_init_flags(&table->all, XA_FLAGS_ALLOC);
	table->count = 0;
	INIT_DELAYED_WORK(&table->reorder, reorder_work);
	table->stopped = false;
	return 0;

err_free_masks:
	kfree(ma);
err_destroy_ufids:
	rhashtable_destroy(&table->ufids);
err_destroy_flows:
	rhashtable_destroy(&table->flows);
err_out:
	return err;
}

void rsw_flow_table_uninit(struct rsw_flow_table *table)
{
	struct rsw_mask_array *ma;
	struct rsw_flow *flow;
	unsigned long index;
	u32 i;

	/* A table never started has no reordering to wait for, and may be
	 * torn down under rsw_mutex, which a reordering takes.
	 */
	if (table->stopped)
		cancel_delayed_work_sync(&table->reorder);
	WARN_ON_ONCE(delayed_work_pending(&table->reorder));

	/* Nobody else can reach @table: no lock is needed, and flows still
	 * go through rsw_flow_free() only so they all die the same way.
	 */
	xa_for_each(&table->all, index, flow)
		rsw_flow_free(flow);
	xa_destroy(&table->all);
	rhashtable_destroy(&table->ufids);
	rhashtable_destroy(&table->flows);

	ma = rcu_dereference_protected(table->masks, true);
	for (i = 0; i < ma->nr_slots; i++) {
		struct rsw_flow_mask *mask;

		mask = rcu_dereference_protected(ma->masks[i], true);
		if (mask)
			call_rcu(&mask->rcu, mask_free_rcu);
	}
	kfree_rcu(ma, rcu);
	call_rcu(&rcu_dereference_protected(table->cache, true)->rcu,
		 cache_free_rcu);
	RCU_INIT_POINTER(table->masks, NULL);
	RCU_INIT_POINTER(table->cache, NULL);
}

/**
 * rsw_flow_alloc - a zeroed flow with its per-CPU counters
 *
 * Return: the flow, or NULL when memory is short.
 */
struct rsw_flow *rsw_flow_alloc(void)
{
	struct rsw_flow *flow;

	flow = kmem_cache_zalloc(flow_cache, GFP_KERNEL);
	if (!flow)
		return NULL;
	flow->stats = rsw_flow_stats_get(&flow->stats_block);
	if (!flow->stats) {
		kmem_cache_free(flow_cache, flow);
		return NULL;
	}
	return flow;
}

static void flow_free_rcu(struct rcu_head *head)
{
	struct rsw_flow *flow = container_of(head, struct rsw_flow, rcu);
	struct rsw_flow_actions *acts;

	acts = rcu_dereference_protected(flow->acts, true);
	if (acts)
		rsw_actions_free(acts);
	rsw_flow_stats_put(flow->stats, flow->stats_block);
	kmem_cache_free(flow_cache, flow);
}

void rsw_flow_free(struct rsw_flow *flow)
{
	if (flow)
		call_rcu(&flow->rcu, flow_free_rcu);
}

void rsw_flow_stats_update(struct rsw_flow *flow, __be16 tcp_flags,
			   const struct sk_buff *skb)
{
	struct rsw_flow_stats *stats = this_cpu_ptr(flow->stats);
	unsigned int len = skb->len;

	lockdep_assert_in_softirq();

	/* Count an accelerated VLAN tag as the bytes it is on the wire. */
	if (skb_vlan_tag_present(skb))
		len += VLAN_HLEN;

	u64_stats_update_begin(&stats->syncp);
	stats->packets++;
	stats->bytes += len;
	stats->used = jiffies;
	stats->tcp_flags |= tcp_flags;
	u64_stats_update_end(&stats->syncp);
}

/**
 * rsw_flow_stats_read - sum a flow's counters over every CPU
 * @flow: the flow, under RCU or rsw_mutex
 * @stats: out: packets and bytes
 * @used: out: jiffies of the most recent packet on any CPU, 0 if none
 * @tcp_flags: out: union of the TCP flags seen on every CPU
 */
void rsw_flow_stats_read(const struct rsw_flow *flow,
			 struct ovs_flow_stats *stats, unsigned long *used,
			 __be16 *tcp_flags)
{
	int cpu;

	memset(stats, 0, sizeof(*stats));
	*used = 0;
	*tcp_flags = 0;

	for_each_possible_cpu(cpu) {
		const struct rsw_flow_stats *pcpu = per_cpu_ptr(flow->stats,
								 cpu);
		u64 packets, bytes;
		unsigned long when;
		unsigned int start;
		__be16 flags;

		do {
			start = u64_stats_fetch_begin(&pcpu->syncp);
			packets = pcpu->packets;
			bytes = pcpu->bytes;
			when = pcpu->used;
			flags = pcpu->tcp_flags;
		} while (u64_stats_fetch_retry(&pcpu->syncp, start));

		stats->n_packets += packets;
		stats->n_bytes += bytes;
		if (when && (!*used || time_after(when, *used)))
			*used = when;
		*tcp_flags |= flags;
	}
}

/**
 * rsw_flow_stats_clear - zero a flow's counters, under rsw_mutex
 * @flow: the flow
 *
 * The counters have no lock: a packet being counted on another CPU at the
 * same moment may survive the clear, or bring back that CPU's count from
 * before it.  Clears are rare, explicit requests (OVS_FLOW_ATTR_CLEAR);
 * making them exact would cost a lock on every packet.
 */
void rsw_flow_stats_clear(struct rsw_flow *flow)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rsw_flow_stats *pcpu = per_cpu_ptr(flow->stats, cpu);

		WRITE_ONCE(pcpu->packets, 0);
		WRITE_ONCE(pcpu->bytes, 0);
		WRITE_ONCE(pcpu->used, 0);
		WRITE_ONCE(pcpu->tcp_flags, 0);
	}
}

int rsw_flow_table_module_init(void)
{
	match_seed = get_random_u32();
	flow_cache = KMEM_CACHE(rsw_flow, 0);
	return flow_cache ? 0 : -ENOMEM;
}

void rsw_flow_table_module_uninit(void)
{
	/* Flows freed by RCU callbacks must be back in the cache first. */
	rcu_barrier();
	kmem_cache_destroy(flow_cache);
	rsw_flow_stats_uninit();
}
