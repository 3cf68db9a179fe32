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

/* The untagged VLAN of a port with TAG and VLAN_MODE as ovs-vsctl
 * prints them ("[]": none); see struct ovs_port_info. */
static int port_vlan(const char *tag, const char *mode, bool *trunk)
{
	int vid = atoi(tag);

	/* no mode, with a tag, is access */
	if (vid < 1 || vid > 4094 || !strcmp(mode, "trunk"))
		vid = 0;
	*trunk = !vid || strncmp(mode, "native-", 7) == 0;
	return vid;
}

/* The next line of *S, cut off; NULL after the last. */
static char *next_line(char **s)
{
	char *line = *s, *end;

	if (!line || !*line)
		return NULL;
	end = strchr(line, '\n');
	if (end)
		*end++ = '\0';
	*s = end;
	return line;
}

int ovs_port_info(const char *dev, const char *uplink, struct ovs_port_info *pi)
{
	const char *argv[] = { "ovs-vsctl", "--timeout=5", "port-to-br", dev,
			       "--", "get", "Interface", dev, "ofport",
			       "--", "get", "Port", dev, "tag", "vlan_mode",
			       "--", "--if-exists", "get", "Interface",
			       uplink ? uplink : dev, "ofport", NULL };
	char *out, *rest, *line[5];
	int i, rc = -1;

	/* one line each: the bridge, the port's OpenFlow port, its tag and
	 * mode, the uplink's OpenFlow port (none if there is no such
	 * interface) */
	if (run_cmd(argv, NULL, &out, HELPER_TIMEOUT_MS))
		goto out;
	rest = out;
	for (i = 0; i < 5; i++)
		if (!(line[i] = next_line(&rest)) && i < 4)
			goto out;
	if (strlen(line[0]) >= sizeof(pi->bridge))
		goto out;
	strcpy(pi->bridge, line[0]);
	pi->ofport = atoi(line[1]);
	pi->vlan = port_vlan(line[2], line[3], &pi->trunk);
	pi->uplink_ofport = uplink && line[4] ? atoi(line[4]) : 0;
	rc = pi->ofport > 0 ? 0 : -1;
out:
	free(out);
	return rc;
}
