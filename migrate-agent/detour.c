// SPDX-License-Identifier: GPL-2.0
/*
 * detour.c: see detour.h.
 */
#include "detour.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "ifaces.h"
#include "redirect_client.h"

/* ovs-vswitchd's one kernel datapath. */
#define DATAPATH "ovs-system"

static struct redirect_client *client;
static const char *uplink;

int detour_init(const char *port)
{
	if (!port)
		return 0;
	if (redirect_open(&client)) {
		fprintf(stderr, "roam-migrate-agent: --uplink: %s\n",
			client ? redirect_error(client) : "out of memory");
		redirect_close(client);
		client = NULL;
		return -1;
	}
	uplink = port;
	return 0;
}

void detour_uninit(void)
{
	redirect_close(client);
	client = NULL;
	uplink = NULL;
}

bool detour_enabled(void)
{
	return client;
}

static void prepare_one(const char *dev, const char *mac, void *arg)
{
	struct detour *d = arg;
	struct detour_port *p = &d->p[d->n];
	bool trunk;
	int vid;

	(void)mac;
	if (d->n == SWITCHOVER_MAX_PORTS || strlen(dev) >= sizeof(p->dev))
		return;
	vid = ovs_port_vlan(dev, &trunk);
	if (vid < 0) {
		fprintf(stderr, "roam-migrate-agent: no VLAN for %s: not detoured\n", dev);
		return;
	}
	strcpy(p->dev, dev);
	p->vlan = (uint16_t)vid;
	d->n++;
}

int detour_prepare(virDomainPtr dom, struct detour *d)
{
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

int detour_start(struct detour *d)
{
	struct redirect_info info;
	uint32_t uplink_no;
	int i, ifindex, n = 0;

	d->first_ns = d->packets = 0;
	if (!client || datapath(&ifindex, &uplink_no))
		return 0;
	d->dp_ifindex = ifindex;
	for (i = 0; i < d->n; i++) {
		struct detour_port *p = &d->p[i];

		/* port numbers by name now: they change when a port is made
		 * again; from here to the end of the detour they cannot */
		p->on = !redirect_port_no(client, ifindex, p->dev, &p->port_no) &&
			!redirect_set(client, ifindex, p->port_no, uplink_no,
				      p->vlan, &info);
		if (p->on)
			n++;
		else
			fprintf(stderr, "roam-migrate-agent: %s not detoured: %s\n",
				p->dev, redirect_error(client));
	}
	d->on = n > 0;
	return n;
}

int detour_sample(struct detour *d)
{
	struct redirect_info info;
	uint64_t first = 0, packets = 0;
	int i, err = 0;

	if (!client)
		return -1;
	for (i = 0; i < d->n; i++) {
		if (!d->p[i].on)
			continue;
		if (redirect_get(client, d->dp_ifindex, d->p[i].port_no, &info)) {
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
	if (first && (!d->first_ns || first < d->first_ns))
		d->first_ns = first;
	return err;
}

void detour_stop(struct detour *d)
{
	struct redirect_info info;
	int i;

	if (!client || !d->on)
		return;
	d->on = false;
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
