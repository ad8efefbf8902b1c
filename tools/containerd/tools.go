//go:build tools

// Package tools pins containerd, whose daemon, ctr and runc shim the test
// hosts install for the kubernetes pack's containerd.io package (Docker's
// apt repository): the real containerd of the version the pack defaults to.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
