/* SPDX-License-Identifier: GPL-2.0 */
/*
 * switchover.h: the guest is announced from its new place the moment it
 * resumes there: for each of its Open vSwitch ports, a broadcast RARP
 * from its MAC, written into its tap as the guest would send it
 * (tapqueue.h), or, when that cannot be done, sent by the switch as if
 * the guest had sent it (OpenFlow packet-out, in_port = its port, action
 * NORMAL).  Either way the switch takes it in on the guest's port.  Every bridge
 * on the way learns the MAC at its new place at once, the source's too,
 * over the uplink, and ovs-vswitchd revalidates the datapath flows a MAC
 * move makes stale without waiting for its next round.  It repeats a few
 * times, so that nothing rests on one frame, and it does not wait for the
 * guest's own announcements (QEMU's, or the guest's after it runs).
 *
 * With an uplink (switchover_init), the destination also delivers what
 * the source redirects (detour.h): from Prepare on, a rule per port takes
 * frames from the uplink for the guest's MAC (and its VLAN, untagged
 * again for an access port) to the new tap, which queues them until the
 * guest resumes (its queue made long enough for a pause of seconds, for
 * good: see switchover.c).  Without the rules the bridge might send them
 * back out of the uplink, where it learnt the MAC while the guest ran on
 * the source.  The rules go once the switchover is watched no more.
 *
 * From Prepare to the resume, the bridge floods nothing to the new
 * ports (OpenFlow's no-flood on each).  While the guest runs on the
 * source, what the bridge floods reaches both of its taps: the source's
 * is read at once, the new one would hand the guest the same frames
 * again at the resume, stale, its own broadcasts among them (a guest
 * that sees its own ARP or DAD probe may take its address for a
 * duplicate).  What is sent to the guest's MAC is not flooded, and the
 * delivery rules above output it.  The cost: a broadcast sent during
 * the pause itself reaches the guest on neither host (the source's
 * redirect drops group-addressed frames too); ARP and neighbour
 * discovery retry.
 */
#ifndef ROAM_AGENT_SWITCHOVER_H
#define ROAM_AGENT_SWITCHOVER_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "tapqueue.h"

/* The cookie ("roamdeli") of the rules a switchover adds for a guest's
 * MAC on either side (the delivery rules here, the source's hairpin in
 * detour.c), by which they are taken out; roam-port's drop-flows and the
 * migration suite know it too. */
#define SWITCHOVER_COOKIE "0x726f616d64656c69"
/* Their priority: above the bridge's NORMAL rule (0), which they
 * override, and below the guest's own rules (an ACL's drop at 200 still
 * drops), which they must not. */
#define SWITCHOVER_PRIORITY "100"

/* The delays (ms after the resume) of the announcements. */
#define SWITCHOVER_ANNOUNCE_DELAYS { 0, 50, 200 }
#define SWITCHOVER_MAX_PORTS 8

/* One port's announcement, ready to send: the resume is no time to ask
 * OVSDB which bridge and OpenFlow port the guest has. */
struct announcement {
	char dev[64];		/* the guest's tap */
	char mac[18];
	char bridge[64];
	char ofport[16];
	int vlan;		/* the port's untagged VLAN (ovs_port_info) */
	bool trunk;
	int uplink_ofport;	/* on its bridge; 0: no uplink */
	unsigned char rarp[60];	/* the RARP */
	char frame[121];	/* the same, in hex */
	struct tapq q;		/* who holds the tap, to speak for the guest */
	int heard_fd;		/* a packet socket on the tap: what the guest
				 * sends (switchover_listen); -1: none */
};

/* An incoming guest's switchover: its announcements, and, from the
 * resume on, which of them went out and whether a frame has reached the
 * guest (its taps' tx_packets: what QEMU read) since. */
struct switchover {
	int n;
	struct announcement a[SWITCHOVER_MAX_PORTS];
	long long resumed_ms;		/* CLOCK_MONOTONIC */
	unsigned long long delivered;	/* the taps' tx_packets at the resume */
	int rounds;			/* announcements sent */
	bool first_seen;
	bool heard;			/* a frame from the guest since */
	bool delivering;		/* the delivery rules are in */
	bool holding;			/* the ports flood nothing */
	int timer;			/* libvirt timeout id, -1: none */
};

/* switchover_init - the bridge's uplink port (NULL: none, no delivery). */
void switchover_init(const char *uplink);

/*
 * switchover_deliver - put SW's delivery rules in (see above); returns
 * how many ports got them, 0 without an uplink, -1 on failure.
 * switchover_undeliver takes them out.
 */
int switchover_deliver(struct switchover *sw);
void switchover_undeliver(struct switchover *sw);

/*
 * switchover_hold_floods - make SW's ports flood nothing (see above);
 * returns how many now do.  switchover_release_floods lets them flood
 * again, those whose tap is still there.
 */
int switchover_hold_floods(struct switchover *sw);
void switchover_release_floods(struct switchover *sw);

/*
 * switchover_purge - take the stale floods out of SW's new taps, which
 * came in between their creation and switchover_hold_floods (see
 * tapq_purge): once floods are held, before the resume.  Returns how
 * many frames were taken out, or -1 if no tap could be read.
 */
int switchover_purge(const struct switchover *sw);

/* switchover_add_rules - add FLOWS (ovs-ofctl's syntax, a line each) to
 * BRIDGE in one ovs-ofctl run: 0, or -1 if it failed. */
int switchover_add_rules(const char *bridge, const char *flows);

/* switchover_drop_rules - take out the rules with the switchover's
 * cookie for MAC on BRIDGE, either side's: 0, or -1 if ovs-ofctl failed. */
int switchover_drop_rules(const char *bridge, const char *mac);

/*
 * switchover_clear - take out any delivery rule for SW's MACs and let
 * its ports flood, whether this agent changed them or not (only an agent
 * killed during a migration leaves such a change behind): for a guest
 * that runs here with no switchover of ours under way.
 */
void switchover_clear(struct switchover *sw);

/*
 * switchover_prepare - SW gets the announcements of DOM's Open vSwitch
 * ports, as they are now (an incoming guest's, once Prepare made them).
 * Returns how many, or -1 if DOM's XML could not be read.
 */
int switchover_prepare(virDomainPtr dom, struct switchover *sw);

/*
 * switchover_find_taps - who holds SW's taps, so that the announcements
 * can be written into them (tapqueue.h): slow (it reads every process's
 * descriptors), so after the delivery rules are in.
 */
void switchover_find_taps(struct switchover *sw);

/*
 * switchover_announce - send SW's announcements once; returns how many
 * were sent.
 */
int switchover_announce(const struct switchover *sw);

/*
 * switchover_listen - open, on each of SW's taps, a packet socket that
 * takes in what the guest sends there, once it runs: what its reader
 * writes into the tap, but for RARPs (QEMU's announcements, and the
 * agent's).  switchover_heard tells, without waiting, when the first
 * frame that came since did (the kernel's stamp, CLOCK_REALTIME ms; 0:
 * none came) and reads what came; switchover_unlisten closes the
 * sockets.  With switchover_delivered, the timeline tells the time the
 * guest took to answer from the time the network took.
 */
void switchover_listen(struct switchover *sw);
long long switchover_heard(struct switchover *sw);
void switchover_unlisten(struct switchover *sw);

/*
 * switchover_delivered - the frames SW's taps have handed to the guest so
 * far (the sum of their tx_packets), read from sysfs: cheap enough to
 * poll every few milliseconds.
 */
unsigned long long switchover_delivered(const struct switchover *sw);

#endif
