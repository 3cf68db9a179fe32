// SPDX-License-Identifier: GPL-2.0
/*
 * taprecord-test.c: which frame taprec_before() names (taprecord.h), as
 * TAP, without a socket: frames go in with taprec_add().
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

/* The seq of the frame named before frame SEQ, or -1 for none. */
static long before(const struct taprec *r, unsigned int seq)
{
	unsigned char buf[VH + FRAME_LEN];
	const struct taprec_frame *f;
	unsigned int got;

	frame(seq, buf);
	f = taprec_before(r, buf + VH, FRAME_LEN);
	if (!f)
		return -1;
	memcpy(&got, f->buf + VH + FRAME_LEN - sizeof(got), sizeof(got));
	return got;
}

int main(void)
{
	unsigned char buf[VH + FRAME_LEN];
	struct taprec r = { 0 };
	unsigned int i;

	ok(before(&r, 1) == -1, "an empty record names nothing");
	add(&r, 1);
	add(&r, 2);
	add(&r, 3);
	ok(before(&r, 3) == 2, "the frame before the newest");
	ok(before(&r, 2) == 1, "the frame before an older one");
	ok(before(&r, 1) == -1, "nothing before the oldest recorded");
	ok(before(&r, 9) == -1, "nothing for a frame never recorded");
	frame(3, buf);
	ok(!taprec_before(&r, buf + VH, FRAME_LEN - 1),
	   "nothing for a frame of another length");
	add(&r, 2);
	add(&r, 4);
	ok(before(&r, 2) == 3, "a frame recorded twice: its newest copy counts");
	r.holes = true;
	ok(before(&r, 4) == -1, "a record with holes names nothing");
	taprec_stop(&r);
	ok(r.n == 0 && !r.holes, "taprec_stop forgets it all");

	for (i = 0; i < TAPREC_FRAMES + 3; i++)
		add(&r, i);
	ok(r.n == TAPREC_FRAMES, "a full record keeps TAPREC_FRAMES frames");
	ok(before(&r, TAPREC_FRAMES + 2) == TAPREC_FRAMES + 1,
	   "the newest after the record wrapped");
	ok(before(&r, 3) == -1, "the oldest kept has nothing before it");
	ok(before(&r, 4) == 3, "the second oldest has");
	ok(before(&r, 1) == -1, "a frame pushed out is not found");
	taprec_stop(&r);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
