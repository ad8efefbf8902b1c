#!/usr/bin/env bash
# Renews every kubeadm certificate of this master with `kubeadm certs renew
# all`, then restarts the control-plane static pods as kubeadm's
# certificate-management guide says (they do not all reload certificates):
# each manifest leaves /etc/kubernetes/manifests for longer than the
# kubelet's 20s file check, then comes back, and the API must answer again.
# One master at a time (controls.serial), so the API stays up on HA.
set -euo pipefail

fail() { echo "renew-certificates on ${CP_HOST:-?}: $*" >&2; exit 1; }

kubeadm certs renew all
manifests=/etc/kubernetes/manifests
held=/var/lib/cp/kubernetes/renew-manifests
install -d -m 0700 "$held"
for m in kube-apiserver kube-controller-manager kube-scheduler etcd; do
  if [[ -e "$held/$m.yaml" && ! -e "$manifests/$m.yaml" ]]; then
    mv -f "$held/$m.yaml" "$manifests/$m.yaml" # left by an interrupted run
  fi
  [[ -e "$manifests/$m.yaml" ]] || fail "$manifests/$m.yaml is missing; this is not a kubeadm master with a stacked etcd"
  mv -f "$manifests/$m.yaml" "$held/$m.yaml"
  sleep 25
  mv -f "$held/$m.yaml" "$manifests/$m.yaml"
  # The next pod goes down only once the API answers again.
  deadline=$((SECONDS + 300))
  until kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw=/readyz >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "the API server did not answer /readyz within 5m after $m restarted"
    sleep 5
  done
done
date -u +%s >/var/lib/cp/kubernetes/certificates-renewed
echo "renew-certificates: certificates of $CP_HOST renewed; control-plane pods restarted"
