// Package testhosts starts local test hosts for tests, benchmarks and the
// demo: each host is a real OpenSSH server (Debian's /usr/sbin/sshd) on its
// own loopback address, chrooted into its own overlay view of the machine's
// root filesystem, so writes on one host land only in that host's upper
// directory.
//
// Every host runs in its own mount and UTS namespace (created with
// unshare(1)); the overlay, /dev, /proc and the bind mounts exist only in
// that namespace and disappear with the host's last process, so a crashed
// run leaves no mounts behind on the machine.
//
// Starting hosts needs root, unshare(1), chroot(1) and sshd. Require skips a
// test when these are missing, unless CI=true, in which case it fails.
package testhosts
