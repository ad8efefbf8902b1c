#!/usr/bin/env bash
# plan-scale.sh: `tofu plan` of a kubernetes create of N nodes (3 masters,
# N-3 workers) end to end, through the provider built from this tree.
#
#   internal/provider/bench/plan-scale.sh [NODES...]     (default: 10 1000 5000)
#
# For each count it writes the configuration, runs `tofu plan -no-color`
# once and prints one line: the wall time of tofu plan, the CPU time of
# tofu and its providers (what a loaded machine inflates less than wall
# time) and of the providers alone, the peak resident
# memory of tofu (its VmHWM, read while it runs) and of the provider (each
# provider process is started under GNU time by a wrapper that the dev
# override points at; the largest is shown), their sum, the plan's lines,
# and its lines without OpenTofu's echo of the hosts list (4 lines per
# host).
# No host is contacted: plan makes no SSH connection.
#
# With INVENTORY=1 each count is planned twice in the same run: with the
# hosts inline (mode=inline, the anchor) and with the same hosts in a
# YAML inventory file (mode=inventory: inventory_file, whose hosts the
# plan does not list); INVENTORY=only plans the inventory mode alone.
#
# TOFU names the OpenTofu binary (default: bin/tofu of the tree); with
# KEEP set, the scratch directory (configurations, plans, GNU time's
# reports) is kept and named on stderr. With PPROF=ADDR (e.g.
# 127.0.0.1:6060) the provider is built with -tags pprof and serves
# net/http/pprof on ADDR during the plan (see pprof_server.go), e.g.
# curl -o cpu.pb.gz "http://$PPROF/debug/pprof/profile?seconds=20".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
tofu=${TOFU:-$root/bin/tofu}
counts=("$@")
if [ "${#counts[@]}" -eq 0 ]; then
	counts=(10 1000 5000)
fi
for n in "${counts[@]}"; do
	case "$n" in
	'' | *[!0-9]*)
		echo "plan-scale.sh: node count '$n' is not a number; pass counts like 10 1000 5000" >&2
		exit 2
		;;
	esac
	if [ "$n" -lt 4 ] || [ "$n" -gt 60000 ]; then
		echo "plan-scale.sh: node count $n: want 4 to 60000 (3 masters and at least one worker)" >&2
		exit 2
	fi
done
if [ ! -x "$tofu" ]; then
	echo "plan-scale.sh: OpenTofu not found at $tofu; build it (make tofu) or set TOFU" >&2
	exit 2
fi
if ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "plan-scale.sh: GNU time (/usr/bin/time -v) is needed for peak memory; install the time package" >&2
	exit 2
fi

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf -- "$work"' EXIT
[ -z "${KEEP:-}" ] || echo "plan-scale.sh: keeping $work" >&2
mkdir -p "$work/plugins" "$work/rss"
tags=()
if [ -n "${PPROF:-}" ]; then
	tags=(-tags pprof)
	export CP_PPROF="$PPROF"
fi
(cd "$root" && go build "${tags[@]}" -o "$work/plugins/provider.real" .)
# The wrapper keeps the provider's stdout (the plugin handshake) and
# writes GNU time's report to a file of its own per process.
cat >"$work/plugins/terraform-provider-cp" <<WRAP
#!/bin/sh
exec /usr/bin/time -v -o "$work/rss/provider.\$\$" "$work/plugins/provider.real" "\$@"
WRAP
chmod +x "$work/plugins/terraform-provider-cp"
cat >"$work/cli.tfrc" <<RC
provider_installation {
  dev_overrides { "intentops/cp" = "$work/plugins" }
  direct {}
}
RC
: >"$work/id_ed25519"
chmod 600 "$work/id_ed25519"
: >"$work/known_hosts"

# hosts PREFIX COUNT BASE: an HCL list of COUNT hosts PREFIX-1.. on
# 10.BASE.x.y.
hosts() {
	awk -v p="$1" -v n="$2" -v b="$3" 'BEGIN {
		printf "["
		for (i = 0; i < n; i++) {
			if (i > 0) printf ", "
			printf "{ name = \"%s-%d\", address = \"10.%d.%d.%d\" }", p, i + 1, b, int(i / 250) % 250, i % 250 + 1
		}
		printf "]"
	}'
}

# inventory COUNT: a YAML inventory of 3 masters and COUNT-3 workers, the
# same hosts as the inline lists.
inventory() {
	awk -v n="$1" 'BEGIN {
		print "masters:"
		for (i = 0; i < 3; i++) printf "  - { name: master-%d, address: 10.0.%d.%d }\n", i + 1, int(i / 250) % 250, i % 250 + 1
		print "workers:"
		for (i = 0; i < n - 3; i++) printf "  - { name: worker-%d, address: 10.1.%d.%d }\n", i + 1, int(i / 250) % 250, i % 250 + 1
	}'
}

modes=(inline)
case "${INVENTORY:-}" in
'') ;;
only) modes=(inventory) ;;
*) modes=(inline inventory) ;;
esac

kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
# cpu_s FILE: user plus system seconds of a GNU time report.
cpu_s() {
	awk -F': ' '/^[[:space:]]*(User|System) time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$1"
}

for n in "${counts[@]}"; do
for mode in "${modes[@]}"; do
	dir="$work/n$n-$mode"
	mkdir -p "$dir"
	rm -f "$work"/rss/provider.*
	if [ "$mode" = inventory ]; then
		inventory "$n" >"$dir/hosts.yaml"
		# shellcheck disable=SC2016 # ${path.module} is HCL, for OpenTofu
		host_hcl='inventory_file           = "${path.module}/hosts.yaml"'
	else
		host_hcl="masters                  = $(hosts master 3 0)
  workers                  = $(hosts worker $((n - 3)) 1)"
	fi
	cat >"$dir/main.tf" <<HCL
terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}

provider "cp" {
  environment = "prod"
  actor       = "ci"
  actor_roles = ["sre", "platform_admin"]
  ssh = {
    user             = "deploy"
    private_key_file = "$work/id_ed25519"
    known_hosts_file = "$work/known_hosts"
  }
}

resource "cp_kubernetes_cluster" "bench" {
  name                     = "bench"
  region                   = "eu-central"
  require_ha_control_plane = true
  cni                      = "calico"
  container_runtime        = "containerd"
  storage                  = "longhorn"
  pod_cidr                 = "100.64.0.0/10"
  $host_hcl
  parameters               = { control_plane_endpoint = "api.bench.internal:6443" }
}
HCL
	# tofu runs in the background under GNU time (wall and CPU time, its
	# providers' included) so that its own peak (VmHWM) can be read while
	# it runs: GNU time's peak for a process includes the largest child it
	# waited for, here the provider.
	(cd "$dir" && TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1 exec /usr/bin/time -v -o "$work/tofu.time" \
		"$tofu" plan -no-color -input=false >"$dir/plan.out" 2>&1) &
	pid=$!
	tofu_kb=0
	while kill -0 "$pid" 2>/dev/null; do
		for c in $(pgrep -P "$pid" 2>/dev/null || true); do
			k=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$c/status" 2>/dev/null || true)
			if [ -n "$k" ] && [ "$k" -gt "$tofu_kb" ]; then
				tofu_kb=$k
			fi
		done
		sleep 0.05
	done
	if ! wait "$pid"; then
		echo "plan-scale.sh: tofu plan of $n nodes failed:" >&2
		tail -40 "$dir/plan.out" >&2
		exit 1
	fi
	wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/tofu.time")
	cpu=$(cpu_s "$work/tofu.time")
	prov_kb=0
	prov_cpu=0
	for f in "$work"/rss/provider.*; do
		[ -f "$f" ] || continue
		k=$(kb "$f")
		if [ -n "$k" ] && [ "$k" -gt "$prov_kb" ]; then
			prov_kb=$k
		fi
		prov_cpu=$(awk -v a="$prov_cpu" -v b="$(cpu_s "$f")" 'BEGIN { printf "%.2f", a + b }')
	done
	lines=$(wc -l <"$dir/plan.out")
	# OpenTofu echoes each host as 4 lines: "{", address, name, "},".
	host_lines=$(grep -cE '^ *\+ (address|name) += "(10\.|master-|worker-)' "$dir/plan.out" || true)
	echo "mode=$mode nodes=$n tofu_plan_wall=$wall cpu_s=$cpu provider_cpu_s=$prov_cpu tofu_max_rss_mb=$((tofu_kb / 1024)) provider_max_rss_mb=$((prov_kb / 1024)) sum_max_rss_mb=$(((tofu_kb + prov_kb) / 1024)) plan_lines=$lines plan_lines_without_hosts=$((lines - host_lines * 2))"
done
done
