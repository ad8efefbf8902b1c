#!/usr/bin/env bash
# Sleeps 25 seconds; the sleep's pid is kept so the test can look for the
# process on the host after a timeout stopped the job.
set -euo pipefail
install -d -m 0755 /var/lib/timeout-probe
echo run >>/var/lib/timeout-probe/sleep-runs
echo "sleeping 25s"
sleep 25 &
echo "$!" >/var/lib/timeout-probe/sleep.pid
wait "$!"
echo yes >/var/lib/timeout-probe/slept
