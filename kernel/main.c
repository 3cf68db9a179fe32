// SPDX-License-Identifier: GPL-2.0
/*
 * roamswitch: an Open vSwitch kernel datapath speaking the openvswitch
 * Generic Netlink ABI of Linux 6.1.
 */

#include <linux/module.h>
#include <linux/openvswitch.h>
#include "actions.h"
#include "datapath.h"
#include "dev_notifier.h"
#include "fault.h"
#include "flow_table.h"
#include "genl.h"
#include "roam_redirect.h"
#include "vport.h"

static int __init rsw_mod_init(void)
{
	int err;

	err = rsw_flow_table_module_init();
	if (err)
		goto err_out;
	err = rsw_actions_init();
	if (err)
		goto err_flow_table;
	err = rsw_vport_init();
	if (err)
		goto err_actions;
	err = rsw_datapath_init();
	if (err)
		goto err_vport;
	err = rsw_dev_notifier_init();
	if (err)
		goto err_datapath;
	err = rsw_genl_init();
	if (err)
		goto err_dev_notifier;

	rsw_fault_init();
	pr_info("roamswitch datapath " RSW_VERSION " loaded\n");
	return 0;

err_dev_notifier:
	rsw_dev_notifier_uninit();
err_datapath:
	rsw_datapath_uninit();
err_vport:
	rsw_vport_uninit();
err_actions:
	rsw_actions_uninit();
err_flow_table:
	rsw_flow_table_module_uninit();
err_out:
	return err;
}

static void __exit rsw_mod_exit(void)
{
	rsw_fault_uninit();
	rsw_genl_uninit();
	rsw_dev_notifier_uninit();
	rsw_datapath_uninit();
	rsw_vport_uninit();
	rsw_actions_uninit();
	rsw_flow_table_module_uninit();
	rcu_barrier();
}

module_init(rsw_mod_init);
module_exit(rsw_mod_exit);
MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("roamswitch Open vSwitch datapath");
MODULE_VERSION(RSW_VERSION);
MODULE_ALIAS_GENL_FAMILY(OVS_DATAPATH_FAMILY);
MODULE_ALIAS_GENL_FAMILY(OVS_VPORT_FAMILY);
MODULE_ALIAS_GENL_FAMILY(OVS_FLOW_FAMILY);
MODULE_ALIAS_GENL_FAMILY(OVS_PACKET_FAMILY);
MODULE_ALIAS_GENL_FAMILY(ROAM_REDIRECT_FAMILY);
