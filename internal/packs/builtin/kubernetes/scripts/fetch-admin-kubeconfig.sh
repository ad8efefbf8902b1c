#!/usr/bin/env bash
# Copies the cluster admin kubeconfig of a master into $CP_OUTPUT_DIR.
set -euo pipefail

admin=/etc/kubernetes/admin.conf
[[ -s "$admin" ]] || { echo "fetch-admin-kubeconfig: $admin is missing on $CP_HOST; is it a master?" >&2; exit 1; }
umask 077
cp "$admin" "$CP_OUTPUT_DIR/kubeconfig.admin"
echo "fetch-admin-kubeconfig: copied from $CP_HOST"
