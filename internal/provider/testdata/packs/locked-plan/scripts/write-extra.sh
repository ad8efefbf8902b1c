#!/usr/bin/env bash
# Writes the extra marker a patch would insert.
set -euo pipefail
install -d -m 0755 /var/lib/locked-plan
printf 'present\n' >/var/lib/locked-plan/extra
