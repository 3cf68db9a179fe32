// SPDX-License-Identifier: GPL-2.0
/*
 * ovs-badmsg: send crafted, mostly malformed requests to the datapath
 * families and print the errno each one is answered with.
 *
 *   ovs-badmsg DP
 *
 * DP is an existing datapath (ovs-dpctl add-dp); flow requests go to it.
 * One line per request, "NAME ERRNO" (e.g. "key-in-port-short EINVAL"),
 * or "NAME OK" when the kernel accepted it.  Exit status 0 when every
 * request got an answer, 1 otherwise.  The control request
 * "flow-nested-ok" is well formed and must be accepted; the flow it adds
 * is deleted again ("flow-nested-ok-del").
 *
 *   ovs-badmsg --redirect DP
 *
 * sends requests to roamswitch's roam_redirect family instead, DP being a
 * datapath name or, as digits, a dp_ifindex (one of another namespace's,
 * say).  DP's ports 1 and 2 must exist and port 9 must not; its control
 * requests redirect port 1 to port 2 and remove that again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/openvswitch.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "roam_redirect.h"

static const char *prog = "ovs-badmsg";

static struct nl_sock *sk;
static int dp_family, vport_family, flow_family, redirect_family;
static int dp_ifindex;
static bool failed;

/* A request under construction. */
struct req {
	struct nl_msg *msg;
	const char *name;
};

static void req_start(struct req *r, const char *name, int family, int cmd,
		      int version, int ifindex)
{
	struct ovs_header *oh;

	r->name = name;
	r->msg = nlmsg_alloc_size(8192);
	if (!r->msg) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	oh = genlmsg_put(r->msg, NL_AUTO_PORT, NL_AUTO_SEQ, family,
			 sizeof(*oh), NLM_F_ACK | NLM_F_CREATE, cmd, version);
	if (!oh) {
		fprintf(stderr, "%s: %s: no room for the header\n", prog,
			name);
		exit(1);
	}
	oh->dp_ifindex = ifindex;
}

/* Append LEN raw bytes to the request and return where they went. */
static void *raw(struct req *r, const void *data, size_t len)
{
	void *p = nlmsg_reserve(r->msg, len, 1);

	if (!p) {
		fprintf(stderr, "%s: %s: message too long\n", prog, r->name);
		exit(1);
	}
	if (data)
		memcpy(p, data, len);
	else
		memset(p, 0, len);
	return p;
}

/* An attribute header claiming NLA_LEN bytes, followed by PAYLOAD bytes. */
static struct nlattr *attr(struct req *r, int type, size_t nla_len,
			   const void *data, size_t payload)
{
	struct nlattr *a;

	a = raw(r, NULL, NLA_ALIGN(NLA_HDRLEN + payload));
	a->nla_type = type;
	a->nla_len = nla_len;
	if (data)
		memcpy((char *)a + NLA_HDRLEN, data, payload);
	return a;
}

/* A well-formed attribute. */
static void put(struct req *r, int type, const void *data, size_t len)
{
	attr(r, type, NLA_HDRLEN + len, data, len);
}

static void put_u32(struct req *r, int type, uint32_t v)
{
	put(r, type, &v, sizeof(v));
}

static void put_u16(struct req *r, int type, uint16_t v)
{
	put(r, type, &v, sizeof(v));
}

static struct nlattr *nest_start(struct req *r, int type)
{
	return attr(r, type | NLA_F_NESTED, NLA_HDRLEN, NULL, 0);
}

static void nest_end(struct req *r, struct nlattr *nest)
{
	struct nlmsghdr *nlh = nlmsg_hdr(r->msg);

	nest->nla_len = (char *)nlh + nlh->nlmsg_len - (char *)nest;
}

/* The key of a non-IP Ethernet frame from port 1: a valid flow match. */
static void put_key(struct req *r, int type)
{
	struct ovs_key_ethernet eth = {
		.eth_src = { 2, 0, 0, 0, 0, 1 },
		.eth_dst = { 2, 0, 0, 0, 0, 2 },
	};
	uint16_t ethertype = htons(0x88b5);
	struct nlattr *key;

	key = nest_start(r, type);
	put_u32(r, OVS_KEY_ATTR_IN_PORT, 1);
	put(r, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	put(r, OVS_KEY_ATTR_ETHERTYPE, &ethertype, sizeof(ethertype));
	nest_end(r, key);
}

/* Send the request and print the answer's errno. */
static void req_send(struct req *r)
{
	int err, answer = -1;

	err = nl_send_auto(sk, r->msg);
	nlmsg_free(r->msg);
	if (err < 0) {
		printf("%s send-failed\n", r->name);
		failed = true;
		return;
	}
	while (answer < 0) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			printf("%s no-answer\n", r->name);
			failed = true;
			return;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(nlh);

				answer = -e->error;
			}
		}
		free(buf);
	}
	if (!answer) {
		printf("%s OK\n", r->name);
	} else {
		const char *name = strerrorname_np(answer);

		if (name)
			printf("%s %s\n", r->name, name);
		else
			printf("%s errno-%d\n", r->name, answer);
	}
	fflush(stdout);
}

/* ACTIONS holding DEPTH samples nested one in another, an output inside. */
static void put_nested_samples(struct req *r, int depth)
{
	struct nlattr *stack[2 * 64 + 1];
	struct nlattr **top = stack;
	int i;

	*top++ = nest_start(r, OVS_FLOW_ATTR_ACTIONS);
	for (i = 0; i < depth; i++) {
		*top++ = nest_start(r, OVS_ACTION_ATTR_SAMPLE);
		put_u32(r, OVS_SAMPLE_ATTR_PROBABILITY, UINT32_MAX);
		*top++ = nest_start(r, OVS_SAMPLE_ATTR_ACTIONS);
	}
	put_u32(r, OVS_ACTION_ATTR_OUTPUT, 2);
	while (top > stack)
		nest_end(r, *--top);
}

static void dp_requests(void)
{
	struct req r;

	/* The family's fixed header cut short. */
	r.name = "dp-short-header";
	r.msg = nlmsg_alloc();
	if (!r.msg || !genlmsg_put(r.msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				   dp_family, 0, NLM_F_ACK, OVS_DP_CMD_GET,
				   OVS_DATAPATH_VERSION)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	raw(&r, NULL, 2);
	req_send(&r);

	req_start(&r, "dp-new-no-name", dp_family, OVS_DP_CMD_NEW,
		  OVS_DATAPATH_VERSION, 0);
	put_u32(&r, OVS_DP_ATTR_UPCALL_PID, 0);
	req_send(&r);

	/* The name's length runs past the end of the message. */
	req_start(&r, "dp-new-truncated-name", dp_family, OVS_DP_CMD_NEW,
		  OVS_DATAPATH_VERSION, 0);
	put_u32(&r, OVS_DP_ATTR_UPCALL_PID, 0);
	attr(&r, OVS_DP_ATTR_NAME, NLA_HDRLEN + 64, "badmsg", 8);
	req_send(&r);
}

static void vport_requests(void)
{
	struct req r;

	req_start(&r, "vport-new-unknown-type", vport_family,
		  OVS_VPORT_CMD_NEW, OVS_VPORT_VERSION, dp_ifindex);
	put(&r, OVS_VPORT_ATTR_NAME, "badmsg0", 8);
	put_u32(&r, OVS_VPORT_ATTR_TYPE, 99);
	put_u32(&r, OVS_VPORT_ATTR_UPCALL_PID, 0);
	req_send(&r);

	req_start(&r, "vport-new-no-type", vport_family, OVS_VPORT_CMD_NEW,
		  OVS_VPORT_VERSION, dp_ifindex);
	put(&r, OVS_VPORT_ATTR_NAME, "badmsg0", 8);
	put_u32(&r, OVS_VPORT_ATTR_UPCALL_PID, 0);
	req_send(&r);
}

/* A roam_redirect request on PORT (0: none) with TARGET (0: none). */
static void redirect_start(struct req *r, const char *name, int cmd,
			   int ifindex, uint32_t port, uint32_t target)
{
	req_start(r, name, redirect_family, cmd, ROAM_REDIRECT_VERSION,
		  ifindex);
	/* A new family's commands take no flags the core cannot enforce. */
	nlmsg_hdr(r->msg)->nlmsg_flags &= ~NLM_F_CREATE;
	if (port)
		put_u32(r, ROAM_REDIRECT_ATTR_PORT, port);
	if (target)
		put_u32(r, ROAM_REDIRECT_ATTR_TARGET, target);
}

static void redirect_requests(void)
{
	const uint32_t vid32 = 10;
	struct req r;

	r.name = "redirect-short-header";
	r.msg = nlmsg_alloc();
	if (!r.msg || !genlmsg_put(r.msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				   redirect_family, 0, NLM_F_ACK,
				   ROAM_REDIRECT_CMD_SET,
				   ROAM_REDIRECT_VERSION)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	raw(&r, NULL, 2);
	req_send(&r);

	redirect_start(&r, "redirect-set-no-port", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 0, 2);
	req_send(&r);
	redirect_start(&r, "redirect-set-no-target", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 0);
	req_send(&r);
	redirect_start(&r, "redirect-set-unknown-dp", ROAM_REDIRECT_CMD_SET,
		       0x7fffffff, 1, 2);
	req_send(&r);
	redirect_start(&r, "redirect-set-unknown-port", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 9, 2);
	req_send(&r);
	redirect_start(&r, "redirect-set-unknown-target",
		       ROAM_REDIRECT_CMD_SET, dp_ifindex, 1, 9);
	req_send(&r);
	redirect_start(&r, "redirect-set-port-too-big", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 70000, 2);
	req_send(&r);
	redirect_start(&r, "redirect-set-self", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 2, 2);
	req_send(&r);
	redirect_start(&r, "redirect-set-vlan-0", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put_u16(&r, ROAM_REDIRECT_ATTR_VLAN, 0);
	req_send(&r);
	redirect_start(&r, "redirect-set-vlan-4095", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put_u16(&r, ROAM_REDIRECT_ATTR_VLAN, 4095);
	req_send(&r);
	redirect_start(&r, "redirect-set-vlan-u32", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put(&r, ROAM_REDIRECT_ATTR_VLAN, &vid32, sizeof(vid32));
	req_send(&r);
	/* Counters are the kernel's to report, not the caller's to set. */
	redirect_start(&r, "redirect-set-counters", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put(&r, ROAM_REDIRECT_ATTR_PACKETS, "\0\0\0\0\0\0\0\0", 8);
	req_send(&r);
	redirect_start(&r, "redirect-set-unknown-attr", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put_u32(&r, 99, 0);
	req_send(&r);
	redirect_start(&r, "redirect-set-truncated-attr",
		       ROAM_REDIRECT_CMD_SET, dp_ifindex, 1, 0);
	attr(&r, ROAM_REDIRECT_ATTR_TARGET, NLA_HDRLEN + 64, &vid32, 4);
	req_send(&r);
	redirect_start(&r, "redirect-del-not-redirected",
		       ROAM_REDIRECT_CMD_DEL, dp_ifindex, 1, 0);
	req_send(&r);
	redirect_start(&r, "redirect-get-not-redirected",
		       ROAM_REDIRECT_CMD_GET, dp_ifindex, 1, 0);
	req_send(&r);
	redirect_start(&r, "redirect-unknown-cmd", 99, dp_ifindex, 1, 2);
	req_send(&r);

	/* The controls: a well-formed redirect, and its removal. */
	redirect_start(&r, "redirect-set-ok", ROAM_REDIRECT_CMD_SET,
		       dp_ifindex, 1, 2);
	put_u16(&r, ROAM_REDIRECT_ATTR_VLAN, 10);
	req_send(&r);
	redirect_start(&r, "redirect-del-ok", ROAM_REDIRECT_CMD_DEL,
		       dp_ifindex, 1, 0);
	req_send(&r);
}

static void flow_requests(void)
{
	struct ovs_key_ipv4 ip4;
	struct nlattr *nest;
	uint16_t ethertype;
	uint16_t port16 = 1;
	struct req r;

	req_start(&r, "flow-new-no-key", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	nest = nest_start(&r, OVS_FLOW_ATTR_ACTIONS);
	put_u32(&r, OVS_ACTION_ATTR_OUTPUT, 2);
	nest_end(&r, nest);
	req_send(&r);

	req_start(&r, "flow-new-no-datapath", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, 0);
	put_key(&r, OVS_FLOW_ATTR_KEY);
	put_nested_samples(&r, 0);
	req_send(&r);

	/* OVS_KEY_ATTR_IN_PORT is a u32: two bytes are wrong. */
	req_start(&r, "key-in-port-short", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	nest = nest_start(&r, OVS_FLOW_ATTR_KEY);
	put(&r, OVS_KEY_ATTR_IN_PORT, &port16, sizeof(port16));
	nest_end(&r, nest);
	put_nested_samples(&r, 0);
	req_send(&r);

	/* A key type above OVS_KEY_ATTR_MAX. */
	req_start(&r, "key-unknown-type", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	nest = nest_start(&r, OVS_FLOW_ATTR_KEY);
	put_u32(&r, OVS_KEY_ATTR_IN_PORT, 1);
	put_u32(&r, OVS_KEY_ATTR_MAX + 10, 0);
	nest_end(&r, nest);
	put_nested_samples(&r, 0);
	req_send(&r);

	/* A key attribute whose length runs past the end of the key. */
	req_start(&r, "key-truncated-attr", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	nest = nest_start(&r, OVS_FLOW_ATTR_KEY);
	put_u32(&r, OVS_KEY_ATTR_IN_PORT, 1);
	ethertype = htons(0x88b5);
	attr(&r, OVS_KEY_ATTR_ETHERTYPE, NLA_HDRLEN + 16, &ethertype,
	     sizeof(ethertype));
	nest_end(&r, nest);
	put_nested_samples(&r, 0);
	req_send(&r);

	/* The mask matches IPv4 fields the non-IP key does not have. */
	req_start(&r, "mask-wider-than-key", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	nest = nest_start(&r, OVS_FLOW_ATTR_KEY);
	put_u32(&r, OVS_KEY_ATTR_IN_PORT, 1);
	put(&r, OVS_KEY_ATTR_ETHERNET, NULL, sizeof(struct ovs_key_ethernet));
	ethertype = htons(0x88b5);
	put(&r, OVS_KEY_ATTR_ETHERTYPE, &ethertype, sizeof(ethertype));
	nest_end(&r, nest);
	nest = nest_start(&r, OVS_FLOW_ATTR_MASK);
	put_u32(&r, OVS_KEY_ATTR_IN_PORT, UINT32_MAX);
	put(&r, OVS_KEY_ATTR_ETHERNET, NULL, sizeof(struct ovs_key_ethernet));
	ethertype = 0xffff;
	put(&r, OVS_KEY_ATTR_ETHERTYPE, &ethertype, sizeof(ethertype));
	memset(&ip4, 0xff, sizeof(ip4));
	put(&r, OVS_KEY_ATTR_IPV4, &ip4, sizeof(ip4));
	nest_end(&r, nest);
	put_nested_samples(&r, 0);
	req_send(&r);

	req_start(&r, "actions-nested-20-deep", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	put_key(&r, OVS_FLOW_ATTR_KEY);
	put_nested_samples(&r, 20);
	req_send(&r);

	/* An action type above OVS_ACTION_ATTR_MAX. */
	req_start(&r, "action-unknown-type", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	put_key(&r, OVS_FLOW_ATTR_KEY);
	nest = nest_start(&r, OVS_FLOW_ATTR_ACTIONS);
	put_u32(&r, OVS_ACTION_ATTR_MAX + 10, 0);
	nest_end(&r, nest);
	req_send(&r);

	/* The control: the same flow, nested 3 deep, is fine. */
	req_start(&r, "flow-nested-ok", flow_family, OVS_FLOW_CMD_NEW,
		  OVS_FLOW_VERSION, dp_ifindex);
	put_key(&r, OVS_FLOW_ATTR_KEY);
	put_nested_samples(&r, 3);
	req_send(&r);

	req_start(&r, "flow-nested-ok-del", flow_family, OVS_FLOW_CMD_DEL,
		  OVS_FLOW_VERSION, dp_ifindex);
	put_key(&r, OVS_FLOW_ATTR_KEY);
	req_send(&r);
}

int main(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = 10 };
	bool redirect = argc == 3 && !strcmp(argv[1], "--redirect");
	const char *dp = argv[argc - 1];

	if (argc != 2 && !redirect) {
		fprintf(stderr, "usage: %s DP\n       %s --redirect DP\n",
			prog, prog);
		return 1;
	}
	if (redirect && strspn(dp, "0123456789") == strlen(dp))
		dp_ifindex = atoi(dp);
	else
		dp_ifindex = if_nametoindex(dp);
	if (!dp_ifindex) {
		fprintf(stderr, "%s: no datapath device %s\n", prog, dp);
		return 1;
	}
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0) {
		fprintf(stderr, "%s: cannot open a generic netlink socket\n",
			prog);
		return 1;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	if (redirect) {
		redirect_family = genl_ctrl_resolve(sk, ROAM_REDIRECT_FAMILY);
		if (redirect_family < 0) {
			fprintf(stderr, "%s: the %s family is not registered\n",
				prog, ROAM_REDIRECT_FAMILY);
			return 1;
		}
		redirect_requests();
		nl_socket_free(sk);
		return failed;
	}
	dp_family = genl_ctrl_resolve(sk, OVS_DATAPATH_FAMILY);
	vport_family = genl_ctrl_resolve(sk, OVS_VPORT_FAMILY);
	flow_family = genl_ctrl_resolve(sk, OVS_FLOW_FAMILY);
	if (dp_family < 0 || vport_family < 0 || flow_family < 0) {
		fprintf(stderr, "%s: the ovs families are not registered\n",
			prog);
		return 1;
	}

	dp_requests();
	vport_requests();
	flow_requests();
	nl_socket_free(sk);
	return failed;
}
