// SPDX-License-Identifier: GPL-2.0
/*
 * tapqueue.c: see tapqueue.h.
 */
#include "tapqueue.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* A tap's queue holds at most its txqueuelen frames (tun's default is
 * 500); a drain that reads more than this is not reading a stopped
 * guest's queue, and stops. */
#define DRAIN_MAX_FRAMES 4096
/* The largest frame a tap hands out: a 64 KiB GSO frame, its headers. */
#define FRAME_MAX (65536 + 256)

/* Whether the descriptor FD of the process PID is a tun file of DEV. */
static bool holds_tap(const char *pid, const char *fd, const char *dev)
{
	char path[sizeof("/proc//fdinfo/") + 2 * NAME_MAX], target[32];
	char line[64], want[IFNAMSIZ + 8];
	bool found = false;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return false;
	target[len] = '\0';
	if (strcmp(target, "/dev/net/tun"))
		return false;
	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	snprintf(want, sizeof(want), "iff:\t%s\n", dev);
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, want);
	fclose(f);
	return found;
}

/* Q's descriptors: the process PID's files of DEV. */
static void scan_process(const char *pid, const char *dev, struct tapq *q)
{
	char path[sizeof("/proc//fd") + NAME_MAX];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while (q->n < TAPQ_MAX_QUEUES && (e = readdir(dir)))
		if (e->d_name[0] != '.' && holds_tap(pid, e->d_name, dev))
			q->fd[q->n++] = atoi(e->d_name);
	closedir(dir);
}

int tapq_find(const char *dev, struct tapq *q)
{
	struct dirent *e;
	DIR *proc;

	memset(q, 0, sizeof(*q));
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while (!q->n && (e = readdir(proc))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		scan_process(e->d_name, dev, q);
		if (q->n)
			q->pid = atoi(e->d_name);
	}
	closedir(proc);
	return q->n ? 0 : -1;
}

/*
 * Send FRAME (LEN bytes, after the tap's vnet header VH) out by SOCK,
 * VLAN pushed if it is untagged.  The packet socket takes the same
 * header, little-endian on these hosts as the tap's is (virtio 1.0): a
 * tag pushed moves the offsets it gives by 4.
 */
static int send_frame(int sock, struct virtio_net_hdr *vh,
		      const unsigned char *frame, size_t len, uint16_t vlan)
{
	struct msghdr msg = { 0 };
	struct iovec iov[4];
	unsigned char tag[4];
	uint16_t type;
	int n = 0;

	if (len < ETH_HLEN)
		return -1;
	/* DATA_VALID is what the tap tells its reader; a sender may only
	 * ask for a checksum */
	vh->flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	iov[n++] = (struct iovec){ .iov_base = vh, .iov_len = sizeof(*vh) };
	memcpy(&type, frame + 2 * ETH_ALEN, sizeof(type));
	if (vlan && type != htons(ETH_P_8021Q) && type != htons(ETH_P_8021AD)) {
		uint16_t tpid = htons(ETH_P_8021Q), tci = htons(vlan);

		memcpy(tag, &tpid, 2);
		memcpy(tag + 2, &tci, 2);
		if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			vh->csum_start = htole16(le16toh(vh->csum_start) + 4);
		if (vh->hdr_len)
			vh->hdr_len = htole16(le16toh(vh->hdr_len) + 4);
		/* sendmsg() only reads what an iovec points at */
		iov[n++] = (struct iovec){ .iov_base = (void *)frame, .iov_len = 2 * ETH_ALEN };
		iov[n++] = (struct iovec){ .iov_base = tag, .iov_len = sizeof(tag) };
		iov[n++] = (struct iovec){ .iov_base = (void *)(frame + 2 * ETH_ALEN),
					   .iov_len = len - 2 * ETH_ALEN };
	} else {
		iov[n++] = (struct iovec){ .iov_base = (void *)frame, .iov_len = len };
	}
	msg.msg_iov = iov;
	msg.msg_iovlen = n;
	return sendmsg(sock, &msg, 0) < 0 ? -1 : 0;
}

/* F: a copy of the tap DEV's file that is descriptor FD of PIDFD's
 * process.  Returns 0, or -1 with a message; *NONBLOCKING tells whether
 * its holder reads it non-blocking. */
static int tap_get(int pidfd, int fd, const char *dev, struct tapq_file *f,
		   bool *nonblocking)
{
	struct ifreq ifr = { 0 };
	int flags;

	f->fd = pidfd_getfd(pidfd, fd, 0);
	if (f->fd < 0) {
		fprintf(stderr, "roam-migrate-agent: %s: its holder's descriptor %d: %m\n",
			dev, fd);
		return -1;
	}
	f->hdrsz = 0;
	flags = fcntl(f->fd, F_GETFL);
	*nonblocking = flags >= 0 && (flags & O_NONBLOCK);
	if (ioctl(f->fd, TUNGETIFF, &ifr) || strcmp(ifr.ifr_name, dev) ||
	    !(ifr.ifr_flags & IFF_TAP)) {
		fprintf(stderr, "roam-migrate-agent: %s: descriptor %d is no longer its tap\n",
			dev, fd);
		goto close_fd;
	}
	if ((ifr.ifr_flags & IFF_VNET_HDR) &&
	    (ioctl(f->fd, TUNGETVNETHDRSZ, &f->hdrsz) ||
	     f->hdrsz < (int)sizeof(struct virtio_net_hdr))) {
		fprintf(stderr, "roam-migrate-agent: %s: no vnet header size\n", dev);
		goto close_fd;
	}
	f->pi = ifr.ifr_flags & IFF_NO_PI ? 0 : (int)sizeof(struct tun_pi);
	return 0;

close_fd:
	close(f->fd);
	f->fd = -1;
	return -1;
}

int tapq_hold(const struct tapq *q, const char *dev, const char *uplink,
	      uint16_t vlan, struct tapq_hold *h)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	bool nonblocking;
	int pidfd, one = 1, i;

	memset(h, 0, sizeof(*h));
	h->sock = -1;
	if (!q->pid || strlen(dev) >= sizeof(h->dev))
		return -1;
	strcpy(h->dev, dev);
	h->vlan = vlan;
	sll.sll_ifindex = (int)if_nametoindex(uplink);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "roam-migrate-agent: no uplink %s: %m\n", uplink);
		return -1;
	}
	h->buf = malloc(FRAME_MAX);
	if (!h->buf)
		return -1;
	/* protocol 0: it sends, and receives nothing */
	h->sock = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (h->sock < 0 ||
	    setsockopt(h->sock, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    bind(h->sock, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "roam-migrate-agent: a packet socket on %s: %m\n", uplink);
		goto release;
	}
	pidfd = pidfd_open(q->pid, 0);
	if (pidfd < 0) {
		fprintf(stderr, "roam-migrate-agent: %s: its holder %d: %m\n", dev, q->pid);
		goto release;
	}
	for (i = 0; i < q->n; i++) {
		struct tapq_file *f = &h->f[h->n];

		if (tap_get(pidfd, q->fd[i], dev, f, &nonblocking))
			continue;
		/* a blocking holder's file: a read could wait for ever */
		if (!nonblocking) {
			fprintf(stderr, "roam-migrate-agent: %s: its holder reads it blocking: not drained\n",
				dev);
			close(f->fd);
			continue;
		}
		h->n++;
	}
	close(pidfd);
	if (h->n)
		return 0;
release:
	tapq_release(h);
	return -1;
}

void tapq_release(struct tapq_hold *h)
{
	int i;

	if (!h->buf)		/* never held, or let go already */
		return;
	for (i = 0; i < h->n; i++)
		close(h->f[i].fd);
	h->n = 0;
	if (h->sock >= 0)
		close(h->sock);
	h->sock = -1;
	free(h->buf);
	h->buf = NULL;
}

/* FRAME out by H's socket unless group-addressed, counted in C. */
static void send_one(struct tapq_hold *h, struct virtio_net_hdr *vh,
		     const unsigned char *frame, size_t len, struct tapq_counts *c)
{
	if (frame[0] & 1)
		c->group++;
	else if (send_frame(h->sock, vh, frame, len, h->vlan))
		c->failed++;
	else
		c->sent++;
}

/* The next frame of F's queue, read into H's buffer: its length, *FRAME
 * pointing at its Ethernet header and *VH its vnet header (zeroes without
 * one); 0 for a runt, -1 once the queue is empty (or cannot be read:
 * said on stderr). */
static ssize_t read_frame(struct tapq_hold *h, const struct tapq_file *f,
			  unsigned char **frame, struct virtio_net_hdr *vh)
{
	ssize_t len;

	do
		len = read(f->fd, h->buf, FRAME_MAX);
	while (len < 0 && errno == EINTR);
	if (len < 0) {
		if (errno != EAGAIN)
			fprintf(stderr, "roam-migrate-agent: %s: reading its queue: %m\n",
				h->dev);
		return -1;
	}
	len -= f->pi + f->hdrsz;
	if (len < ETH_HLEN)
		return 0;
	*frame = h->buf + f->pi + f->hdrsz;
	memset(vh, 0, sizeof(*vh));
	if (f->hdrsz)
		memcpy(vh, h->buf + f->pi, sizeof(*vh));
	return len;
}

/* What F's queue holds, out by H's socket, counted in C. */
static void drain_file(struct tapq_hold *h, const struct tapq_file *f,
		       struct tapq_counts *c)
{
	int i;

	for (i = 0; i < DRAIN_MAX_FRAMES; i++) {
		struct virtio_net_hdr vh;
		unsigned char *frame;
		ssize_t len = read_frame(h, f, &frame, &vh);

		if (len < 0)
			break;
		if (!len) {
			c->failed++;
			continue;
		}
		if (h->drained)
			h->drained(h, frame, (size_t)len, h->drained_arg);
		send_one(h, &vh, frame, (size_t)len, c);
	}
}

void tapq_hold_send(struct tapq_hold *h, const void *vh, const void *frame,
		    size_t len, struct tapq_counts *c)
{
	struct virtio_net_hdr hdr;

	memcpy(&hdr, vh, sizeof(hdr));
	send_one(h, &hdr, frame, len, c);
}

void tapq_hold_drain(struct tapq_hold *h, int fd, struct tapq_counts *c)
{
	int i;

	for (i = 0; i < h->n; i++)
		if (fd < 0 || h->f[i].fd == fd)
			drain_file(h, &h->f[i], c);
}

int tapq_drain(const struct tapq *q, const char *dev, const char *uplink,
	       uint16_t vlan, struct tapq_counts *c)
{
	struct tapq_hold h;

	memset(c, 0, sizeof(*c));
	if (tapq_hold(q, dev, uplink, vlan, &h))
		return -1;
	tapq_hold_drain(&h, -1, c);
	tapq_release(&h);
	return 0;
}

/* A frame tapq_purge hands back: its vnet header and its bytes. */
struct kept_frame {
	struct virtio_net_hdr vh;
	size_t len;
	unsigned char frame[];
};

/* Read F's queue into H, DRAIN_MAX_FRAMES frames at most, as a drain
 * does: frames for MAC into KEPT (*N of them), the others counted in C
 * and dropped. */
static void purge_file(struct tapq_hold *h, const struct tapq_file *f,
		       const unsigned char *mac, struct kept_frame **kept,
		       int *n, struct tapq_counts *c)
{
	int i;

	for (i = 0; i < DRAIN_MAX_FRAMES && *n < DRAIN_MAX_FRAMES; i++) {
		struct virtio_net_hdr vh;
		struct kept_frame *k;
		unsigned char *frame;
		ssize_t len = read_frame(h, f, &frame, &vh);

		if (len < 0)
			return;
		if (!len) {
			c->failed++;
			continue;
		}
		if (memcmp(frame, mac, ETH_ALEN)) {
			c->group++;
			continue;
		}
		k = malloc(sizeof(*k) + (size_t)len);
		if (!k) {
			c->failed++;
			continue;
		}
		k->vh = vh;
		k->len = (size_t)len;
		memcpy(k->frame, frame, k->len);
		kept[(*n)++] = k;
	}
}

/* The placeholder's EtherType: IEEE 802's first for local experiments,
 * which no guest's stack takes. */
#define PLACEHOLDER_ETHERTYPE 0x88b5

/*
 * Hand the tap DEV, through H's packet socket on it, the placeholder for
 * MAC (tapqueue.h): from the tap's own MAC, of an EtherType nobody
 * takes.  0 or -1.
 */
static int send_placeholder(const struct tapq_hold *h, const char *dev,
			    const unsigned char *mac)
{
	static const char text[] = "roamswitch: a frame for QEMU to keep";
	unsigned char frame[ETH_ZLEN] = { 0 };
	struct virtio_net_hdr vh = { 0 };
	uint16_t type = htons(PLACEHOLDER_ETHERTYPE);
	struct ifreq ifr = { 0 };

	if (snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev) >= IFNAMSIZ ||
	    ioctl(h->sock, SIOCGIFHWADDR, &ifr))
		return -1;
	memcpy(frame, mac, ETH_ALEN);
	memcpy(frame + ETH_ALEN, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	memcpy(frame + 2 * ETH_ALEN, &type, sizeof(type));
	memcpy(frame + ETH_HLEN, text, sizeof(text));
	return send_frame(h->sock, &vh, frame, sizeof(frame), 0);
}

int tapq_purge(const struct tapq *q, const char *dev, const unsigned char *mac,
	       struct tapq_counts *c)
{
	struct kept_frame **kept;
	struct tapq_hold h;
	int i, n = 0;

	memset(c, 0, sizeof(*c));
	kept = calloc(DRAIN_MAX_FRAMES, sizeof(*kept));
	if (!kept)
		return -1;
	/* the way out is the tap itself, untagged */
	if (tapq_hold(q, dev, dev, 0, &h)) {
		free(kept);
		return -1;
	}
	/* all of it read first: what is handed back joins the queue */
	for (i = 0; i < h.n; i++)
		purge_file(&h, &h.f[i], mac, kept, &n, c);
	/* first in the emptied queue, so that QEMU reads it, not theirs */
	if (send_placeholder(&h, dev, mac))
		fprintf(stderr, "roam-migrate-agent: %s: no placeholder for QEMU: %m\n", dev);
	for (i = 0; i < n; i++) {
		if (send_frame(h.sock, &kept[i]->vh, kept[i]->frame, kept[i]->len, 0))
			c->failed++;
		else
			c->sent++;
		free(kept[i]);
	}
	free(kept);
	tapq_release(&h);
	return 0;
}

int tapq_inject(const struct tapq *q, const char *dev, const void *frame,
		size_t len)
{
	/* tun's packet information and any vnet header: zeroes say "an
	 * Ethernet frame, no offload" (tun reads the protocol from it) */
	unsigned char head[sizeof(struct tun_pi) + 32] = { 0 };
	struct iovec iov[2];
	struct tapq_file t;
	int pidfd, rc = -1;
	bool nonblocking;

	if (!q->pid)
		return -1;
	pidfd = pidfd_open(q->pid, 0);
	if (pidfd < 0) {
		fprintf(stderr, "roam-migrate-agent: %s: its holder %d: %m\n", dev, q->pid);
		return -1;
	}
	if (tap_get(pidfd, q->fd[0], dev, &t, &nonblocking))
		goto close_pidfd;
	if (t.pi + t.hdrsz > (int)sizeof(head)) {
		fprintf(stderr, "roam-migrate-agent: %s: a vnet header of %d bytes\n",
			dev, t.hdrsz);
		goto close_tap;
	}
	iov[0] = (struct iovec){ .iov_base = head, .iov_len = (size_t)(t.pi + t.hdrsz) };
	iov[1] = (struct iovec){ .iov_base = (void *)frame, .iov_len = len };
	if (writev(t.fd, iov, 2) == (ssize_t)(iov[0].iov_len + len))
		rc = 0;
	else
		fprintf(stderr, "roam-migrate-agent: %s: writing to it: %m\n", dev);
close_tap:
	close(t.fd);
close_pidfd:
	close(pidfd);
	return rc;
}

