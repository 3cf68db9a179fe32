// SPDX-License-Identifier: GPL-2.0
/*
 * guests.c: see guests.h.
 */
#include "guests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* The <metadata> namespace roam-port reads (vif-scripts/roam-port). */
#define RECORDS_URI "urn:roamswitch:port-records:1"
#define RECORDS_KEY "roam"
#define HELPER_TIMEOUT_MS 30000

static struct guest *guests;
static const char *state_dir, *roam_port;

int guests_init(const char *dir, const char *program)
{
	state_dir = dir;
	roam_port = program;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "roam-migrate-agent: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void guest_free(struct guest *g)
{
	if (g->sw.timer >= 0)
		virEventRemoveTimeout(g->sw.timer);
	if (g->dt.timer >= 0)
		virEventRemoveTimeout(g->dt.timer);
	detour_release(&g->dt);
	switchover_release_floods(&g->sw);
	switchover_unlisten(&g->sw);
	switchover_undeliver(&g->sw);
	timeline_end(&g->tl);
	free(g->name);
	free(g->records);
	free(g);
}

void guests_uninit(void)
{
	while (guests) {
		struct guest *g = guests;

		guests = g->next;
		guest_free(g);
	}
}

struct guest *guest_find(const char *uuid)
{
	struct guest *g;

	for (g = guests; g; g = g->next)
		if (!strcmp(g->uuid, uuid))
			return g;
	return NULL;
}

bool guests_switching(void)
{
	struct guest *g;

	for (g = guests; g; g = g->next)
		if (g->sw.timer >= 0)
			return true;
	return false;
}

struct guest *guest_get(virDomainPtr dom)
{
	char uuid[VIR_UUID_STRING_BUFLEN];
	struct guest *g;

	if (virDomainGetUUIDString(dom, uuid))
		return NULL;
	g = guest_find(uuid);
	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	memcpy(g->uuid, uuid, sizeof(uuid));
	g->name = strdup(virDomainGetName(dom));
	if (!g->name) {
		free(g);
		return NULL;
	}
	g->sw.timer = -1;
	g->dt.timer = -1;
	g->next = guests;
	guests = g;
	return g;
}

static void state_path(char *buf, size_t len, const char *uuid)
{
	snprintf(buf, len, "%s/%s.xml", state_dir, uuid);
}

/* Write the state file whole or not at all: a new file, then rename. */
static int state_write(const struct guest *g)
{
	char path[4096], tmp[4200];
	FILE *f;

	state_path(path, sizeof(path), g->uuid);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		goto err;
	if (fputs(g->records, f) < 0) {
		fclose(f);
		goto err;
	}
	if (fclose(f) || rename(tmp, path))
		goto err;
	return 0;
err:
	fprintf(stderr, "roam-migrate-agent: %s: %s\n", path, strerror(errno));
	unlink(tmp);
	return -1;
}

/* Drop the rules RECORDS hold from this host's bridges. */
static int drop_rules(const char *name, const char *records)
{
	const char *argv[] = { roam_port, "drop-flows", NULL };
	char *out;
	int rc;

	rc = run_cmd(argv, records, &out, HELPER_TIMEOUT_MS);
	if (rc)
		fprintf(stderr, "roam-migrate-agent: %s: dropping its rules failed\n", name);
	free(out);
	return rc ? -1 : 0;
}

void guest_forget(struct guest *g)
{
	struct guest **pp;
	char path[4096];

	/* a failed drop keeps the state file: the next sweep tries again */
	if (!g->records || !drop_rules(g->name, g->records)) {
		state_path(path, sizeof(path), g->uuid);
		if (unlink(path) && errno != ENOENT)
			fprintf(stderr, "roam-migrate-agent: %s: %s\n", path,
				strerror(errno));
	}
	for (pp = &guests; *pp; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	}
	guest_free(g);
}

/* Keep RECORDS (taken over) as G's. */
static int guest_keep(struct guest *g, char *records)
{
	free(g->records);
	g->records = records;
	return state_write(g);
}

int guest_refresh(virDomainPtr dom)
{
	const char *argv[] = { roam_port, "records", NULL, NULL };
	struct guest *g = guest_get(dom);
	virDomainJobInfo job;
	char *out, *end;
	int rc;

	if (!g)
		return -1;
	argv[2] = g->name;
	rc = run_cmd(argv, NULL, &out, HELPER_TIMEOUT_MS);
	if (rc) {
		free(out);
		return -1;
	}
	end = out + strlen(out);
	while (end > out && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	if (g->records && !strcmp(g->records, out)) {
		free(out);
		return 0;
	}
	/* A migration that began while roam-port ran (a second and more
	 * on an emulated host) holds the domain's job, and the write would
	 * wait for it to end with the event loop: the pause then goes
	 * unseen until the guest has left (2026-12-07, a migration begun
	 * 20 s after the last one).  Asked again just before the write,
	 * that window is one libvirt call wide.  Either way the migration
	 * carries the last records written. */
	if (virDomainGetJobInfo(dom, &job) || job.type != VIR_DOMAIN_JOB_NONE ||
	    virDomainSetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, out,
				 RECORDS_KEY, RECORDS_URI, VIR_DOMAIN_AFFECT_LIVE)) {
		free(out);
		return -1;
	}
	return guest_keep(g, out) ? -1 : 1;
}

int guest_adopt(virDomainPtr dom)
{
	struct guest *g = guest_get(dom);
	char *records;

	if (!g)
		return -1;
	records = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
				       RECORDS_URI, VIR_DOMAIN_AFFECT_LIVE);
	if (!records)
		return 0;	/* a guest without records: nothing to drop */
	return guest_keep(g, records);
}

static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

void guests_sweep(virConnectPtr conn)
{
	struct dirent *de;
	DIR *dir;

	dir = opendir(state_dir);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char uuid[VIR_UUID_STRING_BUFLEN], path[4096], *records;
		size_t n = strlen(de->d_name);
		virDomainPtr dom;

		if (n != VIR_UUID_STRING_BUFLEN - 1 + 4 ||
		    strcmp(de->d_name + n - 4, ".xml"))
			continue;
		memcpy(uuid, de->d_name, n - 4);
		uuid[n - 4] = '\0';
		dom = virDomainLookupByUUIDString(conn, uuid);
		if (dom && virDomainIsActive(dom) == 1) {
			virDomainFree(dom);
			continue;
		}
		if (dom)
			virDomainFree(dom);
		state_path(path, sizeof(path), uuid);
		records = read_file(path);
		if (records && !drop_rules(uuid, records)) {
			unlink(path);
			fprintf(stderr, "roam-migrate-agent: %s no longer runs here: the rules it left are dropped\n",
				uuid);
		}
		free(records);
	}
	closedir(dir);
}
