/* SPDX-License-Identifier: GPL-2.0 */
/*
 * taprecord.h: the last frames a tap was handed for its guest, kept so
 * that the source can send on the one QEMU took in and never delivered.
 *
 * When the VM stops, QEMU's tap backend reads one more frame, finds that
 * the stopped virtio-net device cannot take it, keeps it in its own
 * queue and stops reading (a frame it already kept for want of receive
 * buffers is purged at the stop, and the read that follows keeps the
 * next).  On the source that frame dies with QEMU: one datagram of the
 * guest's peers lost in each migration that had traffic at the stop,
 * whatever the detour does.  The frames after it wait in the tap's
 * queue, where the agent drains them (tapqueue.h).
 *
 * So the frame QEMU kept is the one the tap was handed just before the
 * first frame the agent drains: QEMU's reading stops only at a frame it
 * could not deliver.  A packet socket on the tap records what the tap is
 * handed from the start of a migration (libvirt's first iteration event),
 * each frame the agent drains is marked in the record (taprec_drained),
 * and once the tap is drained and redirected, taprec_kept() names that
 * frame, and the agent sends it on.
 *
 * The record's order is the order in which frames passed the socket,
 * which two CPUs handing the tap frames at once can make differ from the
 * queue's own: then the frame named was delivered by vhost-net before
 * the stop, and the one QEMU kept comes after the first drained in the
 * record (which would explain a migration of CI's, 2026-12-07, that
 * lost a datagram and handed the guest another twice).  So a frame is
 * named only if every frame recorded after the first drained one was
 * drained too, and never if the record may have a hole (the socket
 * dropped a frame): a frame sent twice would be worse than one lost.
 */
#ifndef ROAM_AGENT_TAPRECORD_H
#define ROAM_AGENT_TAPRECORD_H

#include <stdbool.h>
#include <stddef.h>

/* More than a tap's queue holds when a detour starts (tun's 500). */
#define TAPREC_FRAMES 512

/* A frame as the packet socket gave it: a struct virtio_net_hdr, then
 * the Ethernet frame. */
struct taprec_frame {
	unsigned char *buf;
	size_t len;
	bool drained;		/* taken out of the tap's queue */
};

/* All zeroes: recording nothing (taprec_stop() and taprec_kept() are
 * safe on it). */
struct taprec {
	int sock;		/* the packet socket, while recording */
	bool holes;		/* the socket dropped frames: names nothing */
	int next;		/* the slot the next frame goes to */
	int n;			/* frames held, up to TAPREC_FRAMES */
	int first;		/* 1 + the slot of the first frame drained;
				 * 0: none drained yet */
	bool first_lost;	/* the first frame drained was pushed out
				 * of the record: names nothing */
	struct taprec_frame f[TAPREC_FRAMES];
	unsigned char *rbuf;	/* one frame being read; NULL: not recording */
};

/*
 * taprec_start - record in R what the tap DEV is handed for its reader,
 * from now on; R's socket (r->sock) is non-blocking, to be read with
 * taprec_read() when readable.  Returns 0, or -1 with a message and R
 * not recording.
 */
int taprec_start(struct taprec *r, const char *dev);

/* taprec_read - take into R what its socket holds. */
void taprec_read(struct taprec *r);

/* taprec_add - keep FRAME (LEN bytes, vnet header first) as the newest;
 * the oldest goes when R is full.  Returns 0, or -1 (out of memory: R
 * then has a hole). */
int taprec_add(struct taprec *r, const void *frame, size_t len);

/*
 * taprec_drained - FRAME (LEN bytes of Ethernet) was taken out of the
 * tap's queue: its newest copy in R not marked yet is marked.  A frame
 * drained that R never recorded leaves R with a hole.
 */
void taprec_drained(struct taprec *r, const void *frame, size_t len);

/*
 * taprec_kept - once the tap no longer takes frames in and its queue is
 * drained: the frame QEMU kept, the one R recorded just before the first
 * frame drained, or NULL with *WHY saying why none is named (NULL: no
 * frame was drained, so none was kept).
 */
const struct taprec_frame *taprec_kept(struct taprec *r, const char **why);

/* taprec_stop - stop recording and forget what R holds. */
void taprec_stop(struct taprec *r);

#endif
