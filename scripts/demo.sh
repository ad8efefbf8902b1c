#!/usr/bin/env bash
# The README's main job (`make demo`): start eight local test hosts (real
# OpenSSH servers on loopback addresses, each in its own filesystem view,
# with the tools that cannot run here emulated by the host simulator), then
# `tofu plan` and `tofu apply` examples/quickstart against them with the
# provider built into bin/.
#   scripts/demo.sh up     hosts up, plan, apply, outputs
#   scripts/demo.sh down   hosts down (the demo cluster lives only in them)
set -euo pipefail
. "$(dirname "$0")/tofu-env.sh"
cd "$root"
demo="$root/.demo"
work="$demo/quickstart"
hosts="$demo/hosts"
testhosts="$bin/cp-testhosts"

if [[ $(id -u) -ne 0 ]]; then
	echo "the demo starts sshd in per-host filesystem views and needs root (sudo make demo)" >&2
	exit 1
fi
# `make demo` ran this before building; run directly, the script checks too.
"$root/scripts/prereqs.sh" --check

# The hosts' sshd port: 22 on their loopback addresses, unless something
# listens on port 22 of every address, as the machine's own sshd does once
# openssh-server is installed on a machine that starts services (its
# wildcard listener takes 22 on 127.0.0.N too); then 2222. DEMO_SSH_PORT
# sets it.
demo_port() {
	local port=${DEMO_SSH_PORT:-}
	if [[ -z $port ]]; then
		port=22
		if ss -Hltn 'sport = :22' | awk '{print $4}' | grep -qxE '(0\.0\.0\.0|\*|\[::\]):22'; then
			port=2222
			echo "== port 22 is taken on every address (this machine's sshd): the test hosts listen on $port" >&2
		fi
	fi
	if [[ ! $port =~ ^[1-9][0-9]{0,4}$ ]] || ((port > 65535)); then
		echo "DEMO_SSH_PORT must be a port number between 1 and 65535, not $(printf '%q' "$port")" >&2
		return 1
	fi
	echo "$port"
}

case "${1:-up}" in
up)
	port=$(demo_port)
	go build -o "$testhosts" ./cmd/cp-testhosts
	# cp-testhosts takes the simulator beside it: build it too, so a copy
	# left from an older checkout is never the one the hosts run.
	go build -o "$bin/cp-hostsim" ./cmd/cp-hostsim
	if [[ -f "$hosts/ready.json" ]]; then
		"$testhosts" down -dir "$hosts" >/dev/null 2>&1 || true
	fi
	echo "== starting 8 test hosts (master-1..3, worker-1..5) in $hosts"
	"$testhosts" up -dir "$hosts" -simulator -cluster prod-k8s -port "$port" \
		-names master-1,master-2,master-3,worker-1,worker-2,worker-3,worker-4,worker-5 >"$demo.hosts.json"
	mkdir -p "$work"
	cp -r examples/quickstart/. "$work/"
	# Host addresses and SSH settings for the quickstart's variables.
	go run ./scripts/tfvars <"$demo.hosts.json" >"$work/terraform.tfvars.json"
	cd "$work"
	rm -f terraform.tfstate terraform.tfstate.backup
	echo "== tofu plan (examples/quickstart)"
	"$tofu" plan -no-color -out=demo.tfplan
	echo "== tofu apply"
	"$tofu" apply -no-color -auto-approve demo.tfplan
	echo "== a second plan has nothing to do"
	"$tofu" plan -no-color -detailed-exitcode >/dev/null && echo "No changes."
	echo "== outputs"
	"$tofu" output -no-color
	echo
	echo "The hosts keep running: ssh -p $port -i $hosts/id_ed25519 -o UserKnownHostsFile=$hosts/known_hosts cp@<address>"
	echo "Stop them with: make demo-down"
	;;
down)
	if [[ -x "$testhosts" && -d "$hosts" ]]; then
		"$testhosts" down -dir "$hosts"
	fi
	rm -rf "$demo" "$demo.hosts.json"
	;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
