// SPDX-License-Identifier: GPL-2.0
/*
 * taprecord.c: see taprecord.h.
 */
#include "taprecord.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A GSO frame as the tap is handed it, after its vnet header. */
#define REC_MAX (sizeof(struct virtio_net_hdr) + 65536 + 256)
/* What the socket may hold between two reads of the agent's loop. */
#define REC_RCVBUF (8 << 20)

int taprec_start(struct taprec *r, const char *dev)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
	};
	int one = 1, size = REC_RCVBUF;

	taprec_stop(r);
	sll.sll_ifindex = (int)if_nametoindex(dev);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "roam-migrate-agent: no tap %s to record: %m\n", dev);
		return -1;
	}
	r->rbuf = malloc(REC_MAX);
	if (!r->rbuf)
		return -1;
	r->sock = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 htons(ETH_P_ALL));
	if (r->sock < 0 ||
	    setsockopt(r->sock, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    setsockopt(r->sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(r->sock, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "roam-migrate-agent: a packet socket on %s: %m\n", dev);
		taprec_stop(r);
		return -1;
	}
	return 0;
}

int taprec_add(struct taprec *r, const void *frame, size_t len)
{
	struct taprec_frame *f = &r->f[r->next];
	unsigned char *copy = malloc(len);

	if (!copy) {
		r->holes = true;
		return -1;
	}
	memcpy(copy, frame, len);
	free(f->buf);
	f->buf = copy;
	f->len = len;
	f->drained = false;
	if (r->first == r->next + 1) {
		r->first = 0;
		r->first_lost = true;
	}
	r->next = (r->next + 1) % TAPREC_FRAMES;
	if (r->n < TAPREC_FRAMES)
		r->n++;
	return 0;
}

void taprec_read(struct taprec *r)
{
	struct tpacket_stats st;
	socklen_t stlen = sizeof(st);

	while (r->rbuf) {
		struct sockaddr_ll from;
		socklen_t fromlen = sizeof(from);
		ssize_t len = recvfrom(r->sock, r->rbuf, REC_MAX, MSG_TRUNC,
				       (struct sockaddr *)&from, &fromlen);

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			break;
		/* what the host sends the guest; not what the guest sends */
		if (from.sll_pkttype != PACKET_OUTGOING)
			continue;
		/* a frame cut short cannot be sent on, and a hole is a hole */
		if ((size_t)len > REC_MAX ||
		    (size_t)len < sizeof(struct virtio_net_hdr) + ETH_HLEN) {
			r->holes = true;
			continue;
		}
		taprec_add(r, r->rbuf, (size_t)len);
	}
	if (r->rbuf &&
	    !getsockopt(r->sock, SOL_PACKET, PACKET_STATISTICS, &st, &stlen) &&
	    st.tp_drops)
		r->holes = true;
}

/* The slot I places before SLOT, in R's ring. */
static int slot_back(int slot, int i)
{
	return (slot - i + 2 * TAPREC_FRAMES) % TAPREC_FRAMES;
}

/* The slot of the newest unmarked copy of FRAME (LEN bytes after the
 * vnet header) in R, or -1. */
static int find_undrained(const struct taprec *r, const void *frame, size_t len)
{
	const size_t vh = sizeof(struct virtio_net_hdr);
	int i;

	for (i = 1; i <= r->n; i++) {
		int k = slot_back(r->next, i);
		const struct taprec_frame *f = &r->f[k];

		if (!f->drained && f->len == vh + len && !memcmp(f->buf + vh, frame, len))
			return k;
	}
	return -1;
}

void taprec_drained(struct taprec *r, const void *frame, size_t len)
{
	int k = find_undrained(r, frame, len);

	/* the socket saw the frame before the tap's queue did: what it
	 * holds may not be read yet */
	if (k < 0 && r->rbuf) {
		taprec_read(r);
		k = find_undrained(r, frame, len);
	}
	if (k < 0) {
		r->holes = true;
		return;
	}
	r->f[k].drained = true;
	if (!r->first && !r->first_lost)
		r->first = k + 1;
}

const struct taprec_frame *taprec_kept(struct taprec *r, const char **why)
{
	int first = r->first - 1, k;

	*why = NULL;
	if (r->rbuf)
		taprec_read(r);
	if (r->holes) {
		*why = "the record of its frames has holes: what QEMU kept is lost";
		return NULL;
	}
	if (first < 0) {
		if (r->first_lost)
			*why = "its first frame drained is no longer in the record: what QEMU kept is lost";
		return NULL;
	}
	for (k = (first + 1) % TAPREC_FRAMES; k != r->next; k = (k + 1) % TAPREC_FRAMES)
		if (!r->f[k].drained) {
			*why = "its frames were recorded out of their queue's order: what QEMU kept is lost";
			return NULL;
		}
	if (first == slot_back(r->next, r->n)) {
		*why = "QEMU kept no frame that was recorded";
		return NULL;
	}
	return &r->f[slot_back(first, 1)];
}

void taprec_stop(struct taprec *r)
{
	int i;

	if (r->rbuf && r->sock >= 0)
		close(r->sock);
	for (i = 0; i < TAPREC_FRAMES; i++)
		free(r->f[i].buf);
	free(r->rbuf);
	memset(r, 0, sizeof(*r));
}
