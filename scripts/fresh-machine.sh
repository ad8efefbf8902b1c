#!/usr/bin/env bash
# The README's main command on a fresh machine: builds a clean Debian 12
# root with debootstrap (no openssh-server, no sudo, no make), copies the
# machine's Go (/usr/local/go) and a `git archive HEAD` of this repository
# into it, and runs, chrooted and with no standard input, what the README
# tells a newcomer: `./scripts/prereqs.sh` (there is no make yet) and
# `make demo`. Then `make demo-down`, and every mount is undone, on failure
# too. Prints the wall time of each phase.
#
#   scripts/fresh-machine.sh            as root; not part of `make test`
#
# Environment:
#   FRESH_DIR=dir        where the root is made (default /var/tmp); a tmpfs is
#                        mounted there first when dir is on overlayfs, which
#                        the test hosts' overlays cannot use as a lower layer
#   FRESH_MODCACHE=shared   bind the machine's GOMODCACHE read-only into the
#                        root, so no module is downloaded (default)
#   FRESH_MODCACHE=download an empty module cache: every module comes from
#                        the Go module proxy `go env GOPROXY` names
#   FRESH_KEEP=1         keep the root afterwards (its mounts are undone)
#   FRESH_REUSE=dir      run again in a directory FRESH_KEEP=1 kept, with
#                        the repository copy refreshed from HEAD and what it
#                        built kept: for working on a failure, not the check
#
# The Debian mirror is the one this machine's apt sources use for the
# release; GOPROXY, GOFLAGS, GOTOOLCHAIN and the other module settings are
# passed in as `go env` prints them here. The test hosts' address locks
# (/var/tmp/cp-testhosts/locks) are shared with the machine, so hosts in
# the root never take an address a harness outside is using.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=bookworm
modcache_mode=${FRESH_MODCACHE:-shared}
parent=${FRESH_DIR:-/var/tmp}
locks=/var/tmp/cp-testhosts/locks

if (($#)); then
	echo "usage: $0 (no arguments; see the comment at the top for FRESH_DIR, FRESH_MODCACHE, FRESH_KEEP)" >&2
	exit 2
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "fresh-machine: needs root (debootstrap, mounts, chroot): sudo $0" >&2
	exit 1
fi
case $modcache_mode in
shared | download) ;;
*)
	echo "fresh-machine: FRESH_MODCACHE must be shared or download, not $(printf '%q' "$modcache_mode")" >&2
	exit 2
	;;
esac
if [[ ! -d $parent ]]; then
	echo "fresh-machine: FRESH_DIR $(printf '%q' "$parent") is not a directory" >&2
	exit 2
fi
if [[ ! -x /usr/local/go/bin/go ]]; then
	echo "fresh-machine: no Go in /usr/local/go to copy into the root (install the official Go tarball there)" >&2
	exit 1
fi

# Every mount below lives in a mount namespace of this script's own, so
# nothing is left mounted on the machine even if the script is killed; the
# trap still undoes each mount, in order.
if [[ ${CP_FRESH_MACHINE_NS:-} != 1 ]]; then
	CP_FRESH_MACHINE_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi

if ! command -v debootstrap >/dev/null; then
	echo "== installing debootstrap on this machine" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# debian_mirror prints the first URI this machine's apt sources (deb822
# .sources stanzas, then one-line .list entries) use for the suite.
debian_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		awk -v suite="$suite" '
			BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; hasSuite = 0; isDeb = 0; enabled = 1
				for (i = 1; i <= NF; i++) {
					line = $i
					if (line ~ /^[ \t]*#/) continue
					if (match(line, /^URIs:[ \t]*/)) uris = substr(line, RLENGTH + 1)
					else if (match(line, /^Suites:[ \t]*/)) {
						n = split(substr(line, RLENGTH + 1), s, /[ \t]+/)
						for (j = 1; j <= n; j++) if (s[j] == suite) hasSuite = 1
					} else if (match(line, /^Types:[ \t]*/)) {
						n = split(substr(line, RLENGTH + 1), s, /[ \t]+/)
						for (j = 1; j <= n; j++) if (s[j] == "deb") isDeb = 1
					} else if (line ~ /^Enabled:[ \t]*no/) enabled = 0
				}
				if (hasSuite && isDeb && enabled && uris != "") { split(uris, u, /[ \t]+/); print u[1]; exit }
			}' "$f"
	done | head -n1 | grep . && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' |
		awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' | grep .
}
if ! mirror=$(debian_mirror); then
	echo "fresh-machine: no apt source of this machine serves Debian $suite (/etc/apt/sources.list*): add one, or run on a Debian 12 machine" >&2
	exit 1
fi

reuse=${FRESH_REUSE:-}
if [[ -n $reuse ]]; then
	if [[ ! -d $reuse/root/root/cp ]]; then
		echo "fresh-machine: FRESH_REUSE $(printf '%q' "$reuse") is not a directory FRESH_KEEP=1 kept" >&2
		exit 2
	fi
	work=$(cd "$reuse" && pwd)
else
	work=$(mktemp -d "$parent/cp-fresh-machine.XXXXXX")
fi
root="$work/root"
log="$work/demo.log"
mounted=() # mount points, in the order they were made

mnt() { # mnt TARGET MOUNT-ARGS...: mount and remember it for cleanup
	local target=$1
	shift
	mkdir -p "$target"
	mount "$@" "$target"
	mounted+=("$target")
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local rc=$? i p r
	trap - EXIT INT TERM
	if [[ -x $root/usr/bin/make && -d $root/root/cp/.demo ]]; then
		echo "== make demo-down in the root" >&2
		timeout 120 chroot "$root" /usr/bin/env -i "${chroot_env[@]}" \
			bash -c 'cd /root/cp && make demo-down' </dev/null >&2 || echo "fresh-machine: make demo-down failed" >&2
	fi
	# Whatever still runs inside the root was started by this script.
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		if [[ $r == "$root" || $r == "$root"/* ]]; then
			kill -KILL "${p#/proc/}" 2>/dev/null || true
		fi
	done
	[[ -f $log ]] && cp "$log" "$parent/cp-fresh-machine.last.log"
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" ||
			echo "fresh-machine: could not unmount ${mounted[i]}" >&2
	done
	if grep -qF " $work" /proc/self/mountinfo; then
		echo "fresh-machine: mounts remain under $work; not removing it" >&2
	elif [[ ${FRESH_KEEP:-} == 1 || -n $reuse ]]; then
		echo "fresh-machine: kept $work (log: $log)" >&2
	else
		rm -rf --one-file-system "$work"
		echo "fresh-machine: removed $work; the log is in $parent/cp-fresh-machine.last.log" >&2
	fi
	exit "$rc"
}
chroot_env=()
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n $reuse ]]; then
	t_boot=$EPOCHREALTIME t_booted=$EPOCHREALTIME
	echo "== reusing $root (FRESH_REUSE): not a fresh machine" >&2
else
	if [[ $(stat -f -c %T "$work") == overlayfs ]]; then
		echo "== $work is on overlayfs: making the root on a tmpfs instead" >&2
		mnt "$work" -t tmpfs -o size=16g,mode=0755 tmpfs
		mkdir -p "$work/root"
	fi
	t_boot=$EPOCHREALTIME
	echo "== debootstrap $suite into $root (mirror from this machine's apt sources)" >&2
	debootstrap "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
		tail -n 20 "$work/debootstrap.log" >&2
		echo "fresh-machine: debootstrap failed; the log is $work/debootstrap.log" >&2
		exit 1
	}
	t_booted=$EPOCHREALTIME
	# It is the machine the issue describes: none of these is there yet.
	for absent in /usr/sbin/sshd /usr/bin/sudo /usr/bin/make /usr/bin/gcc; do
		if [[ -e $root$absent ]]; then
			echo "fresh-machine: the new root already has $absent; it is not the fresh machine this check needs" >&2
			exit 1
		fi
	done
	echo "== fresh root: no sshd, no sudo, no make, no gcc" >&2
	cp -a /usr/local/go "$root/usr/local/go"
fi
mkdir -p "$root/root/cp"
git -C "$repo" archive HEAD | tar -x -C "$root/root/cp"
commit=$(git -C "$repo" rev-parse --short HEAD)

# On a machine, / is a mount point; a directory chrooted into is not, and
# the test hosts' `unshare --propagation private` (mount --make-rprivate /)
# then fails with EINVAL. A bind mount of the root onto itself makes it one.
mnt "$root" --bind "$root"
mnt "$root/proc" -t proc proc
mnt "$root/sys" --rbind /sys
mount --make-rslave "$root/sys"
mnt "$root/dev" --rbind /dev
mount --make-rslave "$root/dev"
mnt "$root/tmp" -t tmpfs -o mode=1777 tmpfs
mnt "$root/run" -t tmpfs -o mode=0755 tmpfs
mkdir -p "$locks"
mnt "$root$locks" --bind "$locks"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# No service starts from a package's maintainer scripts (Debian's
# policy-rc.d convention for chroots): the root shares this machine's
# network, and an sshd started by openssh-server's postinst would listen on
# its *:22, the port of every test host here.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

host_modcache=$(/usr/local/go/bin/go env GOMODCACHE)
if [[ $modcache_mode == shared ]]; then
	mnt "$root/root/go/pkg/mod" --bind "$host_modcache"
	mount -o remount,bind,ro "$root/root/go/pkg/mod"
	modcache_note="shared read-only from the machine ($host_modcache): no module downloaded"
else
	modcache_note="empty: every module downloaded through GOPROXY"
fi

# A clean environment: what a root login on a new machine with Go has,
# plus the module settings of this machine, as go env prints them.
chroot_env=(HOME=/root LANG=C.UTF-8 TERM=dumb USER=root LOGNAME=root
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/go/bin)
for v in GOPROXY GOFLAGS GOTOOLCHAIN GOSUMDB GONOSUMDB GOPRIVATE GONOPROXY GOINSECURE; do
	val=$(/usr/local/go/bin/go env "$v")
	[[ -n $val ]] && chroot_env+=("$v=$val")
done
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
	[[ -n ${!v:-} ]] && chroot_env+=("$v=${!v}")
done

echo "== in the root, as root, no stdin: ./scripts/prereqs.sh && make demo" >&2
: >"$log"
t0=$EPOCHREALTIME
set +e
chroot "$root" /usr/bin/env -i "${chroot_env[@]}" \
	bash -c 'cd /root/cp && ./scripts/prereqs.sh && make demo' </dev/null 2>&1 |
	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line" >>"$log"
		printf '%s\n' "$line" >&2
	done
rc=${PIPESTATUS[0]}
set -e
t_end=$EPOCHREALTIME

# Phases: each starts at the first line matching its marker and ends where
# the next phase found starts (the last one at the end of the run).
report() {
	awk -v t0="$t0" -v tend="$t_end" -v tboot="$t_boot" -v tbooted="$t_booted" \
		-v rc="$rc" -v commit="$commit" -v what="$([[ -n $reuse ]] && echo "REUSED root (FRESH_REUSE, not the fresh-machine check)" || echo "fresh Debian 12 root")" -v modcache="$modcache_note" '
		BEGIN {
			n = split("prereqs: ok|opentofu/cmd/tofu|-o [^ ]*/bin/terraform-provider-cp|^\\./scripts/demo\\.sh up|^== starting [0-9]+ test hosts|^== tofu plan|^== tofu apply|^== a second plan", re, "|")
			split("make demo: prereqs check|tofu build (make tofu)|provider build|test-host tools build (cp-testhosts)|hosts up (+ tfvars)|tofu plan|tofu apply|second plan + outputs", name, "|")
			for (i = 1; i <= n; i++) at[i] = ""
		}
		{
			t = $1; sub(/^[^ ]+ /, "")
			for (i = 1; i <= n; i++) if (at[i] == "" && $0 ~ re[i]) { at[i] = t; break }
		}
		END {
			printf "\n%s, commit %s, make demo exit %d\n", what, commit, rc
			printf "  %-40s %8.1f s   (not part of make demo)\n", "debootstrap (default variant)", tbooted - tboot
			printf "  %-40s %8s\n", "Go module cache", modcache
			start = t0; label = "package install (scripts/prereqs.sh)"
			for (i = 1; i <= n; i++) {
				if (at[i] == "") continue
				printf "  %-40s %8.1f s\n", label, at[i] - start
				start = at[i]; label = name[i]
			}
			printf "  %-40s %8.1f s\n", label, tend - start
			printf "  %-40s %8.1f s\n", "total: prereqs.sh + make demo", tend - t0
		}' "$log"
}
report | tee "$work/figures.txt"
if ((rc != 0)); then
	echo "fresh-machine: the run failed (exit $rc); the last lines are above, the whole log is $log" >&2
fi
exit "$rc"
