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

static int announce_port(const char *dev, const char *mac)
{
	char *bridge = NULL, *ofport = NULL;
	char hex[160];
	int rc = -1;

	if (rarp_hex(mac, hex, sizeof(hex)))
		return -1;
	bridge = vsctl_query("port-to-br", dev, NULL, NULL);
	ofport = vsctl_query("get", "Interface", dev, "ofport");
	if (bridge && ofport && atoi(ofport) > 0) {
		const char *argv[] = { "ovs-ofctl", "packet-out", bridge, ofport,
				 "NORMAL", hex, NULL };

		rc = run_cmd(argv, NULL, NULL, HELPER_TIMEOUT_MS) ? -1 : 0;
	}
	if (rc)
		fprintf(stderr, "roam-migrate-agent: announcing %s on %s failed\n",
			mac, dev);
	free(bridge);
	free(ofport);
	return rc;
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

int switchover_announce(virDomainPtr dom)
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
	announced = 0;
	for (i = 0; ifaces->nodesetval && i < ifaces->nodesetval->nodeNr; i++) {
		xmlNodePtr node = ifaces->nodesetval->nodeTab[i];
		char *mac = attr(ctx, node, "mac/@address");
		char *dev = attr(ctx, node, "target/@dev");

		if (mac && dev && !announce_port(dev, mac))
			announced++;
		xmlFree(mac);
		xmlFree(dev);
	}
	xmlXPathFreeObject(ifaces);
out_ctx:
	xmlXPathFreeContext(ctx);
out_doc:
	xmlFreeDoc(doc);
	return announced;
}
