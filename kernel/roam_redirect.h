/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The roam_redirect Generic Netlink family: roamswitch's own interface,
 * beside the openvswitch families (whose ABI stays Linux 6.1's).
 *
 * A redirect sends everything the datapath outputs to one of its ports
 * out of another port instead: during a live migration, the frames for a
 * paused guest go from its old tap to the uplink, towards the host it is
 * moving to.  It applies to every output to the port (flows' actions and
 * userspace's packet executions alike) from the next packet on, with no
 * flow change.  Only unicast frames are redirected: group-addressed ones
 * reach the other host by the switch's own flooding, and a second copy
 * would arrive twice; they are dropped at the redirected port.
 *
 * Every message starts with struct ovs_header (linux/openvswitch.h), whose
 * dp_ifindex names the datapath, as in the openvswitch families.  Changes
 * need CAP_NET_ADMIN in the datapath's network namespace; reading does
 * not.  Each change is announced on the multicast group, removals by the
 * kernel too: a redirect goes with its port, with its target port, and
 * with its datapath.
 *
 * This header is shared with userspace (migrate-agent) and includes only
 * uapi headers.
 */
#ifndef _UAPI_ROAM_REDIRECT_H
#define _UAPI_ROAM_REDIRECT_H

#include <linux/types.h>

#define ROAM_REDIRECT_FAMILY	"roam_redirect"
#define ROAM_REDIRECT_MCGROUP	"roam_redirect"
#define ROAM_REDIRECT_VERSION	1

enum roam_redirect_cmd {
	ROAM_REDIRECT_CMD_UNSPEC,
	/*
	 * Redirect PORT's output to TARGET, with VLAN if given; replaces a
	 * redirect PORT already has (its counters start again).  Answered,
	 * and announced, with the new redirect.
	 */
	ROAM_REDIRECT_CMD_SET,
	/*
	 * Stop redirecting PORT (ENOENT if it is not).  Announced with the
	 * redirect's final counters, also when the kernel removes it.
	 */
	ROAM_REDIRECT_CMD_DEL,
	/* PORT's redirect; without PORT, a dump of the datapath's. */
	ROAM_REDIRECT_CMD_GET,

	__ROAM_REDIRECT_CMD_MAX
};

#define ROAM_REDIRECT_CMD_MAX (__ROAM_REDIRECT_CMD_MAX - 1)

enum roam_redirect_attr {
	ROAM_REDIRECT_ATTR_UNSPEC,
	ROAM_REDIRECT_ATTR_PORT,	/* u32: the redirected port's number */
	ROAM_REDIRECT_ATTR_TARGET,	/* u32: the port its output leaves by */
	/*
	 * u16: 802.1Q VID (1-4094) pushed on frames that leave without a
	 * tag, as an access port's or a native VLAN's frames do; tagged
	 * frames keep theirs.  Absent: frames leave as they are.
	 */
	ROAM_REDIRECT_ATTR_VLAN,
	/* Replies only (a request that carries them is refused): */
	ROAM_REDIRECT_ATTR_PACKETS,	/* u64: frames sent out of TARGET */
	ROAM_REDIRECT_ATTR_BYTES,	/* u64: their bytes */
	ROAM_REDIRECT_ATTR_DROPPED,	/* u64: group-addressed, or TARGET going */
	/* u64: CLOCK_REALTIME ns of the first frame redirected, once one was */
	ROAM_REDIRECT_ATTR_FIRST_NS,
	ROAM_REDIRECT_ATTR_PAD,

	__ROAM_REDIRECT_ATTR_MAX
};

#define ROAM_REDIRECT_ATTR_MAX (__ROAM_REDIRECT_ATTR_MAX - 1)

#endif /* _UAPI_ROAM_REDIRECT_H */
