/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client of the roam_redirect Generic Netlink family (kernel/
 * roam_redirect.h), over libnl-genl-3: set, remove, read and watch a
 * datapath's redirects.  Used by roam-redirect and by the agent.
 */
#ifndef ROAM_REDIRECT_CLIENT_H
#define ROAM_REDIRECT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One redirect, as a reply or an announcement tells it. */
struct redirect_info {
	uint8_t cmd;		/* ROAM_REDIRECT_CMD_* of the message */
	int dp_ifindex;
	uint32_t port;
	uint32_t target;
	uint16_t vlan;		/* 0: none */
	uint64_t packets;
	uint64_t bytes;
	uint64_t dropped;
	uint64_t first_ns;	/* 0: no frame redirected yet */
};

struct redirect_client;

/*
 * Each call returns 0 or a negative errno; on failure it leaves a
 * one-line reason (the kernel's extended ack message when it gave one)
 * in redirect_error().
 */
int redirect_open(struct redirect_client **client);
void redirect_close(struct redirect_client *client);
const char *redirect_error(const struct redirect_client *client);

/* The number of datapath @dp_ifindex's port named @name (ovs_vport). */
int redirect_port_no(struct redirect_client *client, int dp_ifindex,
		     const char *name, uint32_t *port_no);

int redirect_set(struct redirect_client *client, int dp_ifindex,
		 uint32_t port, uint32_t target, uint16_t vlan,
		 struct redirect_info *out);
int redirect_del(struct redirect_client *client, int dp_ifindex,
		 uint32_t port, struct redirect_info *out);
int redirect_get(struct redirect_client *client, int dp_ifindex,
		 uint32_t port, struct redirect_info *out);
/* Every redirect of the datapath, in port order, each handed to @fn. */
int redirect_dump(struct redirect_client *client, int dp_ifindex,
		  void (*fn)(const struct redirect_info *info, void *arg),
		  void *arg);

/*
 * Join the family's multicast group; then redirect_next() waits up to
 * @timeout_ms (-1: forever) for the next announcement: 0 with @out
 * filled, -ETIMEDOUT, or another error.
 */
int redirect_watch(struct redirect_client *client);
int redirect_next(struct redirect_client *client, int timeout_ms,
		  struct redirect_info *out);

/* "set port=3 target=1 vlan=10 packets=0 ..." for @info, into @buf. */
void redirect_format(const struct redirect_info *info, char *buf,
		     size_t len);

#endif /* ROAM_REDIRECT_CLIENT_H */
