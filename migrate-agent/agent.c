// SPDX-License-Identifier: GPL-2.0
/*
 * roam-migrate-agent: one per host.  It keeps each running guest's port
 * records (vif-scripts/roam-port: VLANs, policing, QoS, external ids,
 * ofport_request and the guest's OpenFlow rules) current in the domain's
 * live <metadata>, so that a plain `virsh migrate --live` carries them
 * with the domain XML and the destination's qemu hook makes the new port
 * whole before the guest's CPUs start; it announces the guest from its
 * new place the moment it resumes there (switchover.c); it drops what the
 * guest leaves behind, on the source after the migration and on the
 * destination after a failed one; and it writes one JSON record per
 * migration and host (timeline.c).  With --uplink, the frames for a guest
 * that paused to leave go to its destination over the uplink (detour.c),
 * which delivers them to the new tap (switchover.c).
 *
 * It talks to libvirt only (domain lifecycle and job-completed events,
 * metadata), and to Open vSwitch through its tools.  It opens no port:
 * the agents never talk to each other; what moves, moves with libvirt's
 * own, authenticated migration.  Everything it does can be done twice:
 * killed at any point and started again, it sweeps what guests that left
 * meanwhile left behind, and records the running ones afresh.
 *
 *   roam-migrate-agent [--uri URI] [--state-dir DIR] [--timeline FILE]
 *                      [--roam-port PATH] [--interval MS] [--uplink PORT]
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "guests.h"
#include "switchover.h"

struct agent {
	const char *uri;
	int interval_ms;
	virConnectPtr conn;
	int lifecycle_cb, job_cb, iteration_cb;	/* event callback ids, -1: none */
	int qemu_cb;		/* QEMU's STOP and RESUME, -1: none */
	int refresh_timer;
	bool reconnect;
	bool just_connected;	/* the next refresh is the first since */
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* libvirt reports errors itself too; one line of ours is enough. */
static void quiet_errors(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

static const char *event_name(int event, int detail)
{
	switch (event) {
	case VIR_DOMAIN_EVENT_STARTED:
		return detail == VIR_DOMAIN_EVENT_STARTED_MIGRATED ?
		       "incoming (STARTED_MIGRATED)" : "started";
	case VIR_DOMAIN_EVENT_SUSPENDED:
		return detail == VIR_DOMAIN_EVENT_SUSPENDED_MIGRATED ?
		       "guest paused (SUSPENDED_MIGRATED)" : "suspended";
	case VIR_DOMAIN_EVENT_RESUMED:
		return detail == VIR_DOMAIN_EVENT_RESUMED_MIGRATED ?
		       "guest resumed (RESUMED_MIGRATED)" : "resumed";
	case VIR_DOMAIN_EVENT_STOPPED:
		return detail == VIR_DOMAIN_EVENT_STOPPED_MIGRATED ?
		       "guest left (STOPPED_MIGRATED)" : "stopped";
	default:
		return "other";
	}
}

/* How long after the resume the switchover is watched for the first
 * frame that reaches the guest, and how often. */
#define SWITCHOVER_WATCH_MS 10000
#define SWITCHOVER_TICK_MS 5
/* The ports flood again once a frame has reached the guest and one has
 * come from it, or this long after the resume if not. */
#define SWITCHOVER_FLOOD_MS 3000
/* How long after floods to the new ports are held their taps' stale
 * floods are taken out: ovs-vswitchd revalidates the datapath's flows
 * that flooded to them in the background, after its reply.  A margin,
 * not a measurement; the test counts what gets through. */
#define SWITCHOVER_PURGE_MS 500

static long long monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The destination, after the resume, every few ms: the next announcement
 * when its time has come, and the first frame handed to the guest.
 * OPAQUE is the guest's UUID: a guest forgotten meanwhile (it left again)
 * is not touched.
 */
static void switchover_tick(int timer, void *opaque)
{
	static const int delays[] = SWITCHOVER_ANNOUNCE_DELAYS;
	const int rounds = sizeof(delays) / sizeof(delays[0]);
	struct guest *g = guest_find(opaque);
	struct switchover *sw;
	long long since;

	if (!g) {
		virEventRemoveTimeout(timer);
		return;
	}
	sw = &g->sw;
	since = monotonic_ms() - sw->resumed_ms;
	if (!sw->first_seen && switchover_delivered(sw) > sw->delivered) {
		sw->first_seen = true;
		timeline_event(&g->tl, "first frame to the guest here",
			       "agent (its taps' tx_packets)");
	}
	if (!sw->heard) {
		long long t = switchover_heard(sw);

		if (t) {
			sw->heard = true;
			timeline_event_at(&g->tl, "first frame from the guest here",
					  "kernel (a packet socket on its taps)", t);
		}
	}
	if (sw->rounds < rounds && since >= delays[sw->rounds]) {
		sw->rounds++;
		if (switchover_announce(sw) > 0)
			timeline_event(&g->tl, "announced", "agent");
	}
	/* the guest reads its taps again: floods are no longer stale.  Not
	 * before the announcements and the first frames to and from the
	 * guest, whose times an ovs-ofctl run in this loop would blur. */
	if (sw->holding && sw->rounds == rounds &&
	    ((sw->first_seen && sw->heard) || since > SWITCHOVER_FLOOD_MS)) {
		switchover_release_floods(sw);
		timeline_event(&g->tl, "floods to the port again", "agent");
	}
	/* the delivery rules serve until the switches have learnt the move */
	if (sw->delivering && since > SWITCHOVER_WATCH_MS)
		switchover_undeliver(sw);
	if ((sw->first_seen && sw->heard && sw->rounds == rounds && !sw->delivering) ||
	    since > SWITCHOVER_WATCH_MS) {
		virEventRemoveTimeout(timer);
		sw->timer = -1;
		switchover_unlisten(sw);
		/* the switchover is over: its record goes out now (libvirt
		 * sends the destination no job-completed event, and an
		 * agent killed before the guest leaves again would lose it) */
		if (timeline_open(&g->tl, "destination"))
			timeline_end(&g->tl);
	}
}

/*
 * guest_watch - replace *TIMER by one calling CB every MS with G's UUID
 * (so that a guest forgotten meanwhile is not touched; libvirt frees the
 * copy when the timeout is removed).  Returns the UUID handed to CB, or
 * NULL with *TIMER -1.
 */
static char *guest_watch(struct guest *g, int *timer, int ms,
			 virEventTimeoutCallback cb)
{
	char *uuid;

	if (*timer >= 0)
		virEventRemoveTimeout(*timer);
	*timer = -1;
	uuid = strdup(g->uuid);
	if (!uuid)
		return NULL;
	*timer = virEventAddTimeout(ms, cb, uuid, free);
	if (*timer < 0) {
		free(uuid);
		return NULL;
	}
	return uuid;
}

/* How often the source reads its redirects' counters until the first
 * frame was redirected, and for how long at most. */
#define DETOUR_TICK_MS 10
#define DETOUR_WATCH_MS 30000

/* The source, from the pause to the guest's departure: the time of the
 * first frame redirected (the kernel's, or the relay's) goes into the
 * timeline, and the count of frames is kept current (the port, and its
 * counters, go with the source's QEMU).  OPAQUE is the guest's UUID. */
static void detour_tick(int timer, void *opaque)
{
	struct guest *g = guest_find(opaque);
	struct detour *d;
	uint64_t first;

	if (!g) {
		virEventRemoveTimeout(timer);
		return;
	}
	d = &g->dt;
	first = d->first_ns;
	detour_sample(d);
	if (d->first_ns && !first)
		timeline_event_at(&g->tl, "first frame redirected to the uplink",
				  detour_relayed() ? "agent (relay)" : "kernel (roam_redirect)",
				  (long long)(d->first_ns / 1000000));
	if (!d->on || monotonic_ms() - d->started_ms > DETOUR_WATCH_MS) {
		virEventRemoveTimeout(timer);
		d->timer = -1;
	}
}

/* The destination, once, SWITCHOVER_PURGE_MS after floods to the new
 * taps were held: what was flooded into them before goes (the resume
 * replaces this timer: then it is too late). */
static void purge_tick(int timer, void *opaque)
{
	struct guest *g = guest_find(opaque);
	int n;

	virEventRemoveTimeout(timer);
	if (!g)
		return;
	g->sw.timer = -1;
	n = switchover_purge(&g->sw);
	if (n < 0)
		return;
	timeline_set_int(&g->tl, "stale_frames_taken", n);
	timeline_event(&g->tl, "stale floods taken from the new taps", "agent");
}

/* The source: the guest paused to leave; its frames go to the uplink. */
static void on_paused_here(virDomainPtr dom, struct guest *g)
{
	struct detour *d = &g->dt;
	int n;

	if (!detour_enabled())
		return;
	if (!d->n)
		detour_prepare(dom, d);
	n = detour_start(d);
	if (n <= 0)
		return;
	timeline_event(&g->tl, "redirected to the uplink",
		       detour_relayed() ? "agent (relay)" : "agent (roam_redirect)");
	timeline_set_int(&g->tl, "redirected_ports", n);
	/* what the taps took in between QEMU's stop and the redirect (or
	 * the relay) */
	timeline_set_int(&g->tl, "queued_at_pause", d->drained);
	detour_hairpin(d);
	d->started_ms = monotonic_ms();
	guest_watch(g, &d->timer, DETOUR_TICK_MS, detour_tick);
}

/* The source: the detour ends with the migration, one way or the other. */
static void detour_end(struct guest *g, bool failed)
{
	struct detour *d = &g->dt;

	if (!d->on)
		return;
	detour_sample(d);
	if (d->timer >= 0) {
		virEventRemoveTimeout(d->timer);
		d->timer = -1;
	}
	detour_release(d);
	/* the kernel's count, or the relay's */
	timeline_set_int(&g->tl, "redirected_frames",
			 detour_relayed() ? d->drained : (long long)d->packets);
	timeline_set_int(&g->tl, "sent_on_from_taps", d->drained);
	timeline_set_int(&g->tl, "kept_by_qemu_sent_on", d->kept);
	if (failed) {
		detour_stop(d);
		timeline_event(&g->tl, "redirects removed", "agent");
	}
	/* on success the kernel drops them with the tap */
	d->on = false;
}

/*
 * A source's record once its guest has left (STOPPED_MIGRATED): libvirt's
 * job-completed event, which brings the downtime, comes after that, so
 * the record waits for it, LEFT_WAIT_MS at most, apart from the guest,
 * whose state goes at once.
 */
#define LEFT_WAIT_MS 5000

struct departed {
	char uuid[VIR_UUID_STRING_BUFLEN];
	struct timeline tl;
	int timer;
	struct departed *next;
};

static struct departed *departed;

static struct departed *departed_find(const char *uuid)
{
	struct departed *d;

	for (d = departed; d && strcmp(d->uuid, uuid); d = d->next)
		;
	return d;
}

/* Emit D's record and let go of D. */
static void departed_emit(struct departed *d)
{
	struct departed **pp;

	for (pp = &departed; *pp != d; pp = &(*pp)->next)
		;
	*pp = d->next;
	virEventRemoveTimeout(d->timer);
	timeline_end(&d->tl);
	free(d);
}

static void departed_timeout(int timer, void *opaque)
{
	(void)timer;
	departed_emit(opaque);
}

/* G's record is kept back for its job-completed event; if it cannot be,
 * it stays G's, and goes out with G. */
static void departed_hold(struct guest *g)
{
	struct departed *d;

	if (!timeline_open(&g->tl, "source"))
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->timer = virEventAddTimeout(LEFT_WAIT_MS, departed_timeout, d, NULL);
	if (d->timer < 0) {
		free(d);
		return;
	}
	snprintf(d->uuid, sizeof(d->uuid), "%s", g->uuid);
	d->tl = g->tl;
	memset(&g->tl, 0, sizeof(g->tl));
	d->next = departed;
	departed = d;
}

/* The destination: the guest resumed here after its migration. */
static void on_resumed_here(struct guest *g)
{
	struct switchover *sw = &g->sw;
	char *uuid;

	sw->resumed_ms = monotonic_ms();
	sw->delivered = switchover_delivered(sw);
	sw->rounds = 0;
	sw->first_seen = false;
	sw->heard = false;
	uuid = guest_watch(g, &sw->timer, SWITCHOVER_TICK_MS, switchover_tick);
	if (uuid)
		switchover_tick(sw->timer, uuid);
}

/*
 * A guest that runs here with no migration of ours under way has no use
 * for a redirect of its ports or a delivery rule for its MAC.  Only an
 * agent killed during a migration leaves them; the next one takes them
 * out, at its start and when such a guest resumes.  Returns false,
 * touching nothing, while a switchover or detour of this agent's is
 * under way for G; otherwise G's switchover is prepared afresh, from its
 * ports as they are now.
 */
static bool clear_leftovers(virDomainPtr dom, struct guest *g)
{
	int n;

	if (g->sw.delivering || g->sw.timer >= 0 || g->dt.on)
		return false;
	n = detour_clear(dom);
	if (n > 0)
		fprintf(stderr, "roam-migrate-agent: %s: removed %d redirect(s) an earlier agent left\n",
			g->name, n);
	if (switchover_prepare(dom, &g->sw) > 0)
		switchover_clear(&g->sw);
	return true;
}

/*
 * QEMU's own stamps of the guest's stop and resume.  libvirt stamps its
 * SUSPENDED and RESUMED events, and the start of the downtime it
 * reports, when libvirtd handles QEMU's STOP and RESUME, which can be
 * late on a busy host; QEMU stamps its events with the host's wall clock
 * as they happen.  The timeline keeps both (under TCG they were 10 to
 * 46 ms apart, 2026-12-07).  A STOP comes before libvirt's SUSPENDED,
 * and whether it is a migration's is known only then: its stamp is kept
 * until then (qemu_stop_record).
 */
#define QEMU_STOP_EVENTS "^(STOP|RESUME)$"

static void qemu_stop_record(struct guest *g)
{
	if (!g->qemu_stop_ms || !timeline_open(&g->tl, "source"))
		return;
	timeline_event_at(&g->tl, "QEMU stopped the guest", "QEMU STOP (its stamp)",
			  g->qemu_stop_ms);
	g->qemu_stop_ms = 0;
}

static void on_qemu_event(virConnectPtr conn, virDomainPtr dom, const char *event,
			  long long seconds, unsigned int micros,
			  const char *details, void *opaque)
{
	struct guest *g = guest_get(dom);
	long long t_ms;

	(void)conn;
	(void)details;
	(void)opaque;
	if (!g || seconds < 0)
		return;
	t_ms = seconds * 1000 + micros / 1000;
	if (!strcmp(event, "STOP")) {
		g->qemu_stop_ms = t_ms;
		qemu_stop_record(g);	/* libvirt's SUSPENDED came first */
		return;
	}
	/* the destination's resume, or the source's after a failure; a
	 * stop not yet told of was not a migration's pause */
	g->qemu_stop_ms = 0;
	timeline_event_at(&g->tl, "QEMU resumed the guest", "QEMU RESUME (its stamp)",
			  t_ms);
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	const char *what = event_name(event, detail);
	struct guest *g = guest_get(dom);

	(void)conn;
	(void)opaque;
	if (!g)
		return 0;
	switch (event) {
	case VIR_DOMAIN_EVENT_STARTED:
		/* a guest booted here is recorded by the next refresh, once
		 * no job holds it (a metadata change waits for the job) */
		if (detail != VIR_DOMAIN_EVENT_STARTED_MIGRATED)
			break;
		/* Prepare is done: the started hook has made the port. */
		timeline_begin(&g->tl, g->name, "destination");
		timeline_event(&g->tl, "port and rules ready", "libvirt STARTED_MIGRATED");
		guest_adopt(dom);
		/* the delivery rules first: the source may pause at any time */
		if (switchover_prepare(dom, &g->sw) > 0 &&
		    switchover_deliver(&g->sw) > 0)
			timeline_event(&g->tl, "delivery from the uplink ready", "agent");
		if (switchover_hold_floods(&g->sw) > 0)
			timeline_event(&g->tl, "floods to the new port held", "agent");
		switchover_find_taps(&g->sw);
		switchover_listen(&g->sw);
		if (g->sw.n > 0)
			timeline_event(&g->tl, "announcement ready", "agent");
		if (g->sw.holding)
			guest_watch(g, &g->sw.timer, SWITCHOVER_PURGE_MS, purge_tick);
		break;
	case VIR_DOMAIN_EVENT_SUSPENDED:
		if (detail != VIR_DOMAIN_EVENT_SUSPENDED_MIGRATED) {
			g->qemu_stop_ms = 0;	/* not a migration's */
			break;
		}
		if (!timeline_open(&g->tl, "source"))
			timeline_begin(&g->tl, g->name, "source");
		timeline_event(&g->tl, "guest paused", "libvirt SUSPENDED_MIGRATED");
		qemu_stop_record(g);
		on_paused_here(dom, g);
		break;
	case VIR_DOMAIN_EVENT_RESUMED:
		if (detail == VIR_DOMAIN_EVENT_RESUMED_MIGRATED &&
		    timeline_open(&g->tl, "destination")) {
			timeline_event(&g->tl, "guest resumed", "libvirt RESUMED_MIGRATED");
			on_resumed_here(g);
			break;
		}
		/* the source, after a migration that failed or was
		 * cancelled: the guest runs on here, nothing moved */
		if (timeline_open(&g->tl, "source")) {
			timeline_event(&g->tl, "migration failed, guest resumed here",
				       "libvirt RESUMED");
			detour_end(g, true);
			timeline_end(&g->tl);
			break;
		}
		/* a migration that began before this agent did (either
		 * side): what the one before left goes, and a guest that
		 * arrived is announced all the same */
		if (clear_leftovers(dom, g) &&
		    detail == VIR_DOMAIN_EVENT_RESUMED_MIGRATED && g->sw.n > 0)
			on_resumed_here(g);
		break;
	case VIR_DOMAIN_EVENT_STOPPED:
		if (detail == VIR_DOMAIN_EVENT_STOPPED_MIGRATED) {
			if (!timeline_open(&g->tl, "source"))
				timeline_begin(&g->tl, g->name, "source");
			timeline_event(&g->tl, "guest left", "libvirt STOPPED_MIGRATED");
			detour_end(g, false);
			departed_hold(g);
		} else {
			timeline_event(&g->tl, "guest stopped here", "libvirt STOPPED");
		}
		guest_forget(g);	/* its rules go, its record is emitted
					 * (a source's once libvirt says the
					 * job completed) */
		return 0;
	default:
		break;
	}
	fprintf(stderr, "roam-migrate-agent: %s: %s\n", virDomainGetName(dom), what);
	return 0;
}

static void on_job_completed(virConnectPtr conn, virDomainPtr dom,
			     virTypedParameterPtr params, int nparams,
			     void *opaque)
{
	char uuid[VIR_UUID_STRING_BUFLEN];
	unsigned long long downtime;
	struct departed *d = NULL;
	struct timeline *tl;
	struct guest *g;

	(void)conn;
	(void)opaque;
	if (!virDomainGetUUIDString(dom, uuid))
		d = departed_find(uuid);
	if (d) {
		tl = &d->tl;
	} else {
		g = guest_get(dom);
		if (!g || !timeline_open(&g->tl, NULL))
			return;
		tl = &g->tl;
	}
	timeline_event(tl, "job completed", "libvirt JOB_COMPLETED");
	if (virTypedParamsGetULLong(params, nparams, VIR_DOMAIN_JOB_DOWNTIME,
				    &downtime) == 1)
		timeline_set_int(tl, "downtime_ms", (long long)downtime);
	if (d)
		departed_emit(d);
	else if (timeline_open(tl, "destination"))
		timeline_end(tl);
}

/* The source: a migration of G began (libvirt reports each pass over
 * the guest's memory, the first at the start); what its taps are handed
 * is recorded from now to the pause (taprecord.h). */
static void on_iteration(virConnectPtr conn, virDomainPtr dom, int iteration,
			 void *opaque)
{
	struct guest *g = guest_get(dom);

	(void)conn;
	(void)iteration;
	(void)opaque;
	if (!g || !detour_enabled() || g->dt.on)
		return;
	if (!g->dt.n)
		detour_prepare(dom, &g->dt);
	detour_record(&g->dt);
}

/* The sweep (guests_sweep), then every running guest that no job holds:
 * record its ports.  (A job that begins between the check and the write
 * makes the write wait for it, up to libvirt's job timeout: the event
 * loop waits with it.) */
static void refresh_all(int timer, void *opaque)
{
	struct agent *a = opaque;
	virDomainPtr *doms = NULL;
	int i, n;

	(void)timer;
	if (!a->conn)
		return;
	/* A refresh runs roam-port for every guest, which takes the best
	 * part of a second on a slow host, with the event loop waiting: it
	 * held back a switchover's announcements by 0.8 s.  It waits for
	 * the next round instead. */
	if (guests_switching() && !a->just_connected)
		return;
	/* what guests that left here (or while no agent ran) left behind */
	guests_sweep(a->conn);
	n = virConnectListAllDomains(a->conn, &doms, VIR_CONNECT_LIST_DOMAINS_RUNNING);
	for (i = 0; i < n; i++) {
		virDomainJobInfo job;
		struct guest *g;
		int changed = -1;

		/* a new agent, or libvirt again: what may have happened
		 * meanwhile */
		g = a->just_connected ? guest_get(doms[i]) : NULL;
		if (g)
			clear_leftovers(doms[i], g);
		if (!virDomainGetJobInfo(doms[i], &job) && job.type == VIR_DOMAIN_JOB_NONE) {
			changed = guest_refresh(doms[i]);
			/* a migration that ended before its pause */
			g = guest_get(doms[i]);
			if (g && !g->dt.on)
				detour_unrecord(&g->dt);
		}
		/* what the pause will need, asked while there is time: again
		 * when the port settings changed (the VLANs among them) */
		g = changed >= 0 && detour_enabled() ? guest_get(doms[i]) : NULL;
		if (g && !g->dt.on && (changed == 1 || !g->dt.n))
			detour_prepare(doms[i], &g->dt);
		virDomainFree(doms[i]);
	}
	free(doms);
	if (n >= 0)
		a->just_connected = false;
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct agent *a = opaque;

	(void)conn;
	fprintf(stderr, "roam-migrate-agent: the connection to libvirt closed (reason %d)\n",
		reason);
	a->reconnect = true;
}

static void agent_disconnect(struct agent *a)
{
	if (!a->conn)
		return;
	if (a->lifecycle_cb >= 0)
		virConnectDomainEventDeregisterAny(a->conn, a->lifecycle_cb);
	if (a->job_cb >= 0)
		virConnectDomainEventDeregisterAny(a->conn, a->job_cb);
	if (a->iteration_cb >= 0)
		virConnectDomainEventDeregisterAny(a->conn, a->iteration_cb);
	if (a->qemu_cb >= 0)
		virConnectDomainQemuMonitorEventDeregister(a->conn, a->qemu_cb);
	virConnectUnregisterCloseCallback(a->conn, on_close);
	virConnectClose(a->conn);
	a->conn = NULL;
	a->lifecycle_cb = a->job_cb = a->iteration_cb = a->qemu_cb = -1;
}

static int agent_connect(struct agent *a)
{
	a->reconnect = false;
	a->conn = virConnectOpen(a->uri);
	if (!a->conn)
		goto err;
	if (virConnectSetKeepAlive(a->conn, 5, 3) < 0)
		goto err_close;
	if (virConnectRegisterCloseCallback(a->conn, on_close, a, NULL))
		goto err_close;
	a->lifecycle_cb = virConnectDomainEventRegisterAny(a->conn, NULL,
		VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle),
		a, NULL);
	a->job_cb = virConnectDomainEventRegisterAny(a->conn, NULL,
		VIR_DOMAIN_EVENT_ID_JOB_COMPLETED,
		VIR_DOMAIN_EVENT_CALLBACK(on_job_completed), a, NULL);
	a->iteration_cb = virConnectDomainEventRegisterAny(a->conn, NULL,
		VIR_DOMAIN_EVENT_ID_MIGRATION_ITERATION,
		VIR_DOMAIN_EVENT_CALLBACK(on_iteration), a, NULL);
	if (a->lifecycle_cb < 0 || a->job_cb < 0 || a->iteration_cb < 0)
		goto err_close;
	/* only the timeline's: without them the agent does its work */
	a->qemu_cb = virConnectDomainQemuMonitorEventRegister(a->conn, NULL,
		QEMU_STOP_EVENTS, on_qemu_event, a, NULL,
		VIR_CONNECT_DOMAIN_QEMU_MONITOR_EVENT_REGISTER_REGEX);
	if (a->qemu_cb < 0)
		fprintf(stderr, "roam-migrate-agent: no QEMU stamps of stops and resumes: %s\n",
			virGetLastErrorMessage());
	/* what happened while nobody watched */
	a->just_connected = true;
	refresh_all(-1, a);
	return 0;

err_close:
	agent_disconnect(a);
err:
	fprintf(stderr, "roam-migrate-agent: cannot connect to %s: %s\n", a->uri,
		virGetLastErrorMessage());
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: roam-migrate-agent [--uri URI] [--state-dir DIR] [--timeline FILE]\n"
		   "                          [--roam-port PATH] [--interval MS] [--uplink PORT]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uri", required_argument, NULL, 'u' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "timeline", required_argument, NULL, 't' },
		{ "roam-port", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "uplink", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state_dir = "/run/roam-migrate-agent", *timeline = NULL;
	const char *roam_port = "roam-port", *uplink = NULL;
	struct agent a = {
		.uri = "qemu:///system", .interval_ms = 2000,
		.lifecycle_cb = -1, .job_cb = -1, .iteration_cb = -1, .qemu_cb = -1,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u': a.uri = optarg; break;
		case 's': state_dir = optarg; break;
		case 't': timeline = optarg; break;
		case 'r': roam_port = optarg; break;
		case 'i':
			a.interval_ms = atoi(optarg);
			if (a.interval_ms < 100) {
				fprintf(stderr, "roam-migrate-agent: --interval must be at least 100 ms\n");
				return 1;
			}
			break;
		case 'l': uplink = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a helper that stops reading its stdin */
	virSetErrorFunc(NULL, quiet_errors);
	if (virInitialize() || virEventRegisterDefaultImpl())
		return 1;
	if (timeline_init(timeline))
		return 1;
	if (guests_init(state_dir, roam_port))
		goto out_timeline;
	/* without our datapath the agent relays from the taps alone */
	detour_init(uplink);
	switchover_init(uplink);
	a.refresh_timer = virEventAddTimeout(a.interval_ms, refresh_all, &a, NULL);
	if (a.refresh_timer < 0)
		goto out_guests;
	while (!stopping) {
		if (!a.conn || a.reconnect) {
			agent_disconnect(&a);
			if (agent_connect(&a)) {
				sleep(1);
				continue;
			}
		}
		if (virEventRunDefaultImpl() < 0)
			break;
	}
	rc = 0;
	virEventRemoveTimeout(a.refresh_timer);
	agent_disconnect(&a);
out_guests:
	while (departed)
		departed_emit(departed);
	guests_uninit();
	detour_uninit();
out_timeline:
	timeline_uninit();
	return rc;
}
