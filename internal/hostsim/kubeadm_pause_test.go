package hostsim

import (
	"strings"
	"testing"
)

// TestKubeadmImagesListPauseOfTheInstalledKubeadm: the pause image kubeadm
// config images list names is the installed kubeadm's (3.10 up to 1.33,
// 3.10.1 from 1.34), whatever --kubernetes-version asks, as the real
// kubeadm's is a constant of its binary; an upgrade of kubeadm across
// 1.34 changes it.
func TestKubeadmImagesListPauseOfTheInstalledKubeadm(t *testing.T) {
	const repo = "mirror.internal:5000/k8s"
	e := newEnv(t)
	for _, c := range []struct{ kubeadm, asked, want string }{
		{"1.33.6", "v1.33.6", repo + "/pause:3.10\n"},
		{"1.34.2", "v1.34.2", repo + "/pause:3.10.1\n"},
		{"1.34.2", "v1.33.6", repo + "/pause:3.10.1\n"},
	} {
		e.must("master-1", "apt-get", "install", "-y", "--allow-change-held-packages", "kubeadm="+c.kubeadm+"-*")
		r := e.must("master-1", "kubeadm", "config", "images", "list", "--kubernetes-version", c.asked, "--image-repository", repo)
		if got := strings.Count(r.out, "/pause:"); got != 1 || !strings.Contains(r.out, c.want) {
			t.Errorf("kubeadm %s, images of %s: want one %s got:\n%s", c.kubeadm, c.asked, strings.TrimSpace(c.want), r.out)
		}
	}
}
