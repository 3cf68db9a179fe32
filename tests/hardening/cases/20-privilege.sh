# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 600
#
# Who may change a datapath, and who may see it, on the module of this
# pass.
#
#   host (init namespaces)              fzns (a network namespace)
#   dp0: p1 (1), p2 (2), a flow         dpn: n1 (1), a veth to the host
#
# Every mutating command of the datapath, vport, flow and packet families
# (the ones ovs-dpctl never sends, vport SET and packet EXECUTE, through
# bin/genl-fuzz --send) is refused with EPERM to a user without
# CAP_NET_ADMIN and to the root of a user namespace (which has
# CAP_NET_ADMIN in it, but not over the host's network namespace, which
# it does not own), and changes nothing; the same vport SET and packet
# EXECUTE from root are accepted, the positive control.  Reading is open
# to all: the unprivileged user's datapath and vport GET are answered.
# (ovs-dpctl cannot show a datapath without CAP_NET_ADMIN, on either
# module, since opening one sets its features, a datapath SET.)  A
# datapath in fzns is invisible and untouchable from the host, and the
# other way round; deleting fzns with dpn and its port inside cleans up
# after them.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../tally.sh
. ./tally.sh

# The job's bin/ may be closed to other users: a copy they can run.
FUZZ=/tmp/priv.genl-fuzz

flow='in_port(1),eth(),eth_type(0x0800),ipv4()'

case_cleanup() {
	ip netns del fzns 2>/dev/null
	ovs-dpctl del-dp dpx 2>/dev/null
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del p1 2>/dev/null
	ip link del p2 2>/dev/null
	ip link del px 2>/dev/null
	rm -f /tmp/priv.*
}

# send AS... FAMILY:CMD: one valid request to dp0 (its port p1), as AS.
send() {
	local cmd=${*: -1}

	"${@:1:$#-1}" "$FUZZ" --send "$cmd" --dp dp0 --port p1
}

# state: what the host's datapaths hold, to compare before and after.
state() {
	ovs-dpctl dump-dps
	ovs-dpctl show dp0 | grep -E 'port [0-9]+:|masks-cache'
	ovs-dpctl dump-flows dp0
}

# refused CMD...: CMD exits 1 saying "Operation not permitted".
refused() {
	fails_saying 'Operation not permitted' "$@"
}

# unchanged: the host's datapaths hold what they held at the start.
unchanged() {
	state | diff /tmp/priv.before -
}

ip link add p1 type veth peer name q1
ip link add p2 type veth peer name q2
ip link add px type veth peer name qx
check "dp0 with p1 and p2, and one flow" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2 &&
	ovs-dpctl add-flow dp0 '$flow' 2"
state >/tmp/priv.before
check "genl-fuzz, for everyone to run" install -m 755 bin/genl-fuzz "$FUZZ"

# refusals WHO AS...: every mutating command refused to AS (a command
# prefix).
refusals() {
	local who=$1
	shift

	check "$who: add-dp (datapath NEW) is refused" refused "$@" ovs-dpctl add-dp dpx
	check "$who: cache-set-size (datapath SET) is refused" \
		refused "$@" ovs-dpctl cache-set-size dp0 masks-cache 512
	check "$who: del-dp (datapath DEL) is refused" refused "$@" ovs-dpctl del-dp dp0
	check "$who: add-if (vport NEW) is refused" refused "$@" ovs-dpctl add-if dp0 px
	check "$who: del-if (vport DEL) is refused" refused "$@" ovs-dpctl del-if dp0 p2
	check "$who: add-flow (flow NEW) is refused" \
		refused "$@" ovs-dpctl add-flow dp0 'in_port(2),eth(),eth_type(0x0806),arp()' 1
	check "$who: mod-flow (flow SET) is refused" refused "$@" ovs-dpctl mod-flow dp0 "$flow" 1
	check "$who: del-flow (flow DEL) is refused" refused "$@" ovs-dpctl del-flow dp0 "$flow"
	check "$who: del-flows (flow DEL, a flush) is refused" refused "$@" ovs-dpctl del-flows dp0
	check "$who: vport SET is refused" refused send "$@" vport:set
	check "$who: packet EXECUTE is refused" refused send "$@" packet:execute
}

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
refusals "a user without CAP_NET_ADMIN" "${nobody[@]}"
refusals "a user namespace's root" unshare -Ur
check "nothing changed" unchanged
check "a user without CAP_NET_ADMIN reads dp0 (datapath GET)" \
	send "${nobody[@]}" datapath:get
check "and its port p1 (vport GET)" send "${nobody[@]}" vport:get
check "root's vport SET is accepted" send vport:set
check "root's packet EXECUTE is accepted" send packet:execute

ip netns add fzns
ip link set qx netns fzns
ip -n fzns link add n1 type veth peer name m1
check "dpn in fzns with port n1" eval "ip netns exec fzns ovs-dpctl add-dp dpn &&
	ip netns exec fzns ovs-dpctl add-if dpn n1"
check_output "fzns sees only dpn" "system@dpn" ip netns exec fzns ovs-dpctl dump-dps
check_output "the host sees only dp0" "system@dp0" ovs-dpctl dump-dps
check_fails "fzns cannot delete dp0" ip netns exec fzns ovs-dpctl del-dp dp0
check_fails "fzns cannot add a flow to dp0" \
	ip netns exec fzns ovs-dpctl add-flow dp0 'in_port(2),eth(),eth_type(0x0806),arp()' 1
check_fails "the host cannot delete dpn" ovs-dpctl del-dp dpn
check_fails "nor read it" ovs-dpctl show dpn
check "nothing changed on the host" unchanged
check "fzns deleted with dpn and its port inside" ip netns del fzns
check "dp0 still answers" unchanged
check "dp0 can be deleted" ovs-dpctl del-dp dp0
# The namespace goes in the background; unloading the module waits for
# it, and a datapath it failed to free would show in the kernel log.
check "the module unloads after it, and loads again" dp_load "$ROAM_DATAPATH"
# shellcheck disable=SC2046 # two words: passed and total
tally privilege $(tap_tally)
