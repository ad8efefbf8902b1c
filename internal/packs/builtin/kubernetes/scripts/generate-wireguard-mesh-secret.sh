#!/usr/bin/env bash
# Creates the cluster's WireGuard mesh secret once; every node derives all
# mesh keys from it, so adding a node needs no key exchange.
set -euo pipefail

state=/var/lib/cp/kubernetes
secret="$state/wireguard-mesh.secret"
mkdir -p "$state"
umask 077
if [[ ! -s "$secret" ]]; then
  head -c 32 /dev/urandom | base64 >"$secret.tmp"
  mv "$secret.tmp" "$secret"
  echo "generate-wireguard-mesh-secret: created"
else
  echo "generate-wireguard-mesh-secret: kept the existing secret"
fi
cp "$secret" "$CP_OUTPUT_DIR/wireguard.mesh_secret"
