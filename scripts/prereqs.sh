#!/usr/bin/env bash
# Installs and checks what `make demo`, `make test` and .ci/run need, before
# anything is built: Debian packages (only those missing, non-interactively),
# a Go toolchain new enough for go.mod, root, and overlayfs.
#   scripts/prereqs.sh           install what is missing (as root), then check
#   scripts/prereqs.sh --check   check only; install nothing
# Everything it prints goes to stderr, so a target whose stdout is JSON
# (make hosts-up) can run it first. Exits non-zero naming what is missing
# and the command that installs it.
set -euo pipefail
exec 1>&2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
install=1
case "${1:-}" in
"") ;;
--check) install=0 ;;
*)
	echo "usage: $0 [--check]"
	exit 2
	;;
esac

# What the test hosts, the tests and the scripts' checks use: sshd and the
# ssh client, sudo inside the hosts, make, gcc for the race detector with
# libc6-dev, its C headers (gcc only recommends it, and a gcc without them
# breaks every cgo build: Go turns cgo on once gcc is there), git,
# ca-certificates for the Go module proxy and the other HTTPS fetches, ip
# and the util-linux tools (unshare, mount) for the hosts' namespaces,
# procps, shellcheck and jq for the pack script checks. Then the Debian
# packages the packs install on hosts, installed here once so that every
# test host sees their real files and programs through its overlay (and
# the simulator's apt-get reports them installed): containerd and runc
# (whose shipped /etc/containerd/config.toml and daemon the scripts meet),
# wireguard-tools (wg genkey/pubkey, wg-quick strip), gpg (the kubernetes
# pack's apt keyrings: gpg --dearmor, which runs for real on the hosts),
# curl, postgresql (pg_ctlcluster, psql, pg_dump, pg_restore: the
# postgresql pack's on-host variant runs a real cluster), open-iscsi and
# nfs-common (Longhorn's host requirements, checked by its preflight), and
# awscli and s3cmd, the real S3 clients that bind existing object storage
# and that the tests point at the S3 server they start on loopback.
packages=(openssh-server openssh-client sudo make gcc libc6-dev git ca-certificates iproute2 util-linux procps
	containerd runc wireguard-tools gpg shellcheck jq
	curl postgresql postgresql-client open-iscsi nfs-common awscli s3cmd)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

if command -v dpkg-query >/dev/null; then
	missing=()
	for pkg in "${packages[@]}"; do
		installed "$pkg" || missing+=("$pkg")
	done
	if ((${#missing[@]})); then
		if ((install == 0)); then
			echo "prereqs: missing packages: ${missing[*]}; install them with: apt-get install -y ${missing[*]}"
			exit 1
		fi
		if [[ $(id -u) -ne 0 ]]; then
			echo "prereqs: missing packages: ${missing[*]}; run as root (sudo make ...), or install them first: sudo apt-get install -y ${missing[*]}"
			exit 1
		fi
		echo "prereqs: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		if ! apt-get update -qq; then
			echo "prereqs: apt-get update failed; check /etc/apt/sources.list* and the network, then run again"
			exit 1
		fi
		if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
			echo "prereqs: apt-get install ${missing[*]} failed; on Ubuntu, shellcheck is in the universe component (add-apt-repository universe)"
			exit 1
		fi
	fi
else
	echo "prereqs: no dpkg here: install the equivalents of ${packages[*]} yourself; checking the commands"
fi

problems=()
need() { # need PATH-or-command what-installs-it
	if [[ $1 == /* ]]; then
		[[ -x $1 ]] || problems+=("$1 ($2)")
	else
		command -v "$1" >/dev/null || problems+=("$1 ($2)")
	fi
}
need_file() { # need_file PATH what-installs-it
	[[ -f $1 ]] || problems+=("$1 ($2)")
}
need /usr/sbin/sshd "apt-get install -y openssh-server"
need ssh "apt-get install -y openssh-client"
need ssh-keygen "apt-get install -y openssh-client"
need /usr/bin/sudo "apt-get install -y sudo"
need make "apt-get install -y make"
need gcc "apt-get install -y gcc"
need_file /usr/include/stdio.h "apt-get install -y libc6-dev"
need git "apt-get install -y git"
need_file /etc/ssl/certs/ca-certificates.crt "apt-get install -y ca-certificates"
need ip "apt-get install -y iproute2"
need unshare "apt-get install -y util-linux"
need chroot "apt-get install -y coreutils"
need useradd "apt-get install -y passwd"
need pgrep "apt-get install -y procps"
need shellcheck "apt-get install -y shellcheck"
need jq "apt-get install -y jq"
need /usr/bin/containerd "apt-get install -y containerd"
need /usr/bin/runc "apt-get install -y runc"
need /usr/bin/wg "apt-get install -y wireguard-tools"
need /usr/bin/gpg "apt-get install -y gpg"
need /usr/bin/curl "apt-get install -y curl"
need /usr/bin/pg_ctlcluster "apt-get install -y postgresql"
need /usr/bin/psql "apt-get install -y postgresql-client"
need /usr/sbin/iscsiadm "apt-get install -y open-iscsi"
need /usr/sbin/mount.nfs "apt-get install -y nfs-common"
need /usr/bin/aws "apt-get install -y awscli"
need /usr/bin/s3cmd "apt-get install -y s3cmd"

# Go: on PATH (or the official tarball's /usr/local/go) and at least the
# version go.mod names, since no toolchain can be downloaded here.
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
	PATH="/usr/local/go/bin:$PATH"
fi
want_go=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$root/go.mod")
if ! command -v go >/dev/null; then
	problems+=("go $want_go or newer (install Go and put its bin directory on PATH)")
else
	have_go=$(GOTOOLCHAIN=local go env GOVERSION)
	have_go=${have_go#go}
	if [[ $(printf '%s\n%s\n' "$want_go" "$have_go" | sort -V | head -n1) != "$want_go" ]]; then
		problems+=("go $want_go or newer (found go $have_go; go.mod needs $want_go)")
	fi
fi

if [[ $(id -u) -ne 0 ]]; then
	problems+=("root (the test hosts mount overlays and start sshd in chroots: run as root, e.g. sudo make ...)")
fi
if ! grep -qw overlay /proc/filesystems 2>/dev/null; then
	modprobe overlay 2>/dev/null || true
	grep -qw overlay /proc/filesystems 2>/dev/null || problems+=("overlayfs in the kernel (modprobe overlay)")
fi

if ((${#problems[@]})); then
	echo "prereqs: missing before anything is built:"
	printf '  %s\n' "${problems[@]}"
	exit 1
fi
echo "prereqs: ok (${packages[*]}, go $have_go, root, overlayfs)"
