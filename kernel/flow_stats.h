/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flow's per-CPU counters, handed out as slots of shared per-CPU blocks,
 * so that a flow install does not pay for a per-CPU allocation of its own.
 */
#ifndef _RSW_FLOW_STATS_H
#define _RSW_FLOW_STATS_H

#include <linux/compiler_types.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

/* Per-CPU flow counters, summed when userspace asks. */
struct rsw_flow_stats {
	u64 packets;
	u64 bytes;
	unsigned long used;	/* jiffies of the last packet, 0 = never */
	__be16 tcp_flags;	/* union of the flags seen */
	struct u64_stats_sync syncp;
};

struct rsw_stats_block;

/**
 * rsw_flow_stats_get - a zeroed slot of counters for a new flow
 * @block: out: the block the slot belongs to, for rsw_flow_stats_put()
 *
 * Process context; may sleep.  Each CPU's copy of the slot is written by
 * that CPU alone, so the packet path updates it without a lock.
 *
 * Return: the slot, or NULL when memory is short.
 */
struct rsw_flow_stats __percpu *
rsw_flow_stats_get(struct rsw_stats_block **block);

/**
 * rsw_flow_stats_put - give a flow's slot back
 * @stats: the slot rsw_flow_stats_get() returned
 * @block: its block
 *
 * Only once no CPU can update or read the slot any more: a grace period
 * after its flow became unreachable.  Any context but hard IRQ.
 */
void rsw_flow_stats_put(struct rsw_flow_stats __percpu *stats,
			struct rsw_stats_block *block);

/* At module unload, after every flow has been freed. */
void rsw_flow_stats_uninit(void);

#endif /* _RSW_FLOW_STATS_H */
