#!/usr/bin/env bash
# Benchmarks of the SSH transport against real local sshd instances (needs
# root, openssh-server, openssh-client and sudo):
#   - BenchmarkRunTrue: one `true` on a reused connection, p50/p99 latency,
#     in the pool's shells and in a session of its own, beside a round trip
#     through sshd, a bare SSH session and OpenSSH through a ControlMaster;
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
function metric(name,   i) { for (i = 1; i <= NF; i++) if ($i == name) return $(i-1); return "" }
/^BenchmarkRunTrue/ { p50 = metric("p50-ms"); p99 = metric("p99-ms"); echo = metric("bare-echo-p50-ms"); ov = metric("overhead-p50-ms")
	s50 = metric("session-p50-ms"); s99 = metric("session-p99-ms"); bare = metric("bare-session-p50-ms"); sov = metric("session-overhead-p50-ms")
	lp50 = metric("loginsh-p50-ms"); mux = metric("openssh-mux-p50-ms"); loc = metric("local-spawn-p50-ms") }
/^BenchmarkFanOut\/cp-session-per-command/ { cps = $3; next }
/^BenchmarkFanOut\/cp/      { cp = $3 }
/^BenchmarkFanOut\/openssh/ { os = $3 }
END {
	printf "\nrun `true` on a reused connection (the pool'\''s shells): p50 %s ms, p99 %s ms\n", p50, p99
	printf "  one line echoed by a running session (a round trip through sshd): p50 %s ms; this package adds %s ms\n", echo, ov
	printf "  in a session of its own: p50 %s ms, p99 %s ms; a bare SSH session running `true`: p50 %s ms; this package adds %s ms\n", s50, s99, bare, sov
	printf "  with Host.LoginShellSh (no sh -c wrapper): p50 %s ms\n", lp50
	printf "  OpenSSH `ssh true` through a connected ControlMaster: p50 %s ms; sh -c '\''exec sh -c true'\'' spawned locally: p50 %s ms\n", mux, loc
	if (cp > 0 && os > 0)
		printf "fan-out 50 hosts x 20 commands, parallelism 50: cp %.2f s (a session per command: %.2f s), OpenSSH ControlMaster %.2f s: %.2fx faster\n", cp / 1e9, cps / 1e9, os / 1e9, os / cp
}' "$out"
