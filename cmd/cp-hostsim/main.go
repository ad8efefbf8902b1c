// Command cp-hostsim is the host simulator installed into test hosts: a
// multi-call binary that emulates kubeadm, kubectl, kubelet, crictl, helm,
// systemctl, apt-get and a few kernel tools (see internal/hostsim).
package main

import (
	"os"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

func main() {
	os.Exit(hostsim.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
