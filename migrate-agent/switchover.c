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
#include <netinet/ether.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>

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
	struct ether_addr m;
	int i;

	if (!ether_aton_r(mac, &m))
		return -1;
	/* to broadcast, from MAC; sender and target hardware address MAC,
	 * their IPv4 addresses 0; zeroes to 60 bytes */
	memset(f, 0, sizeof(a->rarp));
	memset(f, 0xff, ETH_ALEN);
	memcpy(f + 6, m.ether_addr_octet, ETH_ALEN);
	memcpy(f + 22, m.ether_addr_octet, ETH_ALEN);
	memcpy(f + 32, m.ether_addr_octet, ETH_ALEN);
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
	a->heard_fd = -1;
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
 * flowed to the guest then, up to 8 datagrams of the probe's (our
 * datapath holds such frames now, kernel/txhold.h; the in-tree one does
 * not). */
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

/* Set or clear the no-flood bit of DEV on BRIDGE (ovs-ofctl mod-port). */
static int port_floods(const char *bridge, const char *dev, bool flood)
{
	const char *argv[] = { "ovs-ofctl", "mod-port", bridge, dev,
			       flood ? "flood" : "no-flood", NULL };

	return run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS) ? -1 : 0;
}

int switchover_hold_floods(struct switchover *sw)
{
	int i, n = 0;

	for (i = 0; i < sw->n; i++) {
		if (port_floods(sw->a[i].bridge, sw->a[i].dev, false)) {
			fprintf(stderr, "roam-migrate-agent: %s still gets floods\n",
				sw->a[i].dev);
			continue;
		}
		sw->holding = true;
		n++;
	}
	return n;
}

void switchover_release_floods(struct switchover *sw)
{
	int i;

	if (!sw->holding)
		return;
	sw->holding = false;
	/* a tap gone (the guest left or stopped) took its port along */
	for (i = 0; i < sw->n; i++)
		if (if_nametoindex(sw->a[i].dev) &&
		    port_floods(sw->a[i].bridge, sw->a[i].dev, true))
			fprintf(stderr, "roam-migrate-agent: %s still floods nothing\n",
				sw->a[i].dev);
}

int switchover_purge(const struct switchover *sw)
{
	int i, n = 0, purged = 0;

	for (i = 0; i < sw->n; i++) {
		const struct announcement *a = &sw->a[i];
		struct tapq_counts c;

		/* the RARP's source is the guest's MAC */
		if (tapq_purge(&a->q, a->dev, a->rarp + 6, &c))
			continue;
		purged++;
		n += c.group;
		if (c.failed)
			fprintf(stderr, "roam-migrate-agent: %s: %d frame(s) lost taking out stale floods\n",
				a->dev, c.failed);
	}
	return purged ? n : -1;
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

/* A packet socket on the tap DEV that takes in what its reader writes
 * into it, RARPs but (classic BPF: the rest is dropped before it is
 * copied); -1 with a message. */
static int listen_tap(const char *dev)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct sock_filter code[] = {
		/* what the tap hands its reader is outgoing here */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 2, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_RARP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 64),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]),
				   .filter = code };
	int fd, one = 1;

	sll.sll_ifindex = (int)if_nametoindex(dev);
	/* protocol 0 until the filter is on: nothing unfiltered queues;
	 * each frame stamped by the kernel as it came (the agent may read
	 * it late: an ovs-ofctl run holds its loop up) */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || !sll.sll_ifindex ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "roam-migrate-agent: %s: no socket for the guest's first frame: %m\n",
			dev);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

void switchover_listen(struct switchover *sw)
{
	int i;

	for (i = 0; i < sw->n; i++)
		if (sw->a[i].heard_fd < 0)
			sw->a[i].heard_fd = listen_tap(sw->a[i].dev);
}

/* The kernel's stamp of a frame recvmsg() got with MSG, in ms; 0 if it
 * has none. */
static long long frame_stamp(struct msghdr *msg)
{
	struct cmsghdr *c;
	struct timeval tv;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMP)
			continue;
		memcpy(&tv, CMSG_DATA(c), sizeof(tv));
		return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
	}
	return 0;
}

long long switchover_heard(struct switchover *sw)
{
	long long first = 0;
	int i;

	for (i = 0; i < sw->n; i++) {
		while (sw->a[i].heard_fd >= 0) {
			char cbuf[CMSG_SPACE(sizeof(struct timeval))];
			unsigned char frame[64];
			struct iovec iov = { frame, sizeof(frame) };
			struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
					      .msg_control = cbuf,
					      .msg_controllen = sizeof(cbuf) };
			long long t;

			if (recvmsg(sw->a[i].heard_fd, &msg, 0) < 0)
				break;
			t = frame_stamp(&msg);
			if (t && (!first || t < first))
				first = t;
		}
	}
	return first;
}

void switchover_unlisten(struct switchover *sw)
{
	int i;

	for (i = 0; i < sw->n; i++) {
		if (sw->a[i].heard_fd >= 0)
			close(sw->a[i].heard_fd);
		sw->a[i].heard_fd = -1;
	}
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
	sw->holding = false;
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
	/* deleting by cookie and MAC is right whether rules are in or
	 * not, and so is letting a port flood */
	sw->delivering = true;
	switchover_undeliver(sw);
	sw->holding = true;
	switchover_release_floods(sw);
}
