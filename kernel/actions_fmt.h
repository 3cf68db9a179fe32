/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The internal form of a validated action list, private to the code that
 * builds it (actions_netlink.c) and the code that runs it (actions.c).
 *
 * A list is a run of netlink attributes.  Most actions keep userspace's
 * type and payload unchanged.  The exceptions:
 *
 *  - OVS_ACTION_ATTR_SET becomes RSW_ACT_SET_WHOLE, holding the same single
 *    OVS_KEY_ATTR_* attribute with its payload doubled into value and mask,
 *    the mask all ones over the writable bits.  A plain set and a masked
 *    set then run through one code path; a whole set is given back to
 *    userspace as the plain set it was.
 *  - OVS_ACTION_ATTR_SAMPLE, OVS_ACTION_ATTR_CLONE and
 *    OVS_ACTION_ATTR_DEC_TTL hold an RSW_ACT_ARG attribute (struct
 *    rsw_act_arg) followed directly by the nested list: the sample's
 *    actions, the clone's, or those dec_ttl runs on an expired packet.
 *
 * Nested attributes are limited to U16_MAX bytes like any netlink
 * attribute, so a list whose sets expand past that inside a nested list is
 * refused with -EMSGSIZE.
 */
#ifndef _RSW_ACTIONS_FMT_H
#define _RSW_ACTIONS_FMT_H

#include <linux/bits.h>
#include <linux/types.h>

/* Internal attribute types; above every OVS_ACTION_ATTR_* value. */
enum {
	RSW_ACT_SET_WHOLE = 0x100,
	RSW_ACT_ARG,
};

/* The nested list may change the flow key (set, push, pop, hash...). */
#define RSW_ACT_F_CHANGES_KEY BIT(0)

struct rsw_act_arg {
	u32 probability;	/* sample: U32_MAX = always; others: unused */
	u32 flags;		/* RSW_ACT_F_* */
};

#endif /* _RSW_ACTIONS_FMT_H */
