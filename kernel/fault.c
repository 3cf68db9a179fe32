// SPDX-License-Identifier: GPL-2.0
/*
 * The fault injection points of fault.h, one fault_attr each in
 * /sys/kernel/debug/roamswitch/ (fail_flow_insert, fail_trunc), set like
 * any other (Documentation/fault-injection/fault-injection.rst):
 * probability, interval, times, task-filter, verbose.
 *
 * Unlike the stock default, verbose starts at 0: a test that fails a
 * thousand inserts must not push its own checkpoint out of the kernel log,
 * and a stack dump per failure would read as a splat there.
 */

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include "fault.h"

static DECLARE_FAULT_ATTR(fail_flow_insert);
static DECLARE_FAULT_ATTR(fail_trunc);

static struct fault_attr *const fault_attrs[RSW_NR_FAULTS] = {
	[RSW_FAULT_FLOW_INSERT] = &fail_flow_insert,
	[RSW_FAULT_TRUNC] = &fail_trunc,
};

static const char *const fault_names[RSW_NR_FAULTS] = {
	[RSW_FAULT_FLOW_INSERT] = "fail_flow_insert",
	[RSW_FAULT_TRUNC] = "fail_trunc",
};

static struct dentry *fault_dir;

bool rsw_should_fail(enum rsw_fault fault)
{
	return should_fail(fault_attrs[fault], 1);
}

/*
 * Debugfs failures are not errors, as anywhere in the kernel: without the
 * directory the points never fire and the tests that need them skip.
 */
void rsw_fault_init(void)
{
	int i;

	fault_dir = debugfs_create_dir("roamswitch", NULL);
	for (i = 0; i < RSW_NR_FAULTS; i++) {
		fault_attrs[i]->verbose = 0;
		fault_create_debugfs_attr(fault_names[i], fault_dir,
					  fault_attrs[i]);
	}
}

void rsw_fault_uninit(void)
{
	debugfs_remove_recursive(fault_dir);
}
