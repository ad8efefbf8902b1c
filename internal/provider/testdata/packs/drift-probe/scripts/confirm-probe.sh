#!/usr/bin/env bash
# Confirms the probe after its flag is up and records each run in
# confirm.log.
set -euo pipefail
test "$(cat /var/lib/drift-probe/flag)" = up
touch /var/lib/drift-probe/confirmed
printf 'confirm %s\n' "$CP_HOST" >>/var/lib/drift-probe/confirm.log
