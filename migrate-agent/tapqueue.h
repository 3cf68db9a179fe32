/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapqueue.h: the frames a paused guest will never read on the source.
 * Between QEMU's stop and the redirect (detour.h), what the switch sends
 * to the guest's tap waits in the tap's queue for a reader that will not
 * come back: QEMU reads nothing while the VM is stopped, and the guest
 * goes on at the destination.  The agent takes those frames out of the
 * queue, through its own copy of QEMU's file of the tap (pidfd_getfd(2):
 * the same queue, so nothing is read twice), and sends them where the
 * redirect sends the rest: out by the uplink, the port's untagged VLAN
 * pushed, offloads (GSO, checksum) kept by the packet socket's vnet
 * header; group-addressed frames are dropped, as the redirect drops them.  They reach the destination's tap behind the first redirected
 * frames, before the guest resumes there.
 *
 * On the destination, the same copy of QEMU's file lets the agent speak
 * for the guest the moment it resumes (tapq_inject): its announcement
 * enters the switch on the guest's port, as QEMU's own would.
 */
#ifndef ROAM_AGENT_TAPQUEUE_H
#define ROAM_AGENT_TAPQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <sys/types.h>

#define TAPQ_MAX_QUEUES 8

/* Where a tap's queues are read: which process holds them, by which
 * descriptors (a multiqueue tap has one a queue). */
struct tapq {
	pid_t pid;			/* 0: not found */
	int n;
	int fd[TAPQ_MAX_QUEUES];	/* in PID */
};

/*
 * tapq_find - fill Q with the process that holds the tap DEV and its
 * descriptors of it (from /proc/PID/fdinfo, where a tun file says
 * "iff: DEV").  Slow (it reads every process's descriptors): ask it while
 * the guest runs.  Returns 0, or -1 with Q->pid 0 when nobody holds DEV.
 */
int tapq_find(const char *dev, struct tapq *q);

/* What a drain did with the frames it took from a tap. */
struct tapq_counts {
	int sent;	/* out by the uplink */
	int group;	/* group-addressed: the switch flooded them to the
			 * other hosts already, so they are not sent twice
			 * (tapq_purge: every frame taken out) */
	int failed;	/* could not be sent */
};

/*
 * tapq_drain - send every frame waiting in Q's queues of the tap DEV out
 * by the device UPLINK, VLAN pushed on the untagged ones (0: none),
 * unicast only; *C counts them.  The holder must not be reading (a
 * stopped VM), and its files must be non-blocking, as QEMU's are: a file
 * that is not is left alone.  Returns 0, or -1 (with a message) if no
 * queue could be read.
 */
int tapq_drain(const struct tapq *q, const char *dev, const char *uplink,
	       uint16_t vlan, struct tapq_counts *c);

/* One of a tap's queues, through the agent's copy of its holder's file. */
struct tapq_file {
	int fd;
	int pi;		/* bytes of tun's packet information before a frame */
	int hdrsz;	/* then bytes of vnet header */
};

/* A tap's queues held, for as long as frames may still come in: each is
 * drained when it is readable (tapq_hold_drain), until tapq_release. */
struct tapq_hold {
	int n;
	struct tapq_file f[TAPQ_MAX_QUEUES];
	int sock;		/* the packet socket on the uplink */
	uint16_t vlan;
	char dev[IFNAMSIZ];
	unsigned char *buf;	/* one frame */
	/* called with each frame drained (Ethernet), before it is sent;
	 * NULL: not called */
	void (*drained)(struct tapq_hold *h, const unsigned char *frame,
			size_t len, void *arg);
	void *drained_arg;
};

/*
 * tapq_hold - H gets copies of Q's files of the tap DEV (the
 * non-blocking ones), and a way out by UPLINK, for VLAN: tapq_drain's
 * first half.  Returns 0, or -1 with a message and nothing held.
 * While H is held, the tap outlives its holder.
 */
int tapq_hold(const struct tapq *q, const char *dev, const char *uplink,
	      uint16_t vlan, struct tapq_hold *h);

/* tapq_hold_drain - drain H's queue with the descriptor FD (-1: all of
 * them), adding to *C. */
void tapq_hold_drain(struct tapq_hold *h, int fd, struct tapq_counts *c);

/*
 * tapq_hold_send - send FRAME (LEN bytes of Ethernet, after the packet
 * socket's struct virtio_net_hdr VH) where H sends what it drains,
 * unless it is group-addressed; counted in *C.
 */
void tapq_hold_send(struct tapq_hold *h, const void *vh, const void *frame,
		    size_t len, struct tapq_counts *c);

/* tapq_release - close what H holds; nothing for an H never held (all
 * zeroes) or let go already. */
void tapq_release(struct tapq_hold *h);

/*
 * tapq_purge - before an incoming guest resumes, take out of Q's queues
 * of its new tap DEV every frame that is not addressed to MAC (6 bytes):
 * stale floods, which the guest got on the source already (see
 * switchover.h).  Frames for MAC (the source's redirect) are handed back
 * to the tap in their order, through a packet socket on DEV: what is
 * sent on a tap is queued for its reader.  *C counts them: sent, handed
 * back; group, taken out; failed.  Returns 0, or -1 (with a message) if
 * no queue could be read.
 *
 * Ahead of them goes a placeholder, a frame of ours for MAC that any
 * guest's stack ignores: QEMU's own reader of the tap takes the first
 * frame that comes while the guest is not running, keeps it, stops
 * reading, and drops it when vhost-net starts at the resume (QEMU
 * empties its own queues then).  Without the placeholder, the frame it
 * kept was the first the source sent on, in every migration.
 */
int tapq_purge(const struct tapq *q, const char *dev, const unsigned char *mac,
	       struct tapq_counts *c);

/*
 * tapq_inject - hand FRAME (LEN bytes, Ethernet) to the tap DEV of Q as
 * if its reader had sent it, the way QEMU sends a guest's announcements:
 * the switch receives it on the guest's port.  Returns 0, or -1 with a
 * message.
 */
int tapq_inject(const struct tapq *q, const char *dev, const void *frame,
		size_t len);

#endif
