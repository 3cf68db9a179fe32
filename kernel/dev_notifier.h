/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reacting to devices under our vports going away: the vport is detached
 * and userspace told, with the work deferred out of RTNL (see DOC: Locking).
 */
#ifndef _RSW_DEV_NOTIFIER_H
#define _RSW_DEV_NOTIFIER_H

int rsw_dev_notifier_init(void);
void rsw_dev_notifier_uninit(void);

#endif /* _RSW_DEV_NOTIFIER_H */
