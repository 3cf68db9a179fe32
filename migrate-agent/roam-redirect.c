// SPDX-License-Identifier: GPL-2.0
/*
 * roam-redirect: set, remove and show a datapath's redirects, or watch
 * their announcements (the roam_redirect family, kernel/roam_redirect.h).
 *
 *   roam-redirect set DP PORT TARGET [vlan VID]
 *   roam-redirect del DP PORT
 *   roam-redirect show DP [PORT]
 *   roam-redirect watch DP [COUNT [SECONDS]]
 *
 * DP is a datapath's name (ovs-system under ovs-vswitchd); PORT and
 * TARGET are its ports' names or numbers.  Each redirect prints as one
 * line, "set port=3 target=1 vlan=10 packets=0 bytes=0 dropped=0" (and
 * first_ns=NS once a frame was redirected); "show" without PORT prints
 * all of them, none when there are none.  "watch" prints announcements
 * of DP until COUNT arrived (default: forever), failing after SECONDS
 * (default 10) without one; it prints "ready" once it listens.
 * Exit status 0, or 1 with the reason on stderr.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redirect_client.h"

static const char *prog = "roam-redirect";
static struct redirect_client *client;

static void usage(void)
{
	fprintf(stderr,
		"usage: %s set DP PORT TARGET [vlan VID]\n"
		"       %s del DP PORT\n"
		"       %s show DP [PORT]\n"
		"       %s watch DP [COUNT [SECONDS]]\n",
		prog, prog, prog, prog);
	exit(1);
}

/* "roam-redirect: WHAT ARG" (ARG may be empty), and exit 1. */
static void die(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s\n", prog, what, arg);
	redirect_close(client);
	exit(1);
}

static void die_client(void)
{
	die(redirect_error(client), "");
}

/* A decimal number up to @max, or -1. */
static long number(const char *s, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 0 || n > max)
		return -1;
	return n;
}

static int datapath(const char *name)
{
	int ifindex = (int)if_nametoindex(name);

	if (!ifindex)
		die("no datapath device ", name);
	return ifindex;
}

/* A port by number, or by name through the ovs_vport family. */
static uint32_t port(int dp_ifindex, const char *arg)
{
	long n = number(arg, 65534);
	uint32_t port_no;

	if (n >= 0)
		return (uint32_t)n;
	if (redirect_port_no(client, dp_ifindex, arg, &port_no))
		die_client();
	return port_no;
}

static void print(const struct redirect_info *info, void *arg)
{
	char line[256];

	(void)arg;
	redirect_format(info, line, sizeof(line));
	puts(line);
	fflush(stdout);
}

static void watch(int dp_ifindex, long count, long seconds)
{
	struct redirect_info info;
	long seen = 0;
	int err;

	if (redirect_watch(client))
		die_client();
	puts("ready");
	fflush(stdout);
	while (count < 0 || seen < count) {
		err = redirect_next(client, (int)seconds * 1000, &info);
		if (err)
			die_client();
		if (info.dp_ifindex != dp_ifindex)
			continue;
		print(&info, NULL);
		seen++;
	}
}

int main(int argc, char **argv)
{
	struct redirect_info info;
	const char *cmd;
	int dp, err = 0;
	long vlan = 0;

	if (argc < 3)
		usage();
	cmd = argv[1];
	if (redirect_open(&client))
		die_client();
	dp = datapath(argv[2]);

	if (!strcmp(cmd, "set") && (argc == 5 || argc == 7)) {
		if (argc == 7) {
			if (strcmp(argv[5], "vlan"))
				usage();
			vlan = number(argv[6], 4094);
			if (vlan < 1)
				die("not a VID from 1 to 4094: ", argv[6]);
		}
		err = redirect_set(client, dp, port(dp, argv[3]),
				   port(dp, argv[4]), (uint16_t)vlan, &info);
	} else if (!strcmp(cmd, "del") && argc == 4) {
		err = redirect_del(client, dp, port(dp, argv[3]), &info);
	} else if (!strcmp(cmd, "show") && argc == 4) {
		err = redirect_get(client, dp, port(dp, argv[3]), &info);
	} else if (!strcmp(cmd, "show") && argc == 3) {
		if (redirect_dump(client, dp, print, NULL))
			die_client();
		redirect_close(client);
		return 0;
	} else if (!strcmp(cmd, "watch") && argc >= 3 && argc <= 5) {
		long count = argc > 3 ? number(argv[3], 1000000) : -1;
		long seconds = argc > 4 ? number(argv[4], 86400) : 10;

		if ((argc > 3 && count < 1) || seconds < 1)
			usage();
		watch(dp, count, seconds);
		redirect_close(client);
		return 0;
	} else {
		usage();
	}
	if (err)
		die_client();
	print(&info, NULL);
	redirect_close(client);
	return 0;
}
