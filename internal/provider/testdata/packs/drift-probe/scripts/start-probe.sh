#!/usr/bin/env bash
# Writes the probe's flag and records each run in start.log.
set -euo pipefail
install -d -m 0755 /var/lib/drift-probe
printf 'up\n' >/var/lib/drift-probe/flag
printf 'start %s\n' "$CP_HOST" >>/var/lib/drift-probe/start.log
