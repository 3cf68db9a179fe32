// SPDX-License-Identifier: GPL-2.0
/*
 * detour.c: see detour.h.
 */
#include "detour.h"

#include <errno.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ifaces.h"
#include "redirect_client.h"

/* ovs-vswitchd's one kernel datapath. */
#define DATAPATH "ovs-system"

static struct redirect_client *client;
static const char *uplink;

void detour_init(const char *port)
{
	uplink = port;
	if (!port)
		return;
	if (redirect_open(&client)) {
		fprintf(stderr, "roam-migrate-agent: --uplink: %s: the agent relays from the taps alone\n",
			client ? redirect_error(client) : "out of memory");
		redirect_close(client);
		client = NULL;
	}
}

void detour_uninit(void)
{
	redirect_close(client);
	client = NULL;
	uplink = NULL;
}

bool detour_enabled(void)
{
	return uplink;
}

bool detour_relayed(void)
{
	return uplink && !client;
}

static void prepare_one(const char *dev, const char *mac, void *arg)
{
	struct detour *d = arg;
	struct detour_port *p = &d->p[d->n];
	struct ovs_port_info pi;

	if (d->n == SWITCHOVER_MAX_PORTS || strlen(dev) >= sizeof(p->dev) ||
	    strlen(mac) >= sizeof(p->mac))
		return;
	if (ovs_port_info(dev, uplink, &pi)) {
		fprintf(stderr, "roam-migrate-agent: no VLAN for %s: not detoured\n", dev);
		return;
	}
	strcpy(p->dev, dev);
	strcpy(p->mac, mac);
	strcpy(p->bridge, pi.bridge);
	p->uplink_ofport = pi.uplink_ofport;
	p->vlan = (uint16_t)pi.vlan;
	if (tapq_find(dev, &p->q))
		fprintf(stderr, "roam-migrate-agent: nobody holds %s: what it queues at the pause is lost\n",
			dev);
	d->n++;
}

int detour_prepare(virDomainPtr dom, struct detour *d)
{
	/* a port's record is of its tap: it is made afresh */
	detour_unrecord(d);
	d->n = 0;
	if (ifaces_each(dom, prepare_one, d) < 0)
		return -1;
	return d->n;
}

/* The datapath and the uplink's port number in it. */
static int datapath(int *ifindex, uint32_t *uplink_no)
{
	*ifindex = (int)if_nametoindex(DATAPATH);
	if (!*ifindex) {
		fprintf(stderr, "roam-migrate-agent: no datapath %s\n", DATAPATH);
		return -1;
	}
	if (redirect_port_no(client, *ifindex, uplink, uplink_no)) {
		fprintf(stderr, "roam-migrate-agent: %s\n", redirect_error(client));
		return -1;
	}
	return 0;
}

/* Redirect P to the uplink, port UPLINK_NO of the datapath D has. */
static bool redirect_port(struct detour *d, struct detour_port *p,
			  uint32_t uplink_no)
{
	struct redirect_info info;

	/* port numbers by name now: they change when a port is made again;
	 * from here to the end of the detour they cannot */
	if (!redirect_port_no(client, d->dp_ifindex, p->dev, &p->port_no) &&
	    !redirect_set(client, d->dp_ifindex, p->port_no, uplink_no, p->vlan, &info))
		return true;
	fprintf(stderr, "roam-migrate-agent: %s not detoured: %s\n",
		p->dev, redirect_error(client));
	return false;
}

/* What P's tap holds, sent on. */
static void relay(struct detour_port *p, int fd)
{
	int before = p->sent_on.sent;
	struct timespec ts;

	tapq_hold_drain(&p->h, fd, &p->sent_on);
	if (p->sent_on.sent > before && !p->first_ns) {
		clock_gettime(CLOCK_REALTIME, &ts);
		p->first_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	}
}

static void on_readable(int watch, int fd, int events, void *opaque)
{
	(void)watch;
	(void)events;
	relay(opaque, fd);
}

static void on_recorded(int watch, int fd, int events, void *opaque)
{
	struct detour_port *p = opaque;

	(void)watch;
	(void)fd;
	(void)events;
	taprec_read(&p->rec);
}

static void unrecord(struct detour_port *p)
{
	if (!p->rec.rbuf)
		return;
	virEventRemoveHandle(p->rec_watch);
	taprec_stop(&p->rec);
}

void detour_record(struct detour *d)
{
	int i;

	for (i = 0; i < d->n; i++) {
		struct detour_port *p = &d->p[i];

		if (p->rec.rbuf || taprec_start(&p->rec, p->dev))
			continue;
		p->rec_watch = virEventAddHandle(p->rec.sock, VIR_EVENT_HANDLE_READABLE,
						 on_recorded, p, NULL);
		if (p->rec_watch < 0)
			taprec_stop(&p->rec);
	}
}

void detour_unrecord(struct detour *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		unrecord(&d->p[i]);
}

/* Each frame drained from P's tap, marked in its record. */
static void on_drained(struct tapq_hold *h, const unsigned char *frame,
		       size_t len, void *arg)
{
	struct detour_port *p = arg;

	(void)h;
	if (p->rec.rbuf)
		taprec_drained(&p->rec, frame, len);
}

/*
 * The frame QEMU kept of P's tap at the stop (taprecord.h), sent on once
 * the tap takes no more frames in and its queue is drained; the record
 * has done its work either way.  Not when the queue was empty as the
 * agent took hold of it: QEMU's own reader, armed until it keeps a
 * frame, may then have lost the race for the next one to the agent, and
 * the frame recorded before that one was delivered.  Nor for a tap with
 * several queues, whose readers each keep their own.
 */
static void send_kept(struct detour_port *p)
{
	const size_t vh = sizeof(struct virtio_net_hdr);
	const struct taprec_frame *kept;
	const char *why;

	if (!p->rec.rbuf)
		return;
	kept = taprec_kept(&p->rec, &why);
	if (kept && !p->waiting) {
		kept = NULL;
		why = "its queue was empty when the agent took hold: what QEMU kept is lost";
	} else if (kept && p->h.n != 1) {
		kept = NULL;
		why = "it has several queues: what QEMU kept is lost";
	}
	if (kept) {
		int before = p->sent_on.sent;

		tapq_hold_send(&p->h, kept->buf, kept->buf + vh, kept->len - vh, &p->sent_on);
		p->kept_sent = p->sent_on.sent > before;
	} else if (why) {
		fprintf(stderr, "roam-migrate-agent: %s: %s\n", p->dev, why);
	}
	unrecord(p);
}

/* Take hold of P's tap until detour_release, and send on what it holds
 * now and whenever more comes in. */
static void hold_tap(struct detour_port *p)
{
	int i;

	memset(&p->sent_on, 0, sizeof(p->sent_on));
	p->first_ns = 0;
	p->kept_sent = false;
	for (i = 0; i < TAPQ_MAX_QUEUES; i++)
		p->watch[i] = -1;
	p->waiting = false;
	if (tapq_hold(&p->q, p->dev, uplink, p->vlan, &p->h))
		return;
	p->h.drained = on_drained;
	p->h.drained_arg = p;
	for (i = 0; i < p->h.n; i++)
		p->watch[i] = virEventAddHandle(p->h.f[i].fd, VIR_EVENT_HANDLE_READABLE,
						on_readable, p, NULL);
	relay(p, -1);
	p->waiting = p->sent_on.sent + p->sent_on.group + p->sent_on.failed > 0;
}

void detour_hairpin(struct detour *d)
{
	char flow[192];
	int i;

	for (i = 0; i < d->n; i++) {
		struct detour_port *p = &d->p[i];

		if (!p->on || p->uplink_ofport < 1)
			continue;
		snprintf(flow, sizeof(flow),
			 "cookie=" SWITCHOVER_COOKIE ",priority=" SWITCHOVER_PRIORITY ",in_port=%d,dl_dst=%s,actions=in_port\n",
			 p->uplink_ofport, p->mac);
		if (switchover_add_rules(p->bridge, flow))
			fprintf(stderr, "roam-migrate-agent: no hairpin rule for %s\n", p->dev);
		else
			d->hairpin = true;
	}
}

static void unhairpin(struct detour *d)
{
	int i;

	if (!d->hairpin)
		return;
	d->hairpin = false;
	for (i = 0; i < d->n; i++)
		if (d->p[i].on && switchover_drop_rules(d->p[i].bridge, d->p[i].mac))
			fprintf(stderr, "roam-migrate-agent: the hairpin rule for %s stays\n",
				d->p[i].dev);
}

static void detour_release_port(struct detour_port *p)
{
	int j;

	for (j = 0; j < p->h.n; j++)
		if (p->watch[j] >= 0)
			virEventRemoveHandle(p->watch[j]);
	tapq_release(&p->h);
	unrecord(p);
	if (p->sent_on.failed)
		fprintf(stderr, "roam-migrate-agent: %s: %d queued frame(s) not sent on\n",
			p->dev, p->sent_on.failed);
	memset(&p->sent_on, 0, sizeof(p->sent_on));
}

int detour_start(struct detour *d)
{
	uint32_t uplink_no = 0;
	int i, n = 0;

	d->first_ns = d->packets = 0;
	d->drained = d->kept = 0;
	d->hairpin = false;
	if (!uplink || (client && datapath(&d->dp_ifindex, &uplink_no)))
		return 0;
	for (i = 0; i < d->n; i++) {
		struct detour_port *p = &d->p[i];

		/* what the tap holds goes first, then the redirect, then
		 * what came in meanwhile, then the frame QEMU kept: the
		 * guest gets its frames out of order only by those few */
		hold_tap(p);
		p->on = client ? redirect_port(d, p, uplink_no) : p->h.n > 0;
		if (!p->on) {
			detour_release_port(p);
			continue;
		}
		n++;
		relay(p, -1);
		send_kept(p);
		d->drained += p->sent_on.sent;
		d->kept += p->kept_sent;
	}
	d->on = n > 0;
	return n;
}

void detour_release(struct detour *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		detour_release_port(&d->p[i]);
}

int detour_sample(struct detour *d)
{
	struct redirect_info info;
	uint64_t first = 0, packets = 0;
	int i, drained = 0, kept = 0, err = 0;

	for (i = 0; i < d->n; i++) {
		struct detour_port *p = &d->p[i];

		if (!p->on)
			continue;
		drained += p->sent_on.sent;
		kept += p->kept_sent;
		if (p->first_ns && (!first || p->first_ns < first))
			first = p->first_ns;
		if (!client)
			continue;
		if (redirect_get(client, d->dp_ifindex, p->port_no, &info)) {
			err = -1;
			continue;
		}
		packets += info.packets;
		if (info.first_ns && (!first || info.first_ns < first))
			first = info.first_ns;
	}
	/* a port already gone keeps what was read before */
	if (!err || packets > d->packets)
		d->packets = packets;
	if (drained > d->drained)
		d->drained = drained;
	if (kept > d->kept)
		d->kept = kept;
	if (first && (!d->first_ns || first < d->first_ns))
		d->first_ns = first;
	return err;
}

void detour_stop(struct detour *d)
{
	struct redirect_info info;
	int i;

	unhairpin(d);
	if (!client || !d->on)
		return;
	for (i = 0; i < d->n; i++)
		if (d->p[i].on &&
		    redirect_del(client, d->dp_ifindex, d->p[i].port_no, &info))
			fprintf(stderr, "roam-migrate-agent: %s: %s\n", d->p[i].dev,
				redirect_error(client));
}

struct clear_ctx {
	int dp_ifindex;
	int removed;
};

static void clear_one(const char *dev, const char *mac, void *arg)
{
	struct clear_ctx *c = arg;
	struct redirect_info info;
	uint32_t port_no;
	int err;

	(void)mac;
	if (redirect_port_no(client, c->dp_ifindex, dev, &port_no))
		return;
	err = redirect_del(client, c->dp_ifindex, port_no, &info);
	if (!err)
		c->removed++;
	else if (err != -ENOENT)	/* ENOENT: not redirected */
		fprintf(stderr, "roam-migrate-agent: %s: %s\n", dev,
			redirect_error(client));
}

int detour_clear(virDomainPtr dom)
{
	struct clear_ctx c = { .dp_ifindex = (int)if_nametoindex(DATAPATH) };

	if (!client || !c.dp_ifindex)
		return 0;
	ifaces_each(dom, clear_one, &c);
	return c.removed;
}
