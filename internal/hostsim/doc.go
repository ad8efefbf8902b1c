// Package hostsim is the host simulator: one multi-call program (cp-hostsim)
// that stands in, inside test hosts, for the tools that cannot run on the
// test machine — kubeadm, kubectl, kubelet, crictl, containerd, helm,
// systemctl, apt-get, sysctl, modprobe, swapoff, wg and wg-quick — and for
// the parts of getent and curl that need the internet (registry names, apt
// repository keys). It dispatches on the basename of argv[0].
//
// The hosts of one simulated cluster share a JSON state file (guarded by
// flock) in a directory bind-mounted at StateDirInHost; faults switched on
// in that state make simulated commands fail the way the real ones do.
// README.md in this directory lists exactly what is emulated.
package hostsim
