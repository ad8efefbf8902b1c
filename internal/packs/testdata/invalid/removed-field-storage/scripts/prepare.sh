#!/usr/bin/env bash
set -euo pipefail
mkdir -p /var/lib/demo
echo "$CP_PARAM_GREETING" >/var/lib/demo/greeting
touch /var/lib/demo/marker
