/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The roam_redirect Generic Netlink family (roam_redirect.h): what other
 * files need of it.
 */
#ifndef _RSW_REDIRECT_GENL_H
#define _RSW_REDIRECT_GENL_H

#include <net/genetlink.h>

struct rsw_vport;

/* Registered by rsw_genl_init() with the openvswitch families. */
extern struct genl_family rsw_redirect_family;

/*
 * @vport is leaving its datapath (under rsw_mutex, while it is still
 * published): remove its redirect and every redirect that targets it,
 * announcing each removal on the family's group.
 */
void rsw_redirect_port_gone(struct rsw_vport *vport);

#endif /* _RSW_REDIRECT_GENL_H */
