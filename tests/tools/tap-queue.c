// SPDX-License-Identifier: GPL-2.0
/*
 * tap-queue: the migration agent's tap queue code (migrate-agent/
 * tapqueue.h) on its own, for the kernel suite's case 56.
 *
 *   tap-queue hold DEV [block]
 *	make the tap DEV (vnet header of 12 bytes, as QEMU's) and hold it
 *	without reading, as a stopped QEMU does; non-blocking unless
 *	"block"; prints "holding DEV" and waits for a signal.
 *   tap-queue drain DEV UPLINK VLAN
 *	send on what DEV's queue holds; prints "sent N group G failed F".
 *   tap-queue inject DEV MAC
 *	write a RARP from MAC into DEV as its holder would.
 *   tap-queue purge DEV MAC
 *	take out of DEV's queue what is not for MAC, hand the rest back;
 *	prints "kept K taken T failed F".
 *
 * Exit status 0, or 1 with a message on stderr.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <sys/ioctl.h>

#include "tapqueue.h"

static int hold(const char *dev, int blocking)
{
	struct ifreq ifr = { 0 };
	int fd, hdrsz = 12;

	fd = open("/dev/net/tun", O_RDWR | (blocking ? 0 : O_NONBLOCK));
	if (fd < 0) {
		perror("tap-queue: /dev/net/tun");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &hdrsz)) {
		perror("tap-queue: making the tap");
		return 1;
	}
	printf("holding %s\n", dev);
	fflush(stdout);
	pause();
	return 0;
}

/* MAC ("02:00:...") into 6 bytes at M: 0, or -1 with a message. */
static int parse_mac(const char *s, unsigned char *m)
{
	struct ether_addr a;

	if (!ether_aton_r(s, &a)) {
		fprintf(stderr, "tap-queue: %s is not a MAC address\n", s);
		return -1;
	}
	memcpy(m, a.ether_addr_octet, ETH_ALEN);
	return 0;
}

int main(int argc, char **argv)
{
	struct tapq_counts c;
	struct tapq q;

	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argc == 4 && !strcmp(argv[3], "block"));
	if (argc < 3 || tapq_find(argv[2], &q)) {
		fprintf(stderr, "tap-queue: usage, or nobody holds %s\n",
			argc >= 3 ? argv[2] : "the tap");
		return 1;
	}
	if (argc == 5 && !strcmp(argv[1], "drain")) {
		if (tapq_drain(&q, argv[2], argv[3], (uint16_t)atoi(argv[4]), &c))
			return 1;
		printf("sent %d group %d failed %d\n", c.sent, c.group, c.failed);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "inject")) {
		unsigned char f[60] = { 0 };

		if (parse_mac(argv[3], f + 6))
			return 1;
		memset(f, 0xff, 6);
		f[12] = 0x80;
		f[13] = 0x35;
		return tapq_inject(&q, argv[2], f, sizeof(f)) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "purge")) {
		unsigned char mac[6];

		if (parse_mac(argv[3], mac) || tapq_purge(&q, argv[2], mac, &c))
			return 1;
		printf("kept %d taken %d failed %d\n", c.sent, c.group, c.failed);
		return 0;
	}
	fprintf(stderr, "tap-queue: usage: hold DEV [block] | drain DEV UPLINK VLAN | inject DEV MAC | purge DEV MAC\n");
	return 1;
}
