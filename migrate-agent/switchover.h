/* SPDX-License-Identifier: GPL-2.0 */
/*
 * switchover.h: the guest is announced from its new place the moment it
 * resumes there, by the switch itself: for each of its Open vSwitch
 * ports, a broadcast RARP from its MAC, sent as if the guest had sent it
 * (OpenFlow packet-out, in_port = its port, action NORMAL).  Every bridge
 * on the way learns the MAC at its new place at once, the source's too,
 * over the uplink, and ovs-vswitchd revalidates the datapath flows a MAC
 * move makes stale without waiting for its next round.  It repeats a few
 * times, so that nothing rests on one frame, and it does not wait for the
 * guest's own announcements (QEMU's, or the guest's after it runs).
 */
#ifndef ROAM_AGENT_SWITCHOVER_H
#define ROAM_AGENT_SWITCHOVER_H

#include <libvirt/libvirt.h>

/* The delays (ms after the resume) of the announcements. */
#define SWITCHOVER_ANNOUNCE_DELAYS { 0, 50, 200 }

/*
 * switchover_announce - announce DOM's Open vSwitch ports once.  Returns
 * how many ports were announced, or -1 if DOM's XML could not be read.
 */
int switchover_announce(virDomainPtr dom);

#endif
