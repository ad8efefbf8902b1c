#!/usr/bin/env bash
# The injection fuzz test in full: every payload of testdata/payloads.txt
# in every parameter of every built-in pack is planned, and every one that
# plan accepts and that reaches a host is applied on test hosts; the run
# fails on any canary or smuggled line. Needs root (test hosts).
#   internal/e2e/bench/inject.sh          # full log in /tmp/cp-inject.log
set -euo pipefail
cd "$(dirname "$0")/.."
log=${LOG:-/tmp/cp-inject.log}
rc=0
TF_ACC=1 CP_INJECT_FULL=1 go test -count=1 -timeout 180m -run 'TestInjection' -v . >"$log" 2>&1 || rc=$?
grep -E 'plan stage:|^(--- |ok|FAIL|PASS)' "$log" || true
exit "$rc"
