#!/usr/bin/env bash
# Benchmarks of the SSH transport against real local sshd instances (needs
# root, openssh-server, openssh-client and sudo):
#   - BenchmarkRunTrue: one `true` on a reused connection, p50/p99 latency,
#     beside a bare SSH session and OpenSSH through a ControlMaster;
#   - BenchmarkFanOut: 50 hosts x 20 commands at parallelism 50, this
#     package's Pool against the OpenSSH client with ControlMaster=auto and
#     ControlPersist, each from a cold start.
# Usage: internal/transport/ssh/bench/bench-transport.sh [RUNS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
runs="${1:-2}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go test -count=1 -run '^$' -timeout 30m \
	-bench 'BenchmarkFanOut' -benchtime "${runs}x" \
	./internal/transport/ssh/ | tee "$out"
go test -count=1 -run '^$' -bench 'BenchmarkRunTrue' -benchtime 500x ./internal/transport/ssh/ | grep '^BenchmarkRunTrue' | tee -a "$out"
awk '
/^BenchmarkRunTrue/ { for (i = 1; i <= NF; i++) { if ($i == "p50-ms") p50 = $(i-1); if ($i == "p99-ms") p99 = $(i-1); if ($i == "overhead-p50-ms") ov = $(i-1); if ($i == "bare-session-p50-ms") bare = $(i-1); if ($i == "openssh-mux-p50-ms") mux = $(i-1); if ($i == "local-spawn-p50-ms") loc = $(i-1); if ($i == "loginsh-p50-ms") lp50 = $(i-1); if ($i == "loginsh-overhead-p50-ms") lov = $(i-1) } }
/^BenchmarkFanOut\/cp/      { cp = $3 }
/^BenchmarkFanOut\/openssh/ { os = $3 }
END {
	printf "\nrun `true` on a reused connection: p50 %s ms, p99 %s ms\n", p50, p99
	printf "  a bare SSH session running `true` on the same connection: p50 %s ms; this package adds %s ms\n", bare, ov
	printf "  with Host.LoginShellSh (no sh -c wrapper): p50 %s ms; this package adds %s ms\n", lp50, lov
	printf "  OpenSSH `ssh true` through a connected ControlMaster: p50 %s ms; sh -c '\''exec sh -c true'\'' spawned locally: p50 %s ms\n", mux, loc
	if (cp > 0 && os > 0)
		printf "fan-out 50 hosts x 20 commands, parallelism 50: cp %.2f s, OpenSSH ControlMaster %.2f s: %.2fx faster\n", cp / 1e9, os / 1e9, os / cp
}' "$out"
