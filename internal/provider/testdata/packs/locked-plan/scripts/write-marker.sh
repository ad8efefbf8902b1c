#!/usr/bin/env bash
# Writes the locked plan's marker.
set -euo pipefail
install -d -m 0755 /var/lib/locked-plan
printf 'present\n' >/var/lib/locked-plan/marker
