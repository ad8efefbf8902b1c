package hostsim

import "testing"

// A mirror of the Kubernetes repository laid out as pkgs.k8s.io is
// (.../v1.NN/deb/) picks the Kubernetes packages' minor, as the upstream
// repository does; apt-get update lists it.
func TestAptKubernetesMirrorMinor(t *testing.T) {
	e := newEnv(t)
	e.write("w", "/etc/apt/sources.list.d/kubernetes.list", "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://apt.mirror.internal/k8s/v1.34/deb/ /\n")
	contains(t, e.must("w", "apt-get", "update"), "Hit:1 https://apt.mirror.internal/k8s/v1.34/deb/ InRelease")
	contains(t, e.must("w", "apt-get", "install", "-y", "kubeadm=1.34.2-*"), "Setting up kubeadm (1.34.2-1.1)")
}
