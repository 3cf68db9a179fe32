// SPDX-License-Identifier: GPL-2.0
/*
 * taprecord-test.c: which frame taprec_kept() names (taprecord.h), as
 * TAP, without a socket: frames go in with taprec_add(), and are drained
 * with taprec_drained().
 */
#include <linux/virtio_net.h>
#include <stdio.h>
#include <string.h>

#include "taprecord.h"

#define VH sizeof(struct virtio_net_hdr)
#define FRAME_LEN 60

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	failed += !cond;
}

/* Frame SEQ: a vnet header, then 60 bytes of Ethernet that say SEQ. */
static void frame(unsigned int seq, unsigned char *buf)
{
	memset(buf, 0, VH + FRAME_LEN);
	memcpy(buf + VH + FRAME_LEN - sizeof(seq), &seq, sizeof(seq));
	buf[VH] = 0x52;		/* a unicast destination */
}

static void add(struct taprec *r, unsigned int seq)
{
	unsigned char buf[VH + FRAME_LEN];

	frame(seq, buf);
	taprec_add(r, buf, sizeof(buf));
}

/* FRAME SEQ was drained from the tap's queue. */
static void drain(struct taprec *r, unsigned int seq)
{
	unsigned char buf[VH + FRAME_LEN];

	frame(seq, buf);
	taprec_drained(r, buf + VH, FRAME_LEN);
}

/* The seq of the frame taprec_kept() names, or -1 for none; *WHY, its
 * reason then. */
static long kept(struct taprec *r, const char **why)
{
	const struct taprec_frame *f = taprec_kept(r, why);
	unsigned int got;

	if (!f)
		return -1;
	memcpy(&got, f->buf + VH + FRAME_LEN - sizeof(got), sizeof(got));
	return got;
}

/* A record of frames FROM to TO, in order. */
static void record(struct taprec *r, unsigned int from, unsigned int to)
{
	taprec_stop(r);
	for (; from <= to; from++)
		add(r, from);
}

static int says(const char *why, const char *word)
{
	return why && strstr(why, word);
}

int main(void)
{
	struct taprec r = { 0 };
	const char *why;
	unsigned int i;

	ok(kept(&r, &why) == -1 && !why, "an empty record names nothing, and says nothing");
	record(&r, 1, 4);
	ok(kept(&r, &why) == -1 && !why, "nothing drained: nothing was kept, nothing said");
	drain(&r, 3);
	drain(&r, 4);
	ok(kept(&r, &why) == 2, "the frame before the first drained, when all after it were");
	record(&r, 1, 4);
	drain(&r, 3);
	ok(kept(&r, &why) == -1 && says(why, "order"),
	   "a frame recorded after the first drained was not drained: none");
	record(&r, 1, 3);
	drain(&r, 2);
	ok(kept(&r, &why) == -1 && says(why, "order"),
	   "the queue had 3 ahead of 2 (QEMU kept 3): 1, delivered, is not named");
	record(&r, 1, 3);
	drain(&r, 1);
	drain(&r, 2);
	drain(&r, 3);
	ok(kept(&r, &why) == -1 && says(why, "no frame"),
	   "the oldest recorded drained first: none before it");
	record(&r, 1, 3);
	drain(&r, 9);
	drain(&r, 3);
	ok(kept(&r, &why) == -1 && says(why, "holes"),
	   "a frame drained that was never recorded: a hole, none");
	record(&r, 1, 3);
	drain(&r, 3);
	r.holes = true;
	ok(kept(&r, &why) == -1 && says(why, "holes"), "a record with holes names nothing");
	record(&r, 5, 6);
	add(&r, 5);
	add(&r, 7);
	drain(&r, 5);
	drain(&r, 7);
	ok(kept(&r, &why) == 6, "a frame recorded twice: its newest copy was drained");
	taprec_stop(&r);
	ok(r.n == 0 && !r.holes && !r.first && !r.first_lost, "taprec_stop forgets it all");

	record(&r, 0, TAPREC_FRAMES + 2);
	ok(r.n == TAPREC_FRAMES, "a full record keeps TAPREC_FRAMES frames");
	drain(&r, TAPREC_FRAMES + 1);
	drain(&r, TAPREC_FRAMES + 2);
	ok(kept(&r, &why) == TAPREC_FRAMES, "named after the record wrapped");
	record(&r, 0, TAPREC_FRAMES + 2);
	for (i = 3; i <= TAPREC_FRAMES + 2; i++)
		drain(&r, i);
	ok(kept(&r, &why) == -1 && says(why, "no frame"),
	   "the oldest kept has nothing before it");
	for (i = 0; i < TAPREC_FRAMES; i++)
		add(&r, 1000 + i);
	ok(kept(&r, &why) == -1 && says(why, "no longer in the record"),
	   "the first drained pushed out of the record: none");
	record(&r, 10, 12);
	drain(&r, 1);
	ok(kept(&r, &why) == -1 && says(why, "holes"), "a frame pushed out is not found");
	taprec_stop(&r);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
