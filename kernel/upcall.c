// SPDX-License-Identifier: GPL-2.0
/*
 * Upcalls: a packet the datapath cannot or will not handle alone goes to
 * a userspace handler socket as an ovs_packet MISS or ACTION message.
 *
 * The message carries the frame as it would be on the wire: a VLAN tag
 * kept in skb metadata is written back in place and a pending transmit
 * checksum is completed, both in the message's own copy of the headers,
 * so the packet itself is never modified.
 *
 * Only the packet's linear part is copied when userspace reads the packet
 * attribute unpadded (OVS_DP_F_UNALIGNED, which Open vSwitch has asked for
 * since 2.0): its page fragments are attached to the message by reference,
 * so a jumbo frame arriving in pages costs no large atomic allocation.
 * Userspace that wants the attribute padded to four bytes gets the whole
 * frame copied, padding after it.
 */

#include <linux/if_vlan.h>
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <asm/unaligned.h>
#include <net/checksum.h>
#include <net/genetlink.h>
#include "actions.h"
#include "datapath.h"
#include "flow_netlink.h"
#include "genl.h"
#include "packet_genl.h"
#include "upcall.h"

/* Ethernet addresses: where a VLAN tag goes back in. */
#define TAG_OFFSET (2 * ETH_ALEN)

/* What every message of one upcall shares, GSO segments included. */
struct upcall {
	struct rsw_datapath *dp;
	const struct rsw_upcall_info *info;
	int dp_ifindex;
	unsigned int max_len;	/* frame bytes a trunc action keeps */
	bool unaligned;		/* OVS_DP_F_UNALIGNED: no padding wanted */
};

/* Room for a message with @copied frame bytes in its linear part. */
static size_t upcall_size(const struct rsw_upcall_info *info,
			  unsigned int copied)
{
	size_t size = NLMSG_ALIGN(sizeof(struct ovs_header)) +
		      nla_total_size(rsw_key_nlattrs_size()) +
		      nla_total_size(sizeof(u32)) +	/* LEN */
		      nla_total_size(sizeof(u64)) +	/* HASH */
		      nla_total_size(copied);		/* PACKET */

	if (info->userdata)
		size += nla_total_size(nla_len(info->userdata));
	if (info->actions)
		/* The internal form is never shorter than userspace's. */
		size += nla_total_size(info->actions_len);
	if (info->mru)
		size += nla_total_size(sizeof(u16));
	return size;
}

/* The first @len bytes of @skb's frame as it would be on the wire. */
static void copy_frame(const struct sk_buff *skb, u8 *to, unsigned int len,
		       bool tagged)
{
	__be16 tag[2];

	if (!tagged) {
		skb_copy_bits(skb, 0, to, len);
		return;
	}

	skb_copy_bits(skb, 0, to, min_t(unsigned int, len, TAG_OFFSET));
	if (len <= TAG_OFFSET)
		return;
	tag[0] = skb->vlan_proto;
	tag[1] = htons(skb_vlan_tag_get(skb));
	memcpy(to + TAG_OFFSET, tag,
	       min_t(unsigned int, len - TAG_OFFSET, VLAN_HLEN));
	if (len <= TAG_OFFSET + VLAN_HLEN)
		return;
	skb_copy_bits(skb, TAG_OFFSET, to + TAG_OFFSET + VLAN_HLEN,
		      len - TAG_OFFSET - VLAN_HLEN);
}

/*
 * Where, in frame bytes, the L4 checksum of a CHECKSUM_PARTIAL packet
 * ends; 0 when there is none to complete.
 */
static unsigned int csum_end(const struct sk_buff *skb, bool tagged)
{
	int start = skb_checksum_start_offset(skb);

	if (skb->ip_summed != CHECKSUM_PARTIAL || start < 0 ||
	    start >= skb->len)
		return 0;
	return start + skb->csum_offset + sizeof(__sum16) +
	       (tagged ? VLAN_HLEN : 0);
}

/*
 * Complete a CHECKSUM_PARTIAL packet's L4 checksum in the copy @to of its
 * first @copied frame bytes, as the device would have on transmit.
 */
static void complete_csum(const struct sk_buff *skb, u8 *to,
			  unsigned int copied, bool tagged)
{
	unsigned int end = csum_end(skb, tagged);
	int start = skb_checksum_start_offset(skb);
	__wsum csum;

	if (!end || end > copied)
		return;
	csum = skb_checksum(skb, start, skb->len - start, 0);
	put_unaligned(csum_fold(csum) ?: CSUM_MANGLED_0,
		      (__sum16 *)(to + end - sizeof(__sum16)));
}

/*
 * How many of the @len frame bytes to send are copied; the others are
 * @skb's page fragments, attached.  Everything is copied for userspace
 * that wants padding, for a packet that has a frag_list (no page array to
 * share) or pages of a user's zerocopy send (which the user may reuse),
 * when the tag or the checksum to complete would land in the fragments,
 * and when the fragments hold none of what is sent.
 */
static unsigned int copy_len(struct sk_buff *skb, const struct upcall *up,
			     unsigned int len, bool tagged)
{
	unsigned int linear = skb_headlen(skb);

	if (!up->unaligned || skb_has_frag_list(skb) || skb_zcopy(skb))
		return len;
	if (tagged) {
		if (linear < TAG_OFFSET)
			return len;
		linear += VLAN_HLEN;
	}
	if (len <= linear || csum_end(skb, tagged) > linear)
		return len;
	return linear;
}

/*
 * Attach the first @len bytes of @skb's page fragments to @msg, taking a
 * reference on each page rather than copying it.
 */
static void attach_frags(struct sk_buff *msg, const struct sk_buff *skb,
			 unsigned int len)
{
	const struct skb_shared_info *from = skb_shinfo(skb);
	struct skb_shared_info *to = skb_shinfo(msg);
	unsigned int left = len;
	int i;

	for (i = 0; i < from->nr_frags && left; i++) {
		skb_frag_t *frag = &to->frags[to->nr_frags];

		*frag = from->frags[i];
		skb_frag_size_set(frag, min(skb_frag_size(frag), left));
		left -= skb_frag_size(frag);
		__skb_frag_ref(frag);
		to->nr_frags++;
	}
	msg->len += len;
	msg->data_len += len;
	msg->truesize += len;
}

/* The packet attribute, last in the message, and the frame in it. */
static int put_packet(struct sk_buff *msg, const struct upcall *up,
		      struct sk_buff *skb, unsigned int len,
		      unsigned int copied, bool tagged)
{
	struct nlattr *nla;
	u8 *to;

	if (copied == len) {
		/* nla_reserve() pads after the frame, as aligned users need. */
		nla = nla_reserve(msg, OVS_PACKET_ATTR_PACKET, len);
		if (!nla)
			return -EMSGSIZE;
		to = nla_data(nla);
	} else {
		nla = nla_reserve(msg, OVS_PACKET_ATTR_PACKET, 0);
		if (!nla || skb_tailroom(msg) < copied)
			return -EMSGSIZE;
		nla->nla_len = nla_attr_size(len);
		to = skb_put(msg, copied);
	}
	copy_frame(skb, to, copied, tagged);
	complete_csum(skb, to, copied, tagged);
	if (copied < len)
		attach_frags(msg, skb, len - copied);
	return 0;
}

/* Everything before the packet, in the order userspace has always seen. */
static int put_meta(struct sk_buff *msg, const struct rsw_upcall_info *info,
		    const struct rsw_flow_key *key, const struct sk_buff *skb,
		    unsigned int len, unsigned int frame_len)
{
	u64 hash = rsw_packet_hash_to_attr(skb);
	unsigned char *mark;

	if (rsw_key_to_nlattrs(msg, OVS_PACKET_ATTR_KEY, key, key))
		return -EMSGSIZE;

	/* The userspace action's cookie, passed back as it came. */
	if (info->userdata &&
	    nla_put(msg, OVS_PACKET_ATTR_USERDATA, nla_len(info->userdata),
		    nla_data(info->userdata)))
		return -EMSGSIZE;

	if (info->actions) {
		mark = skb_tail_pointer(msg);
		/* Only informative: a list that does not fit is left out. */
		if (rsw_actions_list_to_nlattr(msg, OVS_PACKET_ATTR_ACTIONS,
					       info->actions,
					       info->actions_len))
			nlmsg_trim(msg, mark);
	}

	if (info->mru && nla_put_u16(msg, OVS_PACKET_ATTR_MRU, info->mru))
		return -EMSGSIZE;
	if (len < frame_len &&
	    nla_put_u32(msg, OVS_PACKET_ATTR_LEN, frame_len))
		return -EMSGSIZE;
	/* An unpadded u64, as the ABI has it: the family has no pad type. */
	return nla_put(msg, OVS_PACKET_ATTR_HASH, sizeof(hash), &hash);
}

/* One message for one packet that is not GSO. */
static int send_one(const struct upcall *up, struct sk_buff *skb,
		    const struct rsw_flow_key *key)
{
	bool tagged = skb_vlan_tag_present(skb) && skb->len >= TAG_OFFSET;
	unsigned int frame_len = skb->len + (tagged ? VLAN_HLEN : 0);
	unsigned int len = min(frame_len, up->max_len);
	unsigned int copied;
	struct ovs_header *hdr;
	struct sk_buff *msg;
	int err;

	/* The attribute's length must fit its 16 bits. */
	if (nla_attr_size(len) > USHRT_MAX)
		return -EFBIG;

	copied = copy_len(skb, up, len, tagged);
	msg = genlmsg_new(upcall_size(up->info, copied), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	hdr = rsw_genl_put(msg, &rsw_packet_family, 0, 0, 0, up->info->cmd,
			   up->dp_ifindex);
	err = -EMSGSIZE;
	if (!hdr)
		goto err_free_msg;
	err = put_meta(msg, up->info, key, skb, len, frame_len);
	if (err)
		goto err_free_msg;
	err = put_packet(msg, up, skb, len, copied, tagged);
	if (err)
		goto err_free_msg;

	/* The frame may be partly in fragments, past the tail pointer
	 * genlmsg_end() would measure to.
	 */
	nlmsg_hdr(msg)->nlmsg_len = msg->len;
	return genlmsg_unicast(rsw_dp_net(up->dp), msg, up->info->portid);

err_free_msg:
	kfree_skb(msg);
	return err;
}

/*
 * Userspace handles packets, not GSO super-packets, so each segment goes
 * up on its own.  Segmenting a UDP datagram to be fragmented (UFO) leaves
 * its L4 header in the first segment only: the others carry the key of a
 * later fragment.
 */
static int send_segments(const struct upcall *up, struct sk_buff *skb,
			 const struct rsw_flow_key *key)
{
	bool ufo = skb_shinfo(skb)->gso_type & SKB_GSO_UDP;
	struct sk_buff *segs, *seg, *next;
	struct rsw_flow_key later = *key;
	int err = 0;

	/* Segmentation overwrites skb->cb past SKB_GSO_CB_OFFSET. */
	BUILD_BUG_ON(sizeof(struct rsw_skb_cb) > SKB_GSO_CB_OFFSET);

	segs = __skb_gso_segment(skb, NETIF_F_SG, false);
	if (IS_ERR_OR_NULL(segs))
		return segs ? PTR_ERR(segs) : -EINVAL;
	later.ip_frag = OVS_FRAG_TYPE_LATER;

	/* Once one segment fails the rest are only freed. */
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!err)
			err = send_one(up, seg, ufo && seg != segs ? &later :
						key);
		if (err)
			kfree_skb(seg);
		else
			consume_skb(seg);
	}
	return err;
}

int rsw_upcall(struct rsw_datapath *dp, struct sk_buff *skb,
	       const struct rsw_flow_key *key,
	       const struct rsw_upcall_info *info, u32 cutlen)
{
	const struct upcall up = {
		.dp = dp,
		.info = info,
		.dp_ifindex = rsw_dp_ifindex(dp),
		/* What a trunc keeps is counted in frame bytes, a tag
		 * written back included, as its max_len is.
		 */
		.max_len = !cutlen ? UINT_MAX :
			   skb->len > cutlen ? skb->len - cutlen : 0,
		.unaligned = READ_ONCE(dp->user_features) & OVS_DP_F_UNALIGNED,
	};
	int err;

	if (RSW_CB(skb)->hash_due)
		skb_get_hash(skb);
	if (!info->portid)
		/* PID 0 is the kernel's: nobody listens for these packets. */
		err = -ENOTCONN;
	else if (!up.dp_ifindex)
		err = -ENODEV;
	else if (skb_is_gso(skb))
		err = send_segments(&up, skb, key);
	else
		err = send_one(&up, skb, key);

	if (err)
		rsw_dp_count_lost(dp);
	return err;
}
