#!/usr/bin/env bash
# The engine's fan-out bench (issue "The embedded DAG engine"): 50 real
# OpenSSH test hosts on 127.0.0.2.., 20 short jobs per host each with one
# evidence, parallelism 50. Prints the engine's wall time against the ideal
# (the critical path times one job run as one SSH command; see
# BenchmarkFanOut50x20 in internal/engine/fanout_bench_test.go), against
# drivers with no bookkeeping at all (a session per command, and the
# transport's shells), and against ansible-playbook running the same
# commands (forks 50, pipelining, ControlMaster/ControlPersist), with the
# machine's CPU time and processes per job for each. Needs root,
# openssh-server, sudo; installs ansible-core with apt-get when it is
# missing.
#
# Usage: internal/engine/bench/fanout.sh [HOSTS] [RUNS]   (defaults 50 and 1)
# Env:   CP_BENCH_ANSIBLE=0 skips Ansible; CP_BENCH_STATE_BECOME=1 keeps the
#        engine's state under /var/lib through sudo.
set -euo pipefail
cd "$(dirname "$0")/../../.."
hosts="${1:-50}"
runs="${2:-1}"
if [ "${CP_BENCH_ANSIBLE:-1}" != 0 ] && ! command -v ansible-playbook >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y ansible-core >/dev/null
fi
# The hosts are stopped by the benchmark's cleanup; a killed run leaves a
# directory that `go run ./cmd/cp-testhosts down -dir DIR` ends.
CP_BENCH_HOSTS="$hosts" go test -count=1 -run '^$' -timeout 60m \
	-bench '^BenchmarkFanOut50x20$' -benchtime "${runs}x" ./internal/engine/
