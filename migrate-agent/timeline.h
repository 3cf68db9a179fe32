/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline.h: one JSON record per migration and host: which domain, this
 * host's role in it, what moved, and what happened when.  Every event is
 * stamped with this host's CLOCK_REALTIME (milliseconds) and names where
 * it came from (a libvirt event, or the agent's own step), so that two
 * hosts' records line up on the wall clock they share.
 */
#ifndef ROAM_AGENT_TIMELINE_H
#define ROAM_AGENT_TIMELINE_H

#include <stdbool.h>

struct json_object;

struct timeline {
	struct json_object *record;	/* NULL: no migration under way */
	struct json_object *events;	/* the record's "events" array */
};

/* timeline_begin - start DOMAIN's record as ROLE ("source" or
 * "destination"); a record still open is emitted first, as it stands. */
void timeline_begin(struct timeline *tl, const char *domain, const char *role);

/* timeline_event - add WHAT, stamped now, from SOURCE (a libvirt event's
 * name, or "agent"); ignored when no record is open. */
void timeline_event(struct timeline *tl, const char *what, const char *source);

/* timeline_event_at - the same, stamped at T_MS (CLOCK_REALTIME ms): a
 * time the kernel reported. */
void timeline_event_at(struct timeline *tl, const char *what, const char *source,
		       long long t_ms);

/* timeline_set - set KEY of the open record to a string or a number. */
void timeline_set_string(struct timeline *tl, const char *key, const char *value);
void timeline_set_int(struct timeline *tl, const char *key, long long value);

/* timeline_open - whether a record is open, and in ROLE if ROLE is set. */
bool timeline_open(const struct timeline *tl, const char *role);

/* timeline_end - emit the record (stdout, one line, for the journal; and
 * appended to the file timeline_init named) and close it. */
void timeline_end(struct timeline *tl);

/* timeline_init - FILE (or NULL) gets every record, one JSON a line. */
int timeline_init(const char *file);
void timeline_uninit(void);

#endif
