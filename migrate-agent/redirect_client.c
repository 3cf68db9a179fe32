// SPDX-License-Identifier: GPL-2.0
/*
 * A client of the roam_redirect family over libnl-genl-3 (redirect_client.h).
 *
 * Requests go out on one socket, which asks for extended acks, so that a
 * refusal comes back with the kernel's reason; announcements are read on
 * a second socket once redirect_watch() joined the group, so that they
 * never mix with answers.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <linux/openvswitch.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "redirect_client.h"
#include "roam_redirect.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct redirect_client {
	struct nl_sock *sk;		/* requests and their answers */
	struct nl_sock *watch;		/* announcements, once watching */
	int family;			/* roam_redirect's id */
	int vport_family;		/* ovs_vport's id, once needed */
	char error[256];
};

static int fail(struct redirect_client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct redirect_client *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return err;
}

const char *redirect_error(const struct redirect_client *c)
{
	return c->error;
}

static struct nl_sock *socket_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1;

	if (!sk)
		return NULL;
	if (genl_connect(sk) < 0) {
		nl_socket_free(sk);
		return NULL;
	}
	/* Refusals carry the kernel's reason; answers are not echoed whole. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));
	return sk;
}

int redirect_open(struct redirect_client **client)
{
	struct redirect_client *c = calloc(1, sizeof(*c));

	*client = c;
	if (!c)
		return -ENOMEM;
	c->sk = socket_open();
	if (!c->sk)
		return fail(c, -ENOTSUP, "cannot open a Generic Netlink socket");
	c->family = genl_ctrl_resolve(c->sk, ROAM_REDIRECT_FAMILY);
	if (c->family < 0)
		return fail(c, -ENOENT,
			    "the %s family is not registered: is roamswitch's openvswitch.ko loaded?",
			    ROAM_REDIRECT_FAMILY);
	return 0;
}

void redirect_close(struct redirect_client *c)
{
	if (!c)
		return;
	nl_socket_free(c->sk);
	nl_socket_free(c->watch);
	free(c);
}

static struct nl_msg *request(int family, uint8_t version, int flags,
			      uint8_t cmd, int dp_ifindex)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct ovs_header *oh;

	if (!msg)
		return NULL;
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family,
			 sizeof(*oh), flags | NLM_F_REQUEST, cmd, version);
	if (!oh) {
		nlmsg_free(msg);
		return NULL;
	}
	oh->dp_ifindex = dp_ifindex;
	return msg;
}

static int parse(struct nlmsghdr *nlh, struct redirect_info *out)
{
	static struct nla_policy policy[ROAM_REDIRECT_ATTR_MAX + 1] = {
		[ROAM_REDIRECT_ATTR_PORT] = { .type = NLA_U32 },
		[ROAM_REDIRECT_ATTR_TARGET] = { .type = NLA_U32 },
		[ROAM_REDIRECT_ATTR_VLAN] = { .type = NLA_U16 },
		[ROAM_REDIRECT_ATTR_PACKETS] = { .type = NLA_U64 },
		[ROAM_REDIRECT_ATTR_BYTES] = { .type = NLA_U64 },
		[ROAM_REDIRECT_ATTR_DROPPED] = { .type = NLA_U64 },
		[ROAM_REDIRECT_ATTR_FIRST_NS] = { .type = NLA_U64 },
	};
	struct nlattr *a[ROAM_REDIRECT_ATTR_MAX + 1];
	const struct ovs_header *oh;

	if (genlmsg_parse(nlh, sizeof(*oh), a, ROAM_REDIRECT_ATTR_MAX,
			  policy) < 0 ||
	    !a[ROAM_REDIRECT_ATTR_PORT] || !a[ROAM_REDIRECT_ATTR_TARGET])
		return -EBADMSG;
	oh = genlmsg_user_hdr(nlmsg_data(nlh));
	memset(out, 0, sizeof(*out));
	out->cmd = ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
	out->dp_ifindex = oh->dp_ifindex;
	out->port = nla_get_u32(a[ROAM_REDIRECT_ATTR_PORT]);
	out->target = nla_get_u32(a[ROAM_REDIRECT_ATTR_TARGET]);
	if (a[ROAM_REDIRECT_ATTR_VLAN])
		out->vlan = nla_get_u16(a[ROAM_REDIRECT_ATTR_VLAN]);
	if (a[ROAM_REDIRECT_ATTR_PACKETS])
		out->packets = nla_get_u64(a[ROAM_REDIRECT_ATTR_PACKETS]);
	if (a[ROAM_REDIRECT_ATTR_BYTES])
		out->bytes = nla_get_u64(a[ROAM_REDIRECT_ATTR_BYTES]);
	if (a[ROAM_REDIRECT_ATTR_DROPPED])
		out->dropped = nla_get_u64(a[ROAM_REDIRECT_ATTR_DROPPED]);
	if (a[ROAM_REDIRECT_ATTR_FIRST_NS])
		out->first_ns = nla_get_u64(a[ROAM_REDIRECT_ATTR_FIRST_NS]);
	return 0;
}

/*
 * The error an ack (NLMSG_ERROR) or a dump's end (NLMSG_DONE) carries,
 * with the reason the kernel gave (NLMSGERR_ATTR_MSG) in *@why, or "".
 */
static int ack_error(struct nlmsghdr *nlh, const char **why)
{
	const struct nlmsgerr *e = nlmsg_data(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	*why = "";
	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* A dump's end: an int, then the TLVs. */
		off = sizeof(int);
		if (nlmsg_datalen(nlh) < (int)off)
			return 0;
	} else if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    (int)off < nlmsg_datalen(nlh) &&
	    nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off),
		      nlmsg_datalen(nlh) - (int)off, NULL) >= 0 &&
	    tb[NLMSGERR_ATTR_MSG])
		*why = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	return e->error;
}

/*
 * Send @msg (freed) and read its answers up to the final ack or error;
 * each message of @cmd's family goes to @fn.  0 or the negative errno.
 */
static int transact(struct redirect_client *c, struct nl_msg *msg,
		    int (*fn)(struct nlmsghdr *nlh, void *arg), void *arg,
		    const char *what)
{
	uint32_t seq;
	int err;

	if (!msg)
		return fail(c, -ENOMEM, "%s: out of memory", what);
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	err = nl_send_auto(c->sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (err < 0)
		return fail(c, -EIO, "%s: cannot send: %s", what,
			    nl_geterror(err));
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len;

		len = nl_recv(c->sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			return fail(c, -EIO, "%s: no answer from the kernel",
				    what);
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				const char *why;

				err = ack_error(nlh, &why);
				if (err)
					fail(c, err, "%s: %s%s%s", what,
					     strerror(-err), *why ? ": " : "",
					     why);
				free(buf);
				return err;
			}
			err = fn ? fn(nlh, arg) : 0;
			if (err) {
				free(buf);
				return fail(c, err, "%s: a malformed answer",
					    what);
			}
		}
		free(buf);
	}
}

static int one_reply(struct nlmsghdr *nlh, void *arg)
{
	return parse(nlh, arg);
}

int redirect_set(struct redirect_client *c, int dp_ifindex, uint32_t port,
		 uint32_t target, uint16_t vlan, struct redirect_info *out)
{
	struct nl_msg *msg;

	msg = request(c->family, ROAM_REDIRECT_VERSION, NLM_F_ECHO,
		      ROAM_REDIRECT_CMD_SET, dp_ifindex);
	if (msg && (nla_put_u32(msg, ROAM_REDIRECT_ATTR_PORT, port) ||
		    nla_put_u32(msg, ROAM_REDIRECT_ATTR_TARGET, target) ||
		    (vlan && nla_put_u16(msg, ROAM_REDIRECT_ATTR_VLAN, vlan)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return transact(c, msg, one_reply, out, "set");
}

/* A request about one PORT, answered with its redirect in @out. */
static int port_request(struct redirect_client *c, int flags, uint8_t cmd,
			int dp_ifindex, uint32_t port,
			struct redirect_info *out, const char *what)
{
	struct nl_msg *msg;

	msg = request(c->family, ROAM_REDIRECT_VERSION, flags, cmd,
		      dp_ifindex);
	if (msg && nla_put_u32(msg, ROAM_REDIRECT_ATTR_PORT, port)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return transact(c, msg, one_reply, out, what);
}

int redirect_del(struct redirect_client *c, int dp_ifindex, uint32_t port,
		 struct redirect_info *out)
{
	return port_request(c, NLM_F_ECHO, ROAM_REDIRECT_CMD_DEL, dp_ifindex,
			    port, out, "del");
}

int redirect_get(struct redirect_client *c, int dp_ifindex, uint32_t port,
		 struct redirect_info *out)
{
	return port_request(c, 0, ROAM_REDIRECT_CMD_GET, dp_ifindex, port, out,
			    "get");
}

struct dump_arg {
	void (*fn)(const struct redirect_info *info, void *arg);
	void *arg;
};

static int dump_one(struct nlmsghdr *nlh, void *arg)
{
	struct dump_arg *d = arg;
	struct redirect_info info;
	int err = parse(nlh, &info);

	if (!err)
		d->fn(&info, d->arg);
	return err;
}

int redirect_dump(struct redirect_client *c, int dp_ifindex,
		  void (*fn)(const struct redirect_info *info, void *arg),
		  void *arg)
{
	struct dump_arg d = { .fn = fn, .arg = arg };
	struct nl_msg *msg;

	msg = request(c->family, ROAM_REDIRECT_VERSION, NLM_F_DUMP,
		      ROAM_REDIRECT_CMD_GET, dp_ifindex);
	return transact(c, msg, dump_one, &d, "dump");
}

static int vport_reply(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *a[OVS_VPORT_ATTR_MAX + 1];

	if (genlmsg_parse(nlh, sizeof(struct ovs_header), a,
			  OVS_VPORT_ATTR_MAX, NULL) < 0 ||
	    !a[OVS_VPORT_ATTR_PORT_NO])
		return -EBADMSG;
	*(uint32_t *)arg = nla_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);
	return 0;
}

int redirect_port_no(struct redirect_client *c, int dp_ifindex,
		     const char *name, uint32_t *port_no)
{
	struct nl_msg *msg;
	int err;

	if (!c->vport_family) {
		c->vport_family = genl_ctrl_resolve(c->sk, OVS_VPORT_FAMILY);
		if (c->vport_family < 0) {
			c->vport_family = 0;
			return fail(c, -ENOENT, "the %s family is not registered",
				    OVS_VPORT_FAMILY);
		}
	}
	msg = request(c->vport_family, OVS_VPORT_VERSION, 0, OVS_VPORT_CMD_GET,
		      dp_ifindex);
	if (msg && nla_put_string(msg, OVS_VPORT_ATTR_NAME, name)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	*port_no = UINT32_MAX;
	err = transact(c, msg, vport_reply, port_no, name);
	if (!err && *port_no == UINT32_MAX)
		return fail(c, -EBADMSG, "%s: no port number in the answer",
			    name);
	return err;
}

int redirect_watch(struct redirect_client *c)
{
	int group, err;

	group = genl_ctrl_resolve_grp(c->sk, ROAM_REDIRECT_FAMILY,
				      ROAM_REDIRECT_MCGROUP);
	if (group < 0)
		return fail(c, -ENOENT, "no %s multicast group",
			    ROAM_REDIRECT_MCGROUP);
	c->watch = socket_open();
	if (!c->watch)
		return fail(c, -ENOTSUP, "cannot open a Generic Netlink socket");
	nl_socket_disable_seq_check(c->watch);
	err = nl_socket_add_membership(c->watch, group);
	if (err < 0)
		return fail(c, -EPERM, "cannot join %s: %s",
			    ROAM_REDIRECT_MCGROUP, nl_geterror(err));
	return 0;
}

int redirect_next(struct redirect_client *c, int timeout_ms,
		  struct redirect_info *out)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(c->watch),
			      .events = POLLIN };

	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, n, err;

		n = poll(&pfd, 1, timeout_ms);
		if (n < 0)
			return fail(c, -errno, "poll: %s", strerror(errno));
		if (!n)
			return fail(c, -ETIMEDOUT, "no announcement");
		len = nl_recv(c->watch, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			return fail(c, -EIO, "reading announcements failed");
		}
		/* One announcement per datagram. */
		nlh = (struct nlmsghdr *)buf;
		err = nlmsg_ok(nlh, len) && nlh->nlmsg_type == c->family ?
		      parse(nlh, out) : -EAGAIN;
		free(buf);
		if (err != -EAGAIN)
			return err ? fail(c, err, "a malformed announcement") : 0;
	}
}

void redirect_format(const struct redirect_info *info, char *buf, size_t len)
{
	static const char *const names[] = {
		[ROAM_REDIRECT_CMD_SET] = "set",
		[ROAM_REDIRECT_CMD_DEL] = "del",
		[ROAM_REDIRECT_CMD_GET] = "get",
	};
	const char *cmd = info->cmd <= ROAM_REDIRECT_CMD_MAX &&
			  names[info->cmd] ? names[info->cmd] : "?";
	int n;

	n = snprintf(buf, len, "%s port=%" PRIu32 " target=%" PRIu32, cmd,
		     info->port, info->target);
	if (n > 0 && (size_t)n < len && info->vlan)
		n += snprintf(buf + n, len - n, " vlan=%u", info->vlan);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n,
			      " packets=%" PRIu64 " bytes=%" PRIu64
			      " dropped=%" PRIu64, info->packets,
			      info->bytes, info->dropped);
	if (n > 0 && (size_t)n < len && info->first_ns)
		snprintf(buf + n, len - n, " first_ns=%" PRIu64,
			 info->first_ns);
}
