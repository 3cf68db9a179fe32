// SPDX-License-Identifier: GPL-2.0
/*
 * ifaces.c: see ifaces.h.
 */
#include "ifaces.h"

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define HELPER_TIMEOUT_MS 5000

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

int ifaces_each(virDomainPtr dom,
		void (*fn)(const char *dev, const char *mac, void *arg),
		void *arg)
{
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr ifaces = NULL;
	xmlDocPtr doc = NULL;
	int i, n = -1;
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
	n = 0;
	for (i = 0; ifaces->nodesetval && i < ifaces->nodesetval->nodeNr; i++) {
		xmlNodePtr node = ifaces->nodesetval->nodeTab[i];
		char *mac = attr(ctx, node, "mac/@address");
		char *dev = attr(ctx, node, "target/@dev");

		if (mac && dev) {
			fn(dev, mac, arg);
			n++;
		}
		xmlFree(mac);
		xmlFree(dev);
	}
	xmlXPathFreeObject(ifaces);
out_ctx:
	xmlXPathFreeContext(ctx);
out_doc:
	xmlFreeDoc(doc);
	return n;
}

char *ovs_query(const char *arg1, const char *arg2, const char *arg3,
		const char *arg4)
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

int ovs_port_vlan(const char *dev, bool *trunk)
{
	const char *argv[] = { "ovs-vsctl", "--timeout=5", "get", "Port", dev,
			       "tag", "vlan_mode", NULL };
	char *out, *mode;
	int vid = -1;

	/* one line per column: the tag ("[]": none), then the mode ("[]":
	 * none, which with a tag is access) */
	if (run_cmd(argv, NULL, &out, HELPER_TIMEOUT_MS))
		goto out;
	mode = strchr(out, '\n');
	if (!mode)
		goto out;
	*mode++ = '\0';
	mode[strcspn(mode, "\n")] = '\0';
	vid = atoi(out);
	if (vid < 1 || vid > 4094 || !strcmp(mode, "trunk"))
		vid = 0;
	*trunk = !vid || strncmp(mode, "native-", 7) == 0;
out:
	free(out);
	return vid;
}
