/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detour.h: the source's side of the switchover.  From the moment a
 * guest pauses for its migration, what the switch outputs to its taps
 * leaves by the uplink instead, towards the destination, whose delivery
 * rules (switchover.h) queue it in the new tap until the guest resumes
 * there.  With our datapath it is the roam_redirect family (kernel/
 * roam_redirect.h): one message a port, in effect from the next packet,
 * no flow changed.  The kernel drops a redirect with its port, so a guest
 * that left takes its redirects along; a migration that fails has them
 * removed here.
 *
 * At the pause the agent also takes hold of the taps' queues
 * (tapqueue.h) and sends on what they hold: the frames the switch handed
 * the tap between QEMU's stop and the redirect, and before them the one
 * QEMU read at the stop and kept (taprecord.h).  Without the family (the
 * in-tree module) that is the whole detour: the taps are drained each
 * time a frame comes in, until the guest leaves, a relay by the agent.
 *
 * The source also sends back out of the uplink, by an OpenFlow rule from
 * the pause on, what comes in by it for the guest's MAC: after the
 * resume the destination's announcement teaches this bridge that the
 * MAC is behind the uplink at once, while the destination's bridge may
 * still send the peer's frames here until it has revalidated its
 * flows (280 ms of a peer's datagrams were lost that way once).  The
 * rule has the switchover's cookie: it goes with the guest's rules when
 * the guest has left (roam-port drop-flows), or at once when the
 * migration fails.
 *
 * What the detours need that is slow to ask (which taps, which VLAN each
 * port's untagged frames belong to, which process reads each tap) is
 * asked while the guest runs (detour_prepare); at the pause only netlink
 * messages go out and the taps' files are copied.
 */
#ifndef ROAM_AGENT_DETOUR_H
#define ROAM_AGENT_DETOUR_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stdint.h>

#include "switchover.h"
#include "taprecord.h"
#include "tapqueue.h"

struct detour_port {
	char dev[64];		/* the guest's tap */
	char mac[18];		/* the guest's MAC on it */
	char bridge[64];	/* and its bridge */
	int uplink_ofport;	/* the uplink's OpenFlow port there */
	uint16_t vlan;		/* pushed on its untagged frames; 0: none */
	uint32_t port_no;	/* in the datapath, from detour_start on */
	bool on;		/* redirected, or relayed, by detour_start */
	struct tapq q;		/* who reads the tap */
	struct tapq_hold h;	/* its queues, from detour_start to the end */
	int watch[TAPQ_MAX_QUEUES];	/* libvirt handle ids of h's files */
	struct tapq_counts sent_on;	/* what they held, sent on */
	uint64_t first_ns;	/* CLOCK_REALTIME of the first sent on */
	struct taprec rec;	/* what the tap was handed, from
				 * detour_record to detour_start */
	int rec_watch;		/* libvirt handle id of rec's socket */
	bool waiting;		/* frames waited in its queue when
				 * detour_start took hold of it */
	bool kept_sent;		/* the frame QEMU kept was sent on */
};

struct detour {
	int n;
	struct detour_port p[SWITCHOVER_MAX_PORTS];
	bool on;		/* detoured and not ended here */
	bool hairpin;		/* the hairpin rules are in (detour_start) */
	int dp_ifindex;		/* the datapath the redirects were set in */
	uint64_t first_ns;	/* CLOCK_REALTIME of the first frame detoured */
	uint64_t packets;	/* frames redirected by the kernel, all ports */
	int drained;		/* frames sent on from the taps' queues */
	int kept;		/* of them, frames QEMU had kept (taprecord.h) */
	int timer;		/* libvirt timeout id while watched, -1: none */
	long long started_ms;	/* CLOCK_MONOTONIC of detour_start */
};

/*
 * detour_init - UPLINK is the port the detours leave by; NULL turns them
 * off.  Without our datapath's family (the in-tree module) the detours
 * are the agent's relay alone, and it says so.
 */
void detour_init(const char *uplink);
void detour_uninit(void);
bool detour_enabled(void);
/* detour_relayed - whether the detours are the agent's relay alone. */
bool detour_relayed(void);

/* detour_prepare - D learns DOM's taps and their VLANs.  Returns how many
 * ports, or -1. */
int detour_prepare(virDomainPtr dom, struct detour *d);

/*
 * detour_record - record what D's taps are handed (taprecord.h), from a
 * migration's start until detour_start has drained them, so that the
 * frame QEMU keeps at the stop can be sent on.  detour_unrecord - stop
 * it, where the migration ended before that.
 */
void detour_record(struct detour *d);
void detour_unrecord(struct detour *d);

/* detour_start - take hold of D's taps and send on what they hold,
 * redirect the ports to the uplink, send on what came in meanwhile;
 * returns how many ports. */
int detour_start(struct detour *d);

/* detour_hairpin - put in the hairpin rules of D's detoured ports (see
 * above): a process run each, so after the timeline has the redirect. */
void detour_hairpin(struct detour *d);

/* detour_sample - D's counters from the kernel, while its ports exist;
 * returns 0 if every redirect answered. */
int detour_sample(struct detour *d);

/* detour_stop - remove D's redirects (the migration failed). */
void detour_stop(struct detour *d);

/* detour_release - let go of D's taps: the detour is over, one way or
 * the other (a tap held outlives its QEMU). */
void detour_release(struct detour *d);

/*
 * detour_clear - remove any redirect of DOM's ports, which only an agent
 * killed during a migration leaves behind: for a guest that runs here
 * with no migration of ours under way.  Returns how many it removed.
 */
int detour_clear(virDomainPtr dom);

#endif
