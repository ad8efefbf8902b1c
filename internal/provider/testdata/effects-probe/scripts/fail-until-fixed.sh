#!/usr/bin/env bash
# Fails until the test marks the host fixed; counts its runs, so the test
# sees the resumed create run it again.
set -euo pipefail
install -d -m 0755 /var/lib/effects-probe
echo run >>/var/lib/effects-probe/check-runs
if [ ! -f /var/lib/effects-probe/fixed ]; then
  echo "effects-probe: /var/lib/effects-probe/fixed is missing" >&2
  exit 1
fi
echo yes >/var/lib/effects-probe/done
