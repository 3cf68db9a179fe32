// SPDX-License-Identifier: GPL-2.0
/*
 * switchover.c: see switchover.h.
 */
#include "switchover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ifaces.h"
#include "run.h"

#define HELPER_TIMEOUT_MS 5000

/* A RARP request (RFC 903) from MAC, for MAC, as QEMU sends for a
 * migrated NIC: A's frame, and the same as the hex string ovs-ofctl
 * packet-out takes. */
static int rarp_frame(const char *mac, struct announcement *a)
{
	static const unsigned char rarp[] = {
		0x80, 0x35,			/* ethertype RARP */
		0x00, 0x01, 0x08, 0x00,		/* Ethernet, IPv4 */
		0x06, 0x04, 0x00, 0x03,		/* their lengths, request reverse */
	};
	unsigned char *f = a->rarp;
	unsigned int m[6];
	int i, n;

	if (sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x%n", &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5], &n) != 6 || mac[n])
		return -1;
	/* to broadcast, from MAC; sender and target hardware address MAC,
	 * their IPv4 addresses 0; zeroes to 60 bytes */
	memset(f, 0, sizeof(a->rarp));
	memset(f, 0xff, 6);
	for (i = 0; i < 6; i++)
		f[6 + i] = f[22 + i] = f[32 + i] = (unsigned char)m[i];
	memcpy(f + 12, rarp, sizeof(rarp));
	for (i = 0; i < (int)sizeof(a->rarp); i++)
		snprintf(a->frame + 2 * i, 3, "%02x", f[i]);
	return 0;
}

/* Fill A for the port DEV with MAC; -1 if it is not on a bridge. */
static int prepare_port(const char *dev, const char *mac, struct announcement *a)
{
	char *bridge, *ofport;
	int rc = -1;

	a->queue_len_was = 0;
	if (rarp_frame(mac, a))
		return -1;
	/* QEMU holds the new tap from Prepare on */
	if (tapq_find(dev, &a->q))
		fprintf(stderr, "roam-migrate-agent: nobody holds %s yet: announced by OpenFlow\n",
			dev);
	bridge = ovs_query("port-to-br", dev, NULL, NULL);
	ofport = ovs_query("get", "Interface", dev, "ofport");
	if (bridge && ofport && atoi(ofport) > 0 && strlen(dev) < sizeof(a->dev) &&
	    strlen(bridge) < sizeof(a->bridge) && strlen(ofport) < sizeof(a->ofport)) {
		strcpy(a->dev, dev);
		snprintf(a->mac, sizeof(a->mac), "%s", mac);
		strcpy(a->bridge, bridge);
		strcpy(a->ofport, ofport);
		rc = 0;
	}
	free(bridge);
	free(ofport);
	return rc;
}

/* The delivery rules' cookie ("roamdeli"), for taking them out, and
 * their priorities: above the bridge's NORMAL rule (0), which they
 * override, and below the guest's own rules (an ACL's drop at 200 still
 * drops), which they must not. */
#define DELIVERY_COOKIE "0x726f616d64656c69"
#define DELIVERY_PRIORITY "100"
#define DELIVERY_TRUNK_PRIORITY "99"

static const char *uplink;

void switchover_init(const char *port)
{
	uplink = port;
}

/* ovs-ofctl CMD A's bridge FLOW: 0 or -1. */
static int ofctl(const char *cmd, const struct announcement *a, const char *flow)
{
	const char *argv[] = { "ovs-ofctl", cmd, a->bridge, flow, NULL };

	return run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS) ? -1 : 0;
}

/* A tap holds what comes for a paused guest until the guest resumes;
 * tun's queue is its txqueuelen (500 frames by default), a pause of
 * under three seconds at the probe's rate.  The delivery rules' time
 * gets this many, and then what the tap had again. */
#define DELIVERY_QUEUE_LEN 8192

/* Set DEV's txqueuelen to LEN; *WAS gets the one it had.  0 or -1. */
static int set_queue_len(const char *dev, int len, int *was)
{
	struct ifreq ifr = { 0 };
	int fd, rc = -1;

	if (strlen(dev) >= sizeof(ifr.ifr_name))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	strcpy(ifr.ifr_name, dev);
	if (!was || !ioctl(fd, SIOCGIFTXQLEN, &ifr)) {
		if (was)
			*was = ifr.ifr_qlen;
		ifr.ifr_qlen = len;
		rc = ioctl(fd, SIOCSIFTXQLEN, &ifr);
	}
	if (rc)
		fprintf(stderr, "roam-migrate-agent: %s: txqueuelen %d: %m\n", dev, len);
	close(fd);
	return rc;
}

/* A's rules from the uplink (its OpenFlow port UPLINK_OF) to its tap. */
static int deliver_port(const struct announcement *a, const char *uplink_of)
{
	char flow[256];
	bool trunk;
	int vid;

	vid = ovs_port_vlan(a->dev, &trunk);
	if (vid < 0)
		return -1;
	/* the port's untagged VLAN: the tag the source pushed comes off */
	if (vid) {
		snprintf(flow, sizeof(flow),
			 "cookie=" DELIVERY_COOKIE ",priority=" DELIVERY_PRIORITY ",in_port=%s,dl_dst=%s,dl_vlan=%d,actions=strip_vlan,output:%s",
			 uplink_of, a->mac, vid, a->ofport);
		if (ofctl("add-flow", a, flow))
			return -1;
	}
	/* a trunk's other VLANs keep their tags */
	if (trunk) {
		snprintf(flow, sizeof(flow),
			 "cookie=" DELIVERY_COOKIE ",priority=" DELIVERY_TRUNK_PRIORITY ",in_port=%s,dl_dst=%s,actions=output:%s",
			 uplink_of, a->mac, a->ofport);
		if (ofctl("add-flow", a, flow))
			return -1;
	}
	return 0;
}

int switchover_deliver(struct switchover *sw)
{
	char *uplink_of;
	int i, n = 0;

	if (!uplink)
		return 0;
	uplink_of = ovs_query("get", "Interface", uplink, "ofport");
	if (!uplink_of || atoi(uplink_of) < 1) {
		fprintf(stderr, "roam-migrate-agent: no OpenFlow port for the uplink %s\n",
			uplink);
		free(uplink_of);
		return -1;
	}
	sw->delivering = true;
	for (i = 0; i < sw->n; i++) {
		struct announcement *a = &sw->a[i];

		if (deliver_port(a, uplink_of)) {
			fprintf(stderr, "roam-migrate-agent: no delivery rule for %s\n",
				a->dev);
			continue;
		}
		n++;
		if (set_queue_len(a->dev, DELIVERY_QUEUE_LEN, &a->queue_len_was))
			a->queue_len_was = 0;
	}
	free(uplink_of);
	return n;
}

void switchover_undeliver(struct switchover *sw)
{
	char flow[96];
	int i;

	if (!sw->delivering)
		return;
	sw->delivering = false;
	for (i = 0; i < sw->n; i++) {
		snprintf(flow, sizeof(flow), "cookie=" DELIVERY_COOKIE "/-1,dl_dst=%s",
			 sw->a[i].mac);
		if (ofctl("del-flows", &sw->a[i], flow))
			fprintf(stderr, "roam-migrate-agent: the delivery rules for %s stay\n",
				sw->a[i].dev);
		if (sw->a[i].queue_len_was > 0)
			set_queue_len(sw->a[i].dev, sw->a[i].queue_len_was, NULL);
		sw->a[i].queue_len_was = 0;
	}
}

int switchover_announce(const struct switchover *sw)
{
	int i, sent = 0;

	for (i = 0; i < sw->n; i++) {
		const struct announcement *a = &sw->a[i];
		const char *argv[] = { "ovs-ofctl", "packet-out", a->bridge,
				       a->ofport, "NORMAL", a->frame, NULL };

		/* from the guest's side of its tap, at once; spawning
		 * ovs-ofctl took half a second on the test hosts */
		if (!tapq_inject(&a->q, a->dev, a->rarp, sizeof(a->rarp)) ||
		    !run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS))
			sent++;
		else
			fprintf(stderr, "roam-migrate-agent: announcing on %s port %s failed\n",
				a->bridge, a->ofport);
	}
	return sent;
}

unsigned long long switchover_delivered(const struct switchover *sw)
{
	unsigned long long sum = 0, n;
	char path[160];
	int i;

	for (i = 0; i < sw->n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_packets",
			 sw->a[i].dev);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &n) == 1)
			sum += n;
		fclose(f);
	}
	return sum;
}

static void prepare_one(const char *dev, const char *mac, void *arg)
{
	struct switchover *sw = arg;

	if (sw->n < SWITCHOVER_MAX_PORTS && !prepare_port(dev, mac, &sw->a[sw->n]))
		sw->n++;
	else
		fprintf(stderr, "roam-migrate-agent: no announcement for %s (%s)\n",
			dev, mac);
}

int switchover_prepare(virDomainPtr dom, struct switchover *sw)
{
	sw->n = 0;
	sw->timer = -1;
	sw->delivering = false;
	if (ifaces_each(dom, prepare_one, sw) < 0)
		return -1;
	return sw->n;
}

void switchover_clear(struct switchover *sw)
{
	/* deleting by cookie and MAC is right whether rules are in or not */
	sw->delivering = true;
	switchover_undeliver(sw);
}
