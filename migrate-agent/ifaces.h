/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ifaces.h: a domain's Open vSwitch interfaces, and what Open vSwitch
 * says of their ports, for the switchover's two sides (switchover.c on
 * the destination, detour.c on the source).
 */
#ifndef ROAM_AGENT_IFACES_H
#define ROAM_AGENT_IFACES_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

/*
 * ifaces_each - FN(DEV, MAC, ARG) for each of DOM's interfaces with an
 * Open vSwitch virtualport and a tap, in the XML's order.  Returns how
 * many, or -1 if DOM's XML could not be read.
 */
int ifaces_each(virDomainPtr dom,
		void (*fn)(const char *dev, const char *mac, void *arg),
		void *arg);

/* What a switchover needs of a port, asked in one ovs-vsctl run. */
struct ovs_port_info {
	char bridge[64];
	int ofport;		/* its OpenFlow port */
	/* the 802.1Q VID that frames leaving it untagged belong to: its
	 * tag (an access port's, or a trunk's native VLAN), 0 for none;
	 * TRUNK: it also carries tagged frames (vlan_mode trunk or
	 * native-*, or no tag at all) */
	int vlan;
	bool trunk;
	int uplink_ofport;	/* the uplink's OpenFlow port; 0: no uplink */
};

/*
 * ovs_port_info - PI for port DEV, and for the port UPLINK (NULL: none)
 * on its bridge.  Returns 0, or -1 if Open vSwitch could not be asked or
 * DEV has no OpenFlow port yet.
 */
int ovs_port_info(const char *dev, const char *uplink, struct ovs_port_info *pi);

#endif
