/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guests.h: what the agent knows of each guest on this host: the port
 * records it last wrote into the domain's live <metadata> (the element
 * `roam-port records` prints; the migration carries it to the
 * destination, whose qemu hook applies it before the CPUs start), and its
 * migration timeline.  The records are also kept in a state file per
 * domain, so that an agent killed at any point finds, when it starts
 * again, the rules of guests that left meanwhile, and drops them.
 */
#ifndef ROAM_AGENT_GUESTS_H
#define ROAM_AGENT_GUESTS_H

#include <libvirt/libvirt.h>

#include "detour.h"
#include "switchover.h"
#include "timeline.h"

struct guest {
	struct guest *next;
	char uuid[VIR_UUID_STRING_BUFLEN];
	char *name;
	char *records;		/* the <port-records> element, or NULL */
	struct timeline tl;
	long long qemu_stop_ms;	/* QEMU's stamp of a stop libvirt has not
				 * told of yet (agent.c), or 0 */
	struct switchover sw;	/* an incoming guest's announcements */
	struct detour dt;	/* a leaving guest's redirects */
};

/* guests_init - STATE_DIR holds the state files; ROAM_PORT is the
 * roam-port program.  guests_uninit forgets every guest (their state
 * files stay: they are for the next start). */
int guests_init(const char *state_dir, const char *roam_port);
void guests_uninit(void);

/* guest_get - DOM's guest, made if new (NULL only without memory). */
struct guest *guest_get(virDomainPtr dom);

/* guest_find - the guest with UUID, or NULL (it was forgotten). */
struct guest *guest_find(const char *uuid);

/* guests_switching - whether a guest's switchover is being watched (the
 * seconds after it resumed here), when nothing may hold the event loop. */
bool guests_switching(void);

/* guest_forget - G's rules dropped from this host, its state file
 * removed, G freed.  For a guest that left (migrated away or stopped).
 * When the drop fails, the state file stays for guests_sweep to try
 * again; G is freed all the same. */
void guest_forget(struct guest *g);

/* guest_refresh - record DOM's live port settings: if they changed since
 * the last time, into its live <metadata> and the state file.  Quiet when
 * DOM has no Open vSwitch port.  Returns 1 if it wrote, 0 if nothing
 * changed, -1 on failure. */
int guest_refresh(virDomainPtr dom);

/* guest_adopt - take an incoming DOM's records from its <metadata> (the
 * source's), so that this host can drop its rules if it leaves again. */
int guest_adopt(virDomainPtr dom);

/* guests_sweep - drop the rules of every guest with a state file but no
 * domain running on this host: it left while no agent was watching, or
 * dropping its rules failed when it left.  Run at every refresh. */
void guests_sweep(virConnectPtr conn);

#endif
