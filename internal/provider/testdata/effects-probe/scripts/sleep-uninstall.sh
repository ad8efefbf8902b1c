#!/usr/bin/env bash
# Sleeps 25 seconds before it marks the uninstall done; the sleep's pid is
# kept so the test can look for the process after a timeout stopped it.
set -euo pipefail
install -d -m 0755 /var/lib/effects-probe
echo run >>/var/lib/effects-probe/uninstall-runs
echo "uninstall sleeping 25s"
sleep 25 &
echo "$!" >/var/lib/effects-probe/sleep.pid
wait "$!"
echo yes >/var/lib/effects-probe/uninstalled
