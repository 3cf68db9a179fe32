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

static const char *uplink;

void switchover_init(const char *port)
{
	uplink = port;
}

/* Fill A for the port DEV with MAC; -1 if it is not on a bridge.  One
 * ovs-vsctl run: each took the best part of a second on the test hosts,
 * and the destination has only until the source's pause. */
static int prepare_port(const char *dev, const char *mac, struct announcement *a)
{
	struct ovs_port_info pi;

	if (strlen(dev) >= sizeof(a->dev) || rarp_frame(mac, a))
		return -1;
	memset(&a->q, 0, sizeof(a->q));
	if (ovs_port_info(dev, uplink, &pi))
		return -1;
	strcpy(a->dev, dev);
	snprintf(a->mac, sizeof(a->mac), "%s", mac);
	strcpy(a->bridge, pi.bridge);
	snprintf(a->ofport, sizeof(a->ofport), "%d", pi.ofport);
	a->vlan = pi.vlan;
	a->trunk = pi.trunk;
	a->uplink_ofport = pi.uplink_ofport;
	return 0;
}

/* A trunk's delivery rule for its tagged VLANs: below the untagged
 * VLAN's (SWITCHOVER_PRIORITY), which takes the tag off. */
#define DELIVERY_TRUNK_PRIORITY "99"

/* A tap holds what comes for a paused guest until the guest resumes;
 * tun's queue is its txqueuelen (500 frames by default), a pause of
 * under three seconds at the probe's rate.  A new tap gets this many
 * before the pause, and keeps them: setting a running tap's txqueuelen
 * resets its qdisc (dev_qdisc_change_tx_queue_len), which dropped what
 * flowed to the guest then, up to 8 datagrams of the probe's. */
#define DELIVERY_QUEUE_LEN 8192

/* Set DEV's txqueuelen to LEN, if it is shorter.  0 or -1. */
static int lengthen_queue(const char *dev, int len)
{
	struct ifreq ifr = { 0 };
	int fd, rc = -1;

	if (strlen(dev) >= sizeof(ifr.ifr_name))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	strcpy(ifr.ifr_name, dev);
	if (!ioctl(fd, SIOCGIFTXQLEN, &ifr)) {
		rc = 0;
		if (ifr.ifr_qlen < len) {
			ifr.ifr_qlen = len;
			rc = ioctl(fd, SIOCSIFTXQLEN, &ifr);
		}
	}
	if (rc)
		fprintf(stderr, "roam-migrate-agent: %s: txqueuelen %d: %m\n", dev, len);
	close(fd);
	return rc;
}

/* A's rules from the uplink to its tap, in one ovs-ofctl run. */
static int deliver_port(const struct announcement *a)
{
	char flows[512];
	int n = 0;

	/* the port's untagged VLAN: the tag the source pushed comes off */
	if (a->vlan)
		n += snprintf(flows + n, sizeof(flows) - (size_t)n,
			      "cookie=" SWITCHOVER_COOKIE ",priority=" SWITCHOVER_PRIORITY ",in_port=%d,dl_dst=%s,dl_vlan=%d,actions=strip_vlan,output:%s\n",
			      a->uplink_ofport, a->mac, a->vlan, a->ofport);
	/* a trunk's other VLANs keep their tags */
	if (a->trunk)
		n += snprintf(flows + n, sizeof(flows) - (size_t)n,
			      "cookie=" SWITCHOVER_COOKIE ",priority=" DELIVERY_TRUNK_PRIORITY ",in_port=%d,dl_dst=%s,actions=output:%s\n",
			      a->uplink_ofport, a->mac, a->ofport);
	if (!n || (size_t)n >= sizeof(flows))
		return -1;
	return switchover_add_rules(a->bridge, flows);
}

int switchover_deliver(struct switchover *sw)
{
	int i, n = 0;

	if (!uplink)
		return 0;
	sw->delivering = true;
	for (i = 0; i < sw->n; i++) {
		struct announcement *a = &sw->a[i];

		if (a->uplink_ofport < 1) {
			fprintf(stderr, "roam-migrate-agent: no OpenFlow port for the uplink %s on %s\n",
				uplink, a->bridge);
			continue;
		}
		if (deliver_port(a)) {
			fprintf(stderr, "roam-migrate-agent: no delivery rule for %s\n",
				a->dev);
			continue;
		}
		n++;
		lengthen_queue(a->dev, DELIVERY_QUEUE_LEN);
	}
	return n;
}

int switchover_add_rules(const char *bridge, const char *flows)
{
	const char *argv[] = { "ovs-ofctl", "add-flows", bridge, "-", NULL };

	return run_cmd(argv, flows, NULL, HELPER_TIMEOUT_MS) ? -1 : 0;
}

int switchover_drop_rules(const char *bridge, const char *mac)
{
	char flow[96];
	const char *argv[] = { "ovs-ofctl", "del-flows", bridge, flow, NULL };

	snprintf(flow, sizeof(flow), "cookie=" SWITCHOVER_COOKIE "/-1,dl_dst=%s", mac);
	return run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS) ? -1 : 0;
}

void switchover_undeliver(struct switchover *sw)
{
	int i;

	if (!sw->delivering)
		return;
	sw->delivering = false;
	for (i = 0; i < sw->n; i++)
		if (switchover_drop_rules(sw->a[i].bridge, sw->a[i].mac))
			fprintf(stderr, "roam-migrate-agent: the delivery rules for %s stay\n",
				sw->a[i].dev);
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

void switchover_find_taps(struct switchover *sw)
{
	int i;

	/* QEMU holds the new tap from Prepare on */
	for (i = 0; i < sw->n; i++)
		if (tapq_find(sw->a[i].dev, &sw->a[i].q))
			fprintf(stderr, "roam-migrate-agent: nobody holds %s: announced by OpenFlow\n",
				sw->a[i].dev);
}

void switchover_clear(struct switchover *sw)
{
	/* deleting by cookie and MAC is right whether rules are in or not */
	sw->delivering = true;
	switchover_undeliver(sw);
}
