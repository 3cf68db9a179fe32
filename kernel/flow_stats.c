// SPDX-License-Identifier: GPL-2.0
/*
 * Flow counters from shared per-CPU blocks.  alloc_percpu() for every flow
 * cost half of an install (the percpu allocator's mutex, its bitmap scan
 * and the zeroing of each CPU's copy; measured on 2026-12-07 with perf in
 * a test host on QEMU's instruction counter: pcpu_alloc 19% of a run that
 * installed and dumped 50,000 flows, flow_cmd_new 42%), and its cost grew
 * as freed areas fragmented the chunks.  A block holds the counters of
 * STATS_PER_BLOCK flows; a flow takes one slot of it.
 */

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "flow_stats.h"

#define STATS_PER_BLOCK 64

struct rsw_stats_block {
	/* STATS_PER_BLOCK counters for each CPU */
	struct rsw_flow_stats __percpu *slots;
	/* The rest is under stats_lock. */
	DECLARE_BITMAP(taken, STATS_PER_BLOCK);
	unsigned int nr_taken;
	struct list_head node;	/* in partial_blocks while not full */
};

/*
 * Protects partial_blocks and every block's taken, nr_taken and node.
 * Taken from process context and from RCU callbacks, hence the _bh.
 */
static DEFINE_SPINLOCK(stats_lock);
/* Blocks with a free slot; a block with none is on no list. */
static LIST_HEAD(partial_blocks);

static struct rsw_stats_block *block_alloc(void)
{
	struct rsw_stats_block *block;

	block = kzalloc(sizeof(*block), GFP_KERNEL);
	if (!block)
		return NULL;
	block->slots = __alloc_percpu(STATS_PER_BLOCK * sizeof(*block->slots),
				      __alignof__(*block->slots));
	if (!block->slots) {
		kfree(block);
		return NULL;
	}
	INIT_LIST_HEAD(&block->node);
	return block;
}

static void block_free(struct rsw_stats_block *block)
{
	free_percpu(block->slots);
	kfree(block);
}

/* A free slot of @block, which is on partial_blocks.  Under stats_lock. */
static unsigned int slot_take(struct rsw_stats_block *block)
{
	unsigned int slot;

	lockdep_assert_held(&stats_lock);

	slot = find_first_zero_bit(block->taken, STATS_PER_BLOCK);
	__set_bit(slot, block->taken);
	if (++block->nr_taken == STATS_PER_BLOCK)
		list_del_init(&block->node);
	return slot;
}

struct rsw_flow_stats __percpu *
rsw_flow_stats_get(struct rsw_stats_block **blockp)
{
	struct rsw_stats_block *block, *spare = NULL;
	struct rsw_flow_stats __percpu *stats;
	unsigned int slot;
	int cpu;

	might_sleep();

	spin_lock_bh(&stats_lock);
	block = list_first_entry_or_null(&partial_blocks,
					 struct rsw_stats_block, node);
	if (!block) {
		spin_unlock_bh(&stats_lock);
		spare = block_alloc();
		if (!spare)
			return NULL;
		spin_lock_bh(&stats_lock);
		/* Another install may have added a block meanwhile. */
		block = list_first_entry_or_null(&partial_blocks,
						 struct rsw_stats_block, node);
		if (!block) {
			block = spare;
			spare = NULL;
			list_add(&block->node, &partial_blocks);
		}
	}
	slot = slot_take(block);
	spin_unlock_bh(&stats_lock);
	if (spare)
		block_free(spare);

	/* The slot's last flow may have left counts behind. */
	stats = block->slots + slot;
	for_each_possible_cpu(cpu) {
		struct rsw_flow_stats *pcpu = per_cpu_ptr(stats, cpu);

		memset(pcpu, 0, sizeof(*pcpu));
		u64_stats_init(&pcpu->syncp);
	}
	*blockp = block;
	return stats;
}

void rsw_flow_stats_put(struct rsw_flow_stats __percpu *stats,
			struct rsw_stats_block *block)
{
	unsigned int slot = stats - block->slots;
	bool empty;

	spin_lock_bh(&stats_lock);
	WARN_ON_ONCE(!__test_and_clear_bit(slot, block->taken));
	if (block->nr_taken-- == STATS_PER_BLOCK)
		list_add(&block->node, &partial_blocks);
	empty = !block->nr_taken;
	if (empty)
		list_del(&block->node);
	spin_unlock_bh(&stats_lock);
	/* free_percpu() may be called in atomic context. */
	if (empty)
		block_free(block);
}

void rsw_flow_stats_uninit(void)
{
	/* A block is freed with its last slot: none may be left. */
	WARN_ON(!list_empty(&partial_blocks));
}
