#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh [OPTIONS] SCRIPT [ARGS...]: run SCRIPT as root inside one or two
# freshly booted QEMU test hosts and exit with its status.
#
#   --hosts 1|2             number of hosts (default 1); with 2 they are
#                           cabled together (eth0, 192.0.2.1 <-> 192.0.2.2)
#   --datapath ours|in-tree the openvswitch.ko loaded before SCRIPT runs
#                           (default ours, built by kernel/build-module.sh)
#   --debug-kernel          KASAN/lockdep/kmemleak kernel, panic_on_warn
#   --boot fast|full        fast: a tiny init runs the job (no systemd);
#                           full: systemd + cloud-init, libvirtd ready
#                           (default fast for 1 host, full for 2)
#   --timeout SECONDS       whole-run limit from this command's start,
#                           builds and boot included (default 600)
#   --guest                 also build the nested test guest
#                           (images/build-guest.sh) and give it to the
#                           hosts in $ROAM_GUEST
#   --retry-crash[=N]       with --guest: when a host's kernel crashes
#                           and its report names no roamswitch frame, a
#                           host resets itself (a triple fault, QEMU's
#                           log says) with no splat on its console, or
#                           the job fails after a nested guest's QEMU
#                           logged that KVM failed it (roam_guest_fault),
#                           run everything again, up to N attempts in
#                           all (default 2; the earlier attempts' output
#                           kept as "# attempt K| " comments): the TCG
#                           nested-SVM fault README.md describes ("Nested
#                           guests under TCG") strikes hosts running
#                           nested guests at random
#   --out DIR               at the end, whatever the outcome, copy what
#                           the hosts wrote into $ROAM_SHARED/out to DIR
#                           (made if missing: results for the build
#                           machine, such as the demo's traces)
#   --share TAG=DIR         give the hosts DIR read-only, as the 9p mount
#                           tag TAG, without copying it (a prebuilt tree
#                           from the cache); a script mounts it with
#                           roam_mount_share TAG MOUNTPOINT; repeatable
#
# SCRIPT is a file, a directory or a tarball (.tar, .tar.gz, .tgz,
# .tar.xz).  For a directory or tarball the first ARG names the program in
# it to run; the tree is copied as-is into the host, and the program runs
# with the tree's root as cwd.  A program that is not executable runs with
# bash.
#
# Output: the script's stdout+stderr, streamed live on stdout; with 2 hosts
# every line is prefixed "host1| " or "host2| ".  Before it, the host
# prints "# datapath: ..." (which module and srcversion was proven loaded);
# after it, "# kernel log: clean" or the suspicious kernel log lines, and
# once the hosts are off, "# console: clean" or the splats found anywhere
# in their whole serial consoles (boot and shutdown included, and whatever
# the kernel's log ring no longer held).
# Exit status: the script's (2 hosts: the first non-zero one); 1 if the
# kernel log or a console was not clean, a host left no kernel-log verdict,
# the datapath did not load or a host failed; 3 if a host's kernel crashed
# while nested guests ran (--guest) and its report names no roamswitch
# frame, if such a host reset itself in a triple fault with no splat on
# its console, or if the job failed with every kernel clean after a
# nested guest's KVM failure (roam_guest_fault); 124 on timeout; 130 on
# Ctrl-C.
# Harness messages go to stderr only.
#
# Inside the hosts the script sees ROAM_HOST, ROAM_HOST_INDEX, ROAM_HOSTS,
# ROAM_DATAPATH, ROAM_DEBUG_KERNEL, ROAM_BOOT, ROAM_ADDR, ROAM_PEER,
# ROAM_LINK and ROAM_UPLINK (2 hosts), ROAM_SHARED (a directory all hosts share) and
# ROAM_LIB (tests/vm/roam.sh: roam_barrier, roam_put, roam_get), and with
# --guest ROAM_GUEST (a read-only directory: bzImage, initramfs.cpio.gz,
# roam-traffic).
#
# ROAM_VM_NICE=N runs the hosts' QEMUs at niceness N (meson gives every
# QEMU test but the longest one 5, so that one keeps its cores and the
# rest use what it leaves).
# ROAM_TCG_THREAD=multi|single picks QEMU's TCG threading for the hosts
# (default multi: one thread per vCPU).
# ROAM_ICOUNT=SHIFT runs the hosts on QEMU's instruction counter (-icount
# shift=SHIFT,sleep=off, single-threaded TCG, one vCPU: two hung in the
# second CPU's bring-up): their clocks advance 2^SHIFT ns per instruction
# executed and skip their idle time, so a rate measured inside them
# counts instructions, whatever else the build machine runs (the bench's
# clock unless it is given --wall).
# ROAM_IMAGE=DIR boots DIR (an images/build-host.sh output) instead of
# building the image; for debugging the harness itself.
#
# Everything of a run lives in $ROAM_CACHE/run/ID and is removed when the
# run ends; the logs of the last failed run are kept in
# $ROAM_CACHE/run/last-failure.  Each QEMU has a pidfile there, dies with
# this script (PR_SET_PDEATHSIG, even on SIGKILL) and holds the run's
# lock while it lives, so a run whose harness was killed is swept by the
# next vm-run once its QEMU is gone.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=vm/roam.sh
. "$ROAM_TOP/tests/vm/roam.sh"
start=$(date +%s)

usage() {
	sed -n '4,/^$/s/^# \{0,1\}//p' "$0" | sed '/^SPDX/d'
}

args_given=("$@")
hosts=1 datapath=ours debug=0 boot='' timeout=600 guest=0 shares=() out_dir=''
retry_crash=0
while [ $# -gt 0 ]; do
	case "$1" in
	--hosts | --datapath | --boot | --timeout)
		[ $# -ge 2 ] || die "option $1 needs a value"
		opt=${1#--} val=$2
		shift 2
		;;
	--hosts=* | --datapath=* | --boot=* | --timeout=*)
		opt=${1%%=*} opt=${opt#--} val=${1#*=}
		shift
		;;
	--debug-kernel)
		debug=1
		shift
		continue
		;;
	--guest)
		guest=1
		shift
		continue
		;;
	--retry-crash)
		retry_crash=2
		shift
		continue
		;;
	--retry-crash=*)
		retry_crash=${1#*=}
		[[ "$retry_crash" =~ ^[1-9][0-9]?$ ]] ||
			die "--retry-crash=N takes a number of attempts, 1 to 99, not '$retry_crash'"
		shift
		continue
		;;
	--out)
		[ $# -ge 2 ] || die "option --out needs a value"
		out_dir=$2
		shift 2
		continue
		;;
	--share | --share=*)
		if [ "$1" = --share ]; then
			[ $# -ge 2 ] || die "option --share needs a value"
			val=$2
			shift 2
		else
			val=${1#--share=}
			shift
		fi
		[[ $val =~ ^[a-z][a-z0-9-]{0,30}=/ ]] ||
			die "bad --share '$val' (want TAG=/ABSOLUTE/DIR)"
		[ "${val%%=*}" != roam ] || die "--share: the tag roam is the harness's"
		[ -d "${val#*=}" ] || die "--share: no directory ${val#*=}"
		shares+=("$val")
		continue
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	-*) die "unknown option '$1' (see $0 --help)" ;;
	*) break ;;
	esac
	case "$opt:$val" in
	hosts:1 | hosts:2) hosts=$val ;;
	datapath:ours | datapath:in-tree) datapath=$val ;;
	boot:fast | boot:full) boot=$val ;;
	timeout:[1-9]*) [[ $val =~ ^[0-9]+$ ]] || die "bad --timeout '$val'"
		timeout=$val ;;
	*) die "bad value '$val' for --$opt (see $0 --help)" ;;
	esac
done
[ $# -ge 1 ] || die "no SCRIPT given (usage: $0 [OPTIONS] SCRIPT [ARGS...])"
script=$1
shift
[ -e "$script" ] || die "SCRIPT '$script' does not exist"
if [ -z "$boot" ]; then
	boot=fast
	[ "$hosts" -eq 1 ] || boot=full
fi
flavour=host
[ "$debug" -eq 0 ] || flavour=debug

need_root "${args_given[@]}"

# --retry-crash: this script again, without the option, buffered, as
# long as an attempt ends in exit status 3 and attempts are left; the
# last one streamed.
if [ "$retry_crash" -gt 0 ]; then
	[ "$guest" -eq 1 ] || die "--retry-crash is for runs with nested guests (--guest)"
	again=()
	for a in "${args_given[@]}"; do
		[[ "$a" = --retry-crash || "$a" = --retry-crash=* ]] || again+=("$a")
	done
	for ((attempt = 1; attempt < retry_crash; attempt++)); do
		earlier=$(mktemp)
		rc=0
		"$0" "${again[@]}" >"$earlier" || rc=$?
		if [ "$rc" -ne 3 ]; then
			cat "$earlier"
			rm -f "$earlier"
			exit "$rc"
		fi
		echo "# attempt $attempt ended in the TCG nested-SVM fault, as its error says (README.md, \"Nested guests under TCG\"): its output, then attempt $((attempt + 1))"
		sed "s/^/# attempt $attempt| /" "$earlier"
		rm -f "$earlier"
		step "TCG's nested-SVM fault under nested guests: attempt $((attempt + 1)) of $retry_crash"
	done
	exec "$0" "${again[@]}"
fi
apt_install qemu-system-x86 qemu-utils cloud-image-utils
need_disk "$ROAM_CACHE" 2

# What the hosts boot: image (and kernel), and our module.
if [ -n "${ROAM_IMAGE:-}" ]; then
	[ -e "$ROAM_IMAGE/rootfs.img" ] || die "ROAM_IMAGE=$ROAM_IMAGE has no rootfs.img"
	image=$ROAM_IMAGE
else
	image=$("$ROAM_TOP/images/build-host.sh" "$flavour")
fi
ko=
if [ "$datapath" = ours ]; then
	ko=$("$ROAM_TOP/kernel/build-module.sh" "$flavour") ||
		die "building our openvswitch.ko failed (try --datapath in-tree)"
	[ -f "$ko" ] || die "kernel/build-module.sh did not produce $ko"
fi

guestdir=
[ "$guest" -eq 0 ] || guestdir=$("$ROAM_TOP/images/build-guest.sh")

# The run directory and the 9p share: runner, helpers, job, module.
# Its lock ($run_lock) is held by this script and inherited by every QEMU
# and tail it starts.
new_run "$ROAM_CACHE/run" || die "cannot make a run directory in $ROAM_CACHE/run"
share=$run/share
qemu_pids=() stream_pids=()

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
	local rc=$? pid i f

	trap - EXIT INT TERM
	for pid in "${qemu_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for f in "$run"/host*.pid; do
		[ ! -s "$f" ] || kill "$(cat "$f" 2>/dev/null)" 2>/dev/null || true
	done
	for pid in "${qemu_pids[@]}"; do
		wait_for_exit "$pid" 5 || kill -9 "$pid" 2>/dev/null || true
	done
	for pid in "${stream_pids[@]}"; do
		wait_for_exit "$pid" 3 || kill "$pid" 2>/dev/null || true
	done
	if [ -n "$out_dir" ] && [ -d "$share/shared/out" ]; then
		mkdir -p "$out_dir" && cp -a "$share/shared/out/." "$out_dir/" ||
			echo "roam: error: cannot copy the hosts' results to $out_dir" >&2
	fi
	if [ "$rc" -ne 0 ] && [ -d "$run" ]; then
		rm -rf "$ROAM_CACHE/run/last-failure" "$share/payload" \
			"$run/link.sock" "$run/uplink.sock"
		for ((i = 1; i <= hosts; i++)); do
			for f in "$share/host$i"/*; do
				[ ! -e "$f" ] || mv "$f" "$run/host$i.${f##*/}"
			done
		done
		rm -rf "$share"
		mv -T "$run" "$ROAM_CACHE/run/last-failure" 2>/dev/null || true
	fi
	rm -rf "$run"
	exit "$rc"
}
trap cleanup EXIT
trap 'printf "\nroam: error: interrupted, hosts killed\n" >&2; exit 130' INT
trap 'printf "roam: error: terminated, hosts killed\n" >&2; exit 143' TERM

mkdir -p "$share/payload" "$share/shared/out"
cp "$ROAM_TOP/tests/vm/runner.sh" "$ROAM_TOP/tests/vm/roam.sh" "$share/"
[ -z "$ko" ] || cp "$ko" "$share/openvswitch.ko"
if [ -n "$guestdir" ]; then
	mkdir "$share/guest"
	cp "$guestdir/bzImage" "$guestdir/initramfs.cpio.gz" \
		"$guestdir/roam-traffic" "$share/guest/"
fi
if [ -d "$script" ]; then
	[ $# -ge 1 ] || die "SCRIPT '$script' is a directory: name the program in it to run"
	cp -a "$script/." "$share/payload/"
	prog=$1
	shift
else
	case "$script" in
	*.tar | *.tar.gz | *.tgz | *.tar.xz)
		[ $# -ge 1 ] || die "SCRIPT '$script' is a tarball: name the program in it to run"
		tar -C "$share/payload" -xf "$script" ||
			die "cannot unpack '$script'"
		prog=$1
		shift
		;;
	*)
		cp "$script" "$share/payload/"
		prog=$(basename "$script")
		;;
	esac
fi
case "$prog" in
/* | ./* | ../*) ;;
*) prog=./$prog ;;
esac
{
	printf 'ROAM_HOSTS=%q\nROAM_DATAPATH=%q\nROAM_DEBUG_KERNEL=%q\n' \
		"$hosts" "$datapath" "$debug"
	printf 'ROAM_PROG=%q\nROAM_ARGS=(' "$prog"
	[ $# -eq 0 ] || printf ' %q' "$@"
	printf ' )\n'
} >"$share/job.env"

# A NoCloud seed per host for full boot mode: hostname, /etc/hosts and
# the host-link address, matched by MAC.
make_seed() {
	local i=$1 dir

	dir=$run/seed$i

	mkdir -p "$dir"
	printf 'instance-id: roam-host%s\nlocal-hostname: roam-host%s\n' \
		"$i" "$i" >"$dir/meta-data"
	cat >"$dir/user-data" <<-EOT
		#cloud-config
		hostname: roam-host$i
		write_files:
		  - path: /etc/hosts
		    content: |
		      127.0.0.1 localhost
		      192.0.2.1 roam-host1
		      192.0.2.2 roam-host2
	EOT
	cat >"$dir/network-config" <<-EOT
		version: 2
		ethernets:
		  link:
		    match:
		      macaddress: "52:54:00:00:02:0$i"
		    addresses: [ 192.0.2.$i/24 ]
	EOT
	cloud-localds -N "$dir/network-config" "$run/seed$i.img" \
		"$dir/user-data" "$dir/meta-data" ||
		die "cloud-localds failed for roam-host$i"
}

# Two hosts are cabled twice: the host link (addressed, management and
# migration streams) and the uplink (unaddressed, for br0's trunk).
sock=$run/link.sock uplink_sock=$run/uplink.sock
[ ${#uplink_sock} -lt 100 ] || die "run directory path too long for a unix socket: $run"
# The debug kernel's kmemleak scan walks every page's struct page: 48 s a
# scan with 4G, 19 s with 1.5G (measured), and each check takes two.  2G
# leaves the suites' daemons room beside KASAN's shadow and quarantine.
mem=3G
[ "$debug" -eq 0 ] || mem=2G
tcg_thread=${ROAM_TCG_THREAD:-multi}
case $tcg_thread in
multi | single) ;;
*) die "ROAM_TCG_THREAD must be multi or single, not '$tcg_thread'" ;;
esac
icount=() cpus=2
if [ -n "${ROAM_ICOUNT:-}" ]; then
	[[ "$ROAM_ICOUNT" =~ ^[0-9]$ ]] ||
		die "ROAM_ICOUNT must be a shift from 0 to 9, not '$ROAM_ICOUNT'"
	[ "$tcg_thread" = single ] || [ -z "${ROAM_TCG_THREAD:-}" ] ||
		die "ROAM_ICOUNT needs single-threaded TCG, not ROAM_TCG_THREAD=$tcg_thread"
	tcg_thread=single
	icount=(-icount "shift=$ROAM_ICOUNT,sleep=off")
	cpus=1
fi

start_host() {
	local i=$1 append args

	mkdir -p "$share/host$i"
	: >"$run/host$i.console"
	: >"$run/host$i.out"
	# oops=panic on every kernel: the first oops stops the host (QEMU
	# exits, -no-reboot), the report below shows it, and the run fails
	# at once instead of cascading into more oopses until the timeout.
	# A host that resets without a word on its console exits the same
	# way; QEMU's reset log (-d cpu_reset) says whether a triple fault
	# did it (host_triple_fault).
	append="root=/dev/vda rw console=ttyS0 panic=-1 oops=panic net.ifnames=0"
	append+=" roam.index=$i roam.hosts=$hosts roam.boot=$boot"
	[ "$boot" = full ] || append+=" init=/usr/local/sbin/roam-init"
	[ "$debug" -eq 0 ] || append+=" panic_on_warn=1 kmemleak=on"
	args=(-name "roam-host$i" -machine q35 -accel "tcg,thread=$tcg_thread"
		-cpu "EPYC,+svm,+npt" -smp "$cpus" -m "$mem" -nic none -nodefaults
		-no-user-config -display none -monitor none -no-reboot
		-d cpu_reset -D "$run/host$i.resets.log" ${icount[@]+"${icount[@]}"}
		-uuid "9d2c0a4e-726f-616d-0000-00000000000$i" -snapshot
		-kernel "$image/bzImage" -append "$append"
		-drive "file=$image/rootfs.img,format=raw,if=virtio"
		-device virtio-rng-pci
		-chardev "file,id=console,path=$run/host$i.console"
		-serial "chardev:console"
		-device virtio-serial-pci
		-chardev "file,id=out,path=$run/host$i.out"
		-device "virtconsole,chardev=out"
		-fsdev "local,id=roam,path=$share,security_model=none"
		-device "virtio-9p-pci,fsdev=roam,mount_tag=roam")
	for sh in ${shares[@]+"${shares[@]}"}; do
		args+=(-fsdev "local,id=${sh%%=*},path=${sh#*=},security_model=none,readonly=on"
			-device "virtio-9p-pci,fsdev=${sh%%=*},mount_tag=${sh%%=*}")
	done
	if [ "$boot" = full ]; then
		make_seed "$i"
		args+=(-drive "file=$run/seed$i.img,format=raw,if=virtio,readonly=on")
	fi
	if [ "$hosts" -eq 2 ]; then
		local server=on
		[ "$i" -eq 1 ] || server=off
		args+=(-netdev "stream,id=link,server=$server,addr.type=unix,addr.path=$sock"
			-device "virtio-net-pci,netdev=link,mac=52:54:00:00:02:0$i"
			-netdev "stream,id=uplink,server=$server,addr.type=unix,addr.path=$uplink_sock"
			-device "virtio-net-pci,netdev=uplink,mac=52:54:00:00:03:0$i")
	fi
	args+=(-pidfile "$run/host$i.pid")
	# PDEATHSIG: a QEMU never outlives this script, however it ends.
	TMPDIR=$run nice -n "${ROAM_VM_NICE:-0}" setpriv --pdeathsig KILL -- \
		qemu-system-x86_64 "${args[@]}" </dev/null \
		>"$run/host$i.qemu.log" 2>&1 &
	qemu_pids[i]=$!
	if [ "$hosts" -eq 1 ]; then
		tail -s 0.2 -n +1 -f --pid="${qemu_pids[i]}" "$run/host$i.out" &
	else
		tail -s 0.2 -n +1 -f --pid="${qemu_pids[i]}" "$run/host$i.out" |
			sed -u "s/^/host$i| /" &
	fi
	stream_pids[i]=$!
}

# console_tail I: the end of host I's console (and QEMU's own errors).
console_tail() {
	{
		tail -n 20 "$run/host$1.console"
		grep -v "TCG doesn't support requested feature" \
			"$run/host$1.qemu.log" || true
	} | tr -d '\r' | sed "s/^/    host$1: /" >&2
}

# crash_report I: when host I died, print the kernel's report from its
# console as a TAP comment, so that test logs show why; false if the
# console has none.
crash_report() {
	local first

	first=$(tr -d '\r' <"$run/host$1.console" |
		grep -n -m1 -E -e "$ROAM_SPLAT_ERE" | cut -d: -f1) || true
	[ -n "$first" ] || return 1
	[ "$first" -le 5 ] || first=$((first - 5))
	echo "# kernel log: host$1 crashed:"
	tr -d '\r' <"$run/host$1.console" | tail -n +"$first" | sed -n 1,60p |
		sed 's/^/#   /'
	# The emulator fault README.md describes ("The migration suite"): an
	# interrupt inside KVM's VMRUN window under TCG.  Named, still failed.
	if grep -F 'stack guard page was hit' "$run/host$1.console" >/dev/null &&
		grep -F '__svm_vcpu_run' "$run/host$1.console" >/dev/null; then
		echo "# host$1: an interrupt inside __svm_vcpu_run overflowed the stack:" \
			"the TCG nested-SVM fault README.md describes"
	fi
}

# host_triple_fault I: QEMU logged that host I's CPU triple-faulted, the
# reset that a kernel whose stack broke past its double-fault handler
# gets, with no report of its own (-no-reboot makes it QEMU's exit).
host_triple_fault() {
	grep -q -F 'Triple fault' "$run/host$1.resets.log" 2>/dev/null
}

boot_start=$(date +%s)
step "booting $hosts host(s): $flavour kernel, $boot boot, datapath $datapath" \
	"($(basename "$image"), run $run)"
start_host 1
if [ "$hosts" -eq 2 ]; then
	for ((n = 0; n < 100; n++)); do
		[ -S "$sock" ] && [ -S "$uplink_sock" ] && break
		kill -0 "${qemu_pids[1]}" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$sock" ] || [ ! -S "$uplink_sock" ]; then
		console_tail 1
		die "host 1 did not open the host-link and uplink sockets"
	fi
	start_host 2
fi

up=()
boot_limit=180
[ "$boot" = fast ] || boot_limit=400
[ "$debug" -eq 0 ] || boot_limit=$((boot_limit * 2))
[ "$boot_limit" -le "$timeout" ] || boot_limit=$timeout
while :; do
	now=$(date +%s)
	pending=0
	for ((i = 1; i <= hosts; i++)); do
		if [ -z "${up[i]:-}" ] && [ -e "$share/host$i/started" ]; then
			up[i]=$((now - boot_start))
			step "host $i up after ${up[i]}s"
		fi
		[ ! -e "$share/host$i/status" ] || continue
		pending=1
		if ! kill -0 "${qemu_pids[i]}" 2>/dev/null; then
			crashed=0
			crash_report "$i" >"$run/crash$i" && crashed=1
			cat "$run/crash$i"
			[ "$crashed" -eq 1 ] || console_tail "$i"
			[ -e "$share/host$i/started" ] ||
				die "host $i failed to boot (console above; logs in $ROAM_CACHE/run/last-failure)"
			# anywhere in its console: a later oops may name us
			if [ "$crashed" -eq 1 ] && [ "$guest" -eq 1 ] &&
				! grep -F '[openvswitch]' "$run/host$i.console" >/dev/null; then
				printf 'roam: error: host %s crashed with nested guests running, no roamswitch frame in its report (logs in %s)\n' \
					"$i" "$ROAM_CACHE/run/last-failure" >&2
				exit 3
			fi
			if [ "$crashed" -eq 0 ] && host_triple_fault "$i"; then
				why="host $i reset itself in a triple fault, no splat on its console"
				if [ "$guest" -eq 1 ]; then
					printf 'roam: error: %s, nested guests running (logs in %s)\n' \
						"$why" "$ROAM_CACHE/run/last-failure" >&2
					exit 3
				fi
				die "$why (logs in $ROAM_CACHE/run/last-failure)"
			fi
			die "host $i stopped before the script finished (console above; logs in $ROAM_CACHE/run/last-failure)"
		fi
		if [ ! -e "$share/host$i/started" ] &&
			[ $((now - boot_start)) -ge "$boot_limit" ]; then
			console_tail "$i"
			die "host $i did not boot within ${boot_limit}s (console above)"
		fi
	done
	[ "$pending" -eq 1 ] || break
	if [ $((now - start)) -ge "$timeout" ]; then
		for ((i = 1; i <= hosts; i++)); do
			console_tail "$i"
		done
		printf 'roam: error: timed out after %ss, killing the hosts\n' \
			"$timeout" >&2
		exit 124
	fi
	sleep 0.3
done

# Every host wrote its status and powers itself off; let the output drain.
for ((i = 1; i <= hosts; i++)); do
	wait_for_exit "${qemu_pids[i]}" 20 || kill "${qemu_pids[i]}" 2>/dev/null || true
done
for ((i = 1; i <= hosts; i++)); do
	wait_for_exit "${stream_pids[i]}" 5 || true
done
# The CPU the run took (the QEMUs, reaped by now, and the harness's own
# tools): unlike the wall time, it hardly depends on what else runs on the
# build machine's cores, so the README's budget counts it too.
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / hz }' \
	/proc/$$/stat)
step "hosts done in $(($(date +%s) - boot_start))s, ${cpu} CPU seconds"

# console_splats I: the splat lines anywhere in host I's serial console.
console_splats() {
	tr -d '\r' <"$run/host$1.console" | grep -E -e "$ROAM_SPLAT_ERE"
}

rc=0 clean=1
for ((i = 1; i <= hosts; i++)); do
	status=$(cat "$share/host$i/status")
	kstatus=$(cat "$share/host$i/kernel-status" 2>/dev/null) || kstatus=missing
	[ "$kstatus" = 0 ] || clean=0
	if [ "$status" -ne 0 ]; then
		[ "$hosts" -eq 1 ] || echo "roam: host$i: script exited $status" >&2
		[ "$rc" -ne 0 ] || rc=$status
	elif [ "$kstatus" != 0 ]; then
		if [ "$kstatus" = missing ]; then
			echo "roam: host$i: the runner left no kernel-log verdict" >&2
		else
			echo "roam: host$i: the kernel log is not clean" >&2
		fi
		[ "$rc" -ne 0 ] || rc=1
	fi
	if [ ! -s "$run/host$i.console" ]; then
		echo "# console: host$i: empty, nothing to check"
		[ "$rc" -ne 0 ] || rc=1
	elif console_splats "$i" >/dev/null; then
		crash_report "$i" | sed "s/crashed:/console not clean:/"
		echo "roam: host$i: its console shows a kernel splat" >&2
		[ "$rc" -ne 0 ] || rc=1
		clean=0
	else
		echo "# console: host$i clean"
	fi
done
# A job that failed, with every kernel clean, after a nested guest's QEMU
# logged that KVM failed it (roam_guest_fault): TCG's fault, as a crash
# under nested guests is, and so exit status 3 (--retry-crash).
if [ "$rc" -ne 0 ] && [ "$clean" -eq 1 ] && [ "$guest" -eq 1 ] &&
	[ -s "$share/shared/guest-fault" ]; then
	sed 's/^/# guest fault: /' "$share/shared/guest-fault"
	printf "roam: error: the job failed after KVM failed a nested guest, TCG's nested SVM (logs in %s)\n" \
		"$ROAM_CACHE/run/last-failure" >&2
	exit 3
fi
exit "$rc"
