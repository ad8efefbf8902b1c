// Package hostsim is the host simulator: one multi-call program (cp-hostsim)
// that stands in, inside test hosts, for the tools that cannot run on the
// test machine — kubeadm, kubectl, crictl, helm, systemctl, apt-get,
// sysctl, modprobe, swapoff and wg show — and for the parts of getent and
// curl that need the internet (registry names, apt repository keys).
// containerd, ctr, runc and the rest of wg are Debian's real programs. It dispatches on the basename of argv[0], through the
// table of scope.go: what the builtin packs run, and nothing else.
//
// The hosts of one simulated cluster share a JSON state file (guarded by
// flock) in a directory bind-mounted at StateDirInHost; faults switched on
// in that state make simulated commands fail the way the real ones do.
// README.md in this directory says what is emulated and how it differs
// from the real tools.
package hostsim
