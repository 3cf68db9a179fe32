/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the test suite: failures that a running system meets
 * only under memory pressure, forced on demand on kernels built with
 * CONFIG_FAULT_INJECTION_DEBUG_FS.  Elsewhere every point compiles away.
 */
#ifndef _RSW_FAULT_H
#define _RSW_FAULT_H

#include <linux/types.h>

enum rsw_fault {
	/* The flow's insert into the match table fails, as when rhashtable
	 * cannot allocate for a rehash, after a pause of 10 ms that lets
	 * concurrent readers see what the insert published before failing:
	 * fail_flow_insert.  Process context, under rsw_mutex.
	 */
	RSW_FAULT_FLOW_INSERT,
	/* Trimming a packet for a trunc action fails, as pskb_trim() can
	 * on a cloned nonlinear packet: fail_trunc.
	 */
	RSW_FAULT_TRUNC,
	RSW_NR_FAULTS,
};

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/* Whether the caller is to fail at @fault now; any context. */
bool rsw_should_fail(enum rsw_fault fault);
void rsw_fault_init(void);
void rsw_fault_uninit(void);
#else
static inline bool rsw_should_fail(enum rsw_fault fault)
{
	return false;
}

static inline void rsw_fault_init(void)
{
}

static inline void rsw_fault_uninit(void)
{
}
#endif

#endif /* _RSW_FAULT_H */
