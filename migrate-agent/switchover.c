// SPDX-License-Identifier: GPL-2.0
/*
 * switchover.c: see switchover.h.
 */
#include "switchover.h"

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define HELPER_TIMEOUT_MS 5000

/* A RARP request (RFC 903) from MAC, for MAC: what QEMU sends for a
 * migrated NIC, as the hex string ovs-ofctl packet-out takes; 60 bytes. */
static int rarp_hex(const char *mac, char *hex, size_t len)
{
	unsigned int m[6];
	char macx[13];
	int n;

	if (sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x%n", &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5], &n) != 6 || mac[n])
		return -1;
	snprintf(macx, sizeof(macx), "%02x%02x%02x%02x%02x%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	n = snprintf(hex, len,
		     "ffffffffffff%s8035"	/* broadcast, ethertype RARP */
		     "0001080006040003"		/* Ethernet/IPv4, request reverse */
		     "%s00000000%s00000000"	/* sender, target */
		     "%036d",			/* padding to 60 bytes */
		     macx, macx, macx, 0);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Trimmed stdout of an ovs-vsctl query, or NULL. */
static char *vsctl_query(const char *arg1, const char *arg2,
			 const char *arg3, const char *arg4)
{
	const char *argv[] = { "ovs-vsctl", "--timeout=5", arg1, arg2, arg3, arg4, NULL };
	char *out, *end;

	if (run_cmd(argv, NULL, &out, HELPER_TIMEOUT_MS)) {
		free(out);
		return NULL;
	}
	end = out + strlen(out);
	while (end > out && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '"'))
		*--end = '\0';
	if (out[0] == '"')
		memmove(out, out + 1, strlen(out));
	return out;
}

/* Fill A for the port DEV with MAC; -1 if it is not on a bridge. */
static int prepare_port(const char *dev, const char *mac, struct announcement *a)
{
	char *bridge, *ofport;
	int rc = -1;

	if (rarp_hex(mac, a->frame, sizeof(a->frame)))
		return -1;
	bridge = vsctl_query("port-to-br", dev, NULL, NULL);
	ofport = vsctl_query("get", "Interface", dev, "ofport");
	if (bridge && ofport && atoi(ofport) > 0 && strlen(dev) < sizeof(a->dev) &&
	    strlen(bridge) < sizeof(a->bridge) && strlen(ofport) < sizeof(a->ofport)) {
		strcpy(a->dev, dev);
		strcpy(a->bridge, bridge);
		strcpy(a->ofport, ofport);
		rc = 0;
	}
	free(bridge);
	free(ofport);
	return rc;
}

int switchover_announce(const struct switchover *sw)
{
	int i, sent = 0;

	for (i = 0; i < sw->n; i++) {
		const struct announcement *a = &sw->a[i];
		const char *argv[] = { "ovs-ofctl", "packet-out", a->bridge,
				       a->ofport, "NORMAL", a->frame, NULL };

		if (!run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS))
			sent++;
		else
			fprintf(stderr, "roam-migrate-agent: announcing on %s port %s failed\n",
				a->bridge, a->ofport);
	}
	return sent;
}

unsigned long long switchover_delivered(const struct switchover *sw)
{
	unsigned long long sum = 0, n;
	char path[160];
	int i;

	for (i = 0; i < sw->n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_packets",
			 sw->a[i].dev);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &n) == 1)
			sum += n;
		fclose(f);
	}
	return sum;
}

static char *attr(xmlXPathContextPtr ctx, xmlNodePtr node, const char *path)
{
	xmlXPathObjectPtr res;
	char *value = NULL;

	ctx->node = node;
	res = xmlXPathEvalExpression((const xmlChar *)path, ctx);
	if (res && res->nodesetval && res->nodesetval->nodeNr > 0)
		value = (char *)xmlNodeGetContent(res->nodesetval->nodeTab[0]);
	xmlXPathFreeObject(res);
	return value;
}

int switchover_prepare(virDomainPtr dom, struct switchover *sw)
{
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr ifaces = NULL;
	xmlDocPtr doc = NULL;
	int i, announced = -1;
	char *xml;

	xml = virDomainGetXMLDesc(dom, 0);
	if (!xml)
		return -1;
	doc = xmlReadMemory(xml, strlen(xml), "domain.xml", NULL, XML_PARSE_NONET);
	free(xml);
	if (!doc)
		return -1;
	ctx = xmlXPathNewContext(doc);
	if (!ctx)
		goto out_doc;
	ifaces = xmlXPathEvalExpression((const xmlChar *)
		"/domain/devices/interface[virtualport/@type='openvswitch']", ctx);
	if (!ifaces)
		goto out_ctx;
	sw->n = 0;
	sw->timer = -1;
	for (i = 0; ifaces->nodesetval && i < ifaces->nodesetval->nodeNr &&
		    sw->n < SWITCHOVER_MAX_PORTS; i++) {
		xmlNodePtr node = ifaces->nodesetval->nodeTab[i];
		char *mac = attr(ctx, node, "mac/@address");
		char *dev = attr(ctx, node, "target/@dev");

		if (mac && dev && !prepare_port(dev, mac, &sw->a[sw->n]))
			sw->n++;
		else
			fprintf(stderr, "roam-migrate-agent: %s: no announcement for %s\n",
				virDomainGetName(dom), mac ? mac : "an interface");
		xmlFree(mac);
		xmlFree(dev);
	}
	announced = sw->n;
	xmlXPathFreeObject(ifaces);
out_ctx:
	xmlXPathFreeContext(ctx);
out_doc:
	xmlFreeDoc(doc);
	return announced;
}
