/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detour.h: the source's side of the switchover.  From the moment a
 * guest pauses for its migration, what the switch outputs to its taps
 * leaves by the uplink instead, towards the destination, whose delivery
 * rules (switchover.h) queue it in the new tap until the guest resumes
 * there.  It is our datapath's roam_redirect family (kernel/
 * roam_redirect.h): one message a port, in effect from the next packet,
 * no flow changed.  The kernel drops a redirect with its port, so a guest
 * that left takes its redirects along; a migration that fails has them
 * removed here.
 *
 * What the redirects need that is slow to ask (which taps, which VLAN
 * each port's untagged frames belong to) is asked while the guest runs
 * (detour_prepare); at the pause only netlink messages go out.
 */
#ifndef ROAM_AGENT_DETOUR_H
#define ROAM_AGENT_DETOUR_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stdint.h>

#include "switchover.h"

struct detour_port {
	char dev[64];		/* the guest's tap */
	uint16_t vlan;		/* pushed on its untagged frames; 0: none */
	uint32_t port_no;	/* in the datapath, from detour_start on */
	bool on;		/* redirected by detour_start */
};

struct detour {
	int n;
	struct detour_port p[SWITCHOVER_MAX_PORTS];
	bool on;		/* redirects set and not removed here */
	int dp_ifindex;		/* the datapath they were set in */
	uint64_t first_ns;	/* CLOCK_REALTIME of the first frame redirected */
	uint64_t packets;	/* frames redirected, all ports */
	int timer;		/* libvirt timeout id while watched, -1: none */
	long long started_ms;	/* CLOCK_MONOTONIC of detour_start */
};

/*
 * detour_init - UPLINK is the port the detours leave by; NULL turns them
 * off.  Fails (with a message) when our datapath's family is not there:
 * the in-tree module has none.
 */
int detour_init(const char *uplink);
void detour_uninit(void);
bool detour_enabled(void);

/* detour_prepare - D learns DOM's taps and their VLANs.  Returns how many
 * ports, or -1. */
int detour_prepare(virDomainPtr dom, struct detour *d);

/* detour_start - redirect D's ports to the uplink; returns how many. */
int detour_start(struct detour *d);

/* detour_sample - D's counters from the kernel, while its ports exist;
 * returns 0 if every redirect answered. */
int detour_sample(struct detour *d);

/* detour_stop - remove D's redirects (the migration failed). */
void detour_stop(struct detour *d);

/*
 * detour_clear - remove any redirect of DOM's ports, which only an agent
 * killed during a migration leaves behind: for a guest that runs here
 * with no migration of ours under way.  Returns how many it removed.
 */
int detour_clear(virDomainPtr dom);

#endif
