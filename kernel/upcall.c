// SPDX-License-Identifier: GPL-2.0
/*
 * Upcalls: a packet the datapath cannot or will not handle alone goes to
 * a userspace handler socket as an ovs_packet MISS or ACTION message.
 *
 * The frame is copied straight into the message, with any VLAN tag kept in
 * skb metadata written back in place and a pending transmit checksum
 * completed in the copy, so the packet itself is never modified.
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
#include "upcall.h"

/* OVS_PACKET_ATTR_HASH: the skb hash, and how it was made above it. */
#define HASH_SW_BIT BIT_ULL(32)
#define HASH_L4_BIT BIT_ULL(33)

/* Ethernet addresses: where a VLAN tag goes back in. */
#define TAG_OFFSET (2 * ETH_ALEN)

static size_t upcall_size(const struct rsw_upcall_info *info,
			  unsigned int frame_len)
{
	size_t size = NLMSG_ALIGN(sizeof(struct ovs_header)) +
		      nla_total_size(rsw_key_nlattrs_size()) +
		      nla_total_size(sizeof(u32)) +	/* LEN */
		      nla_total_size(sizeof(u64)) +	/* HASH */
		      nla_total_size(frame_len);	/* PACKET */

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
 * Complete a CHECKSUM_PARTIAL packet's L4 checksum in the copy @to of its
 * first @len frame bytes, as the device would have on transmit.
 */
static void complete_csum(const struct sk_buff *skb, u8 *to,
			  unsigned int len, bool tagged)
{
	int start = skb_checksum_start_offset(skb);
	unsigned int pos;
	__wsum csum;

	if (start < 0 || start >= skb->len)
		return;
	pos = start + skb->csum_offset + (tagged ? VLAN_HLEN : 0);
	if (pos + sizeof(__sum16) > len)
		return;
	csum = skb_checksum(skb, start, skb->len - start, 0);
	put_unaligned(csum_fold(csum) ?: CSUM_MANGLED_0, (__sum16 *)(to + pos));
}

/* One message for one (non-GSO) packet, at most @max_len frame bytes. */
static int queue_one(struct rsw_datapath *dp, struct sk_buff *skb,
		     const struct rsw_flow_key *key,
		     const struct rsw_upcall_info *info, unsigned int max_len,
		     int dp_ifindex)
{
	bool tagged = skb_vlan_tag_present(skb) && skb->len >= TAG_OFFSET;
	unsigned int frame_len = skb->len + (tagged ? VLAN_HLEN : 0);
	unsigned int len = min(frame_len, max_len);
	struct ovs_header *hdr;
	struct sk_buff *msg;
	struct nlattr *nla;
	u64 hash;
	int err;

	if (nla_attr_size(len) > USHRT_MAX)
		return -EFBIG;

	msg = genlmsg_new(upcall_size(info, len), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	hdr = rsw_genl_put(msg, &rsw_packet_family, 0, 0, 0, info->cmd,
			   dp_ifindex);
	if (!hdr)
		goto err_nospace;

	err = rsw_key_to_nlattrs(msg, OVS_PACKET_ATTR_KEY, key, key);
	if (err)
		goto err_free;

	/* The userspace action's cookie, passed back as it came. */
	if (info->userdata &&
	    nla_put(msg, OVS_PACKET_ATTR_USERDATA, nla_len(info->userdata),
		    nla_data(info->userdata)))
		goto err_nospace;

	if (info->actions) {
		unsigned char *mark = skb_tail_pointer(msg);

		/* Only informative: a list that does not fit is left out. */
		if (rsw_actions_list_to_nlattr(msg, OVS_PACKET_ATTR_ACTIONS,
					       info->actions,
					       info->actions_len))
			nlmsg_trim(msg, mark);
	}

	if (info->mru && nla_put_u16(msg, OVS_PACKET_ATTR_MRU, info->mru))
		goto err_nospace;

	if (len < frame_len &&
	    nla_put_u32(msg, OVS_PACKET_ATTR_LEN, frame_len))
		goto err_nospace;

	hash = skb_get_hash_raw(skb);
	if (skb->sw_hash)
		hash |= HASH_SW_BIT;
	if (skb->l4_hash)
		hash |= HASH_L4_BIT;
	if (nla_put(msg, OVS_PACKET_ATTR_HASH, sizeof(hash), &hash))
		goto err_nospace;

	nla = nla_reserve(msg, OVS_PACKET_ATTR_PACKET, len);
	if (!nla)
		goto err_nospace;
	copy_frame(skb, nla_data(nla), len, tagged);
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		complete_csum(skb, nla_data(nla), len, tagged);

	genlmsg_end(msg, hdr);
	return genlmsg_unicast(rsw_dp_net(dp), msg, info->portid);

err_nospace:
	err = -EMSGSIZE;
err_free:
	kfree_skb(msg);
	return err;
}

/*
 * Userspace handles packets, not GSO super-packets: send each segment.
 * Only the first of a UDP-fragmented datagram's segments has its L4
 * header, so the others go up keyed as later fragments.
 */
static int queue_gso(struct rsw_datapath *dp, struct sk_buff *skb,
		     const struct rsw_flow_key *key,
		     const struct rsw_upcall_info *info, unsigned int max_len,
		     int dp_ifindex)
{
	bool ufo = skb_shinfo(skb)->gso_type & SKB_GSO_UDP;
	struct sk_buff *segs, *seg, *next;
	struct rsw_flow_key later_key;
	int err = 0;

	/* Segmentation reuses skb->cb past this point. */
	BUILD_BUG_ON(sizeof(struct rsw_skb_cb) > SKB_GSO_CB_OFFSET);

	segs = __skb_gso_segment(skb, NETIF_F_SG, false);
	if (IS_ERR(segs))
		return PTR_ERR(segs);
	if (!segs)
		return -EINVAL;

	if (ufo) {
		later_key = *key;
		later_key.ip_frag = OVS_FRAG_TYPE_LATER;
	}

	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!err)
			err = queue_one(dp, seg,
					ufo && seg != segs ? &later_key : key,
					info, max_len, dp_ifindex);
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
	unsigned int max_len = UINT_MAX;
	int dp_ifindex, err;

	/* PID 0 is the kernel: nobody listens for this port's packets. */
	if (!info->portid) {
		err = -ENOTCONN;
		goto err_lost;
	}
	dp_ifindex = rsw_dp_ifindex(dp);
	if (!dp_ifindex) {
		err = -ENODEV;
		goto err_lost;
	}

	/* What a trunc action keeps, counted in frame bytes (a VLAN tag
	 * written back included), as its max_len is.
	 */
	if (cutlen)
		max_len = skb->len > cutlen ? skb->len - cutlen : 0;

	if (skb_is_gso(skb))
		err = queue_gso(dp, skb, key, info, max_len, dp_ifindex);
	else
		err = queue_one(dp, skb, key, info, max_len, dp_ifindex);
	if (err)
		goto err_lost;
	return 0;

err_lost:
	rsw_dp_count_lost(dp);
	return err;
}
