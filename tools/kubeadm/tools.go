//go:build tools

// Package tools pins kubeadm, built from the k8s.io/kubernetes module so that
// tests can check the configurations the packs render with the real tool. It
// is a module of its own: Kubernetes' dependency graph stays out of the one
// that builds OpenTofu.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kubeadm"
)
