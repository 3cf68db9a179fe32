/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling the administrator why a request was refused: one helper for flow,
 * key and action refusals alike.
 */
#ifndef _RSW_REFUSE_H
#define _RSW_REFUSE_H

#include <linux/net.h>

/*
 * Refusal lines that userspace test suites look for in the kernel log.
 * They are part of the interface, so they are written word for word as the
 * in-tree datapath writes them, its "netlink: " tag included, so that the
 * whole line reads the same in dmesg ("openvswitch: netlink: ...") for a
 * tool that matches all of it; every other refusal line is our own.
 *
 *   RSW_UNSAFE_ACTIONS    after the actions of an OVS_FLOW_CMD_NEW failed
 *                         validation, whatever the reason (a SET logs a
 *                         line of its own, as the in-tree datapath does).
 *                         The kernel's own Open vSwitch selftests in
 *                         releases after 6.1 (tools/testing/selftests/net/
 *                         openvswitch/openvswitch.sh) count it in dmesg
 *                         before and after a flow they expect to be
 *                         refused: test_netlink_checks (clones nested 17
 *                         deep; "drop(0),2", an action type 6.1 lacks) and
 *                         ovs_test_flow_fails (psample actions, a type
 *                         6.1 lacks).
 *
 * That is the only one.  The selftests' other dmesg check looks for a WARN
 * with its RIP in ovs_dp_cmd_new, a function name rather than a message;
 * their drop-reason test reads kfree_skb tracepoints, not the log; and Open
 * vSwitch's own system tests read ovs-vswitchd's log, not the kernel's.
 */
#define RSW_UNSAFE_ACTIONS \
	"netlink: Flow actions may not be safe on all matching packets."

/**
 * rsw_refuse - log why a request is refused and give its errno
 * @log: false for feature probes, whose refusals are expected
 * @err: the negative errno the request is answered with, or 0 when only
 *	 a part of it is refused and the rest goes ahead without it
 * @fmt: what was wrong, without a trailing newline
 *
 * Rate-limited and at info level: a refusal is a mistake of userspace or a
 * feature this datapath lacks, not a fault of the kernel.  The line carries
 * the module's name from the including file's pr_fmt.
 */
#define rsw_refuse(log, err, fmt, ...)					\
({									\
	if (log)							\
		net_info_ratelimited(fmt "\n", ##__VA_ARGS__);		\
	(err);								\
})

#endif /* _RSW_REFUSE_H */
