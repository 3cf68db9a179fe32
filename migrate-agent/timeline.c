// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c: see timeline.h.
 */
#include "timeline.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *timeline_file;
static char host[256];

static long long realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int timeline_init(const char *file)
{
	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "unknown");
	if (!file)
		return 0;
	timeline_file = fopen(file, "ae");
	if (!timeline_file) {
		perror(file);
		return -1;
	}
	return 0;
}

void timeline_uninit(void)
{
	if (timeline_file)
		fclose(timeline_file);
	timeline_file = NULL;
}

bool timeline_open(const struct timeline *tl, const char *role)
{
	struct json_object *r;

	if (!tl->record)
		return false;
	if (!role)
		return true;
	r = json_object_object_get(tl->record, "role");
	return r && !strcmp(json_object_get_string(r), role);
}

void timeline_begin(struct timeline *tl, const char *domain, const char *role)
{
	if (tl->record)
		timeline_end(tl);
	tl->record = json_object_new_object();
	tl->events = json_object_new_array();
	json_object_object_add(tl->record, "domain", json_object_new_string(domain));
	json_object_object_add(tl->record, "host", json_object_new_string(host));
	json_object_object_add(tl->record, "role", json_object_new_string(role));
	json_object_object_add(tl->record, "clock",
			       json_object_new_string("CLOCK_REALTIME ms of this host"));
	json_object_object_add(tl->record, "events", tl->events);
}

void timeline_event(struct timeline *tl, const char *what, const char *source)
{
	timeline_event_at(tl, what, source, realtime_ms());
}

void timeline_event_at(struct timeline *tl, const char *what, const char *source,
		       long long t_ms)
{
	struct json_object *ev;

	if (!tl->record)
		return;
	ev = json_object_new_object();
	json_object_object_add(ev, "what", json_object_new_string(what));
	json_object_object_add(ev, "t", json_object_new_int64(t_ms));
	json_object_object_add(ev, "source", json_object_new_string(source));
	json_object_array_add(tl->events, ev);
}

void timeline_set_string(struct timeline *tl, const char *key, const char *value)
{
	if (tl->record)
		json_object_object_add(tl->record, key, json_object_new_string(value));
}

void timeline_set_int(struct timeline *tl, const char *key, long long value)
{
	if (tl->record)
		json_object_object_add(tl->record, key, json_object_new_int64(value));
}

void timeline_end(struct timeline *tl)
{
	const char *line;

	if (!tl->record)
		return;
	line = json_object_to_json_string_ext(tl->record, JSON_C_TO_STRING_PLAIN);
	printf("%s\n", line);
	fflush(stdout);
	if (timeline_file) {
		fprintf(timeline_file, "%s\n", line);
		fflush(timeline_file);
	}
	json_object_put(tl->record);
	tl->record = NULL;
	tl->events = NULL;
}
