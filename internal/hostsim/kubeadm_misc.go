package hostsim

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// kubeadmUploadCerts is kubeadm init phase upload-certs: with
// --upload-certs it stores a new certificate key (valid 2h) and the
// kube-system/kubeadm-certs Secret, and prints the key; without, kubeadm
// skips the phase.
func (s *sim) kubeadmUploadCerts(p flags) int {
	if !p.has("upload-certs") {
		s.printf("[upload-certs] Skipping phase. Please see --upload-certs\n")
		return 0
	}
	code := 0
	err := s.st.update(func(st *State) error {
		if msg := s.kubeadmAdmin(st, p); msg != "" {
			code = s.fail(1, "error execution phase upload-certs: %s", msg)
			return nil
		}
		if st.API.Host != s.host.Host && !s.exists("/etc/kubernetes/pki/ca.key") {
			code = s.fail(1, "error execution phase upload-certs: error uploading certs: failed to load certificates: couldn't load the certificate file /etc/kubernetes/pki/ca.crt")
			return nil
		}
		key := randomHex(32)
		st.CertificateKey, st.CertKeyExpires = key, s.now().Add(2*time.Hour)
		// The Secret kubeadm stores the encrypted certificates in, as
		// kubectl lists it (its 2h expiry is the key's, checked by join).
		data := map[string]any{}
		for _, f := range []string{"ca.crt", "ca.key", "etcd-ca.crt", "etcd-ca.key", "front-proxy-ca.crt", "front-proxy-ca.key", "sa.key", "sa.pub"} {
			data[f] = base64.StdEncoding.EncodeToString([]byte(randomHex(32)))
		}
		st.putObject(&Object{APIVersion: "v1", Kind: "Secret", Namespace: "kube-system", Name: "kubeadm-certs", Created: s.now(), Generation: 1,
			Body: map[string]any{"type": "Opaque", "data": data}})
		s.printf("[upload-certs] Storing the certificates in Secret \"kubeadm-certs\" in the \"kube-system\" Namespace\n[upload-certs] Using certificate key:\n%s\n", key)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm init phase: %v", err)
	}
	return code
}

// minor returns the minor number of "v1.31.2".
func minor(v string) int {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

// versionLess compares "v1.31.2" style versions.
func versionLess(a, b string) bool {
	pa := strings.Split(strings.TrimPrefix(a, "v"), ".")
	pb := strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < 3; i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// kubeadmUpgradeApply is kubeadm upgrade apply VERSION [-y]: kubeadm
// must be at least VERSION, one minor above the cluster at most, no
// downgrade; without -y it asks on stdin.
func (s *sim) kubeadmUpgradeApply(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "[preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		if msg := s.kubeadmAdmin(st, p); msg != "" {
			code = s.fail(1, "[upgrade/config] FATAL: %s", msg)
			return nil
		}
		have := s.installedKubeadm(hs)
		target := p.arg(2)
		if target == "" {
			code = s.fail(1, "[upgrade/version] FATAL: missing one or more required arguments. Required arguments: [version]")
			return nil
		}
		if !strings.HasPrefix(target, "v") {
			target = "v" + target
		}
		switch {
		case versionLess(have, target):
			code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is higher than the kubeadm version %q. Upgrade kubeadm first using the tool you used to install kubeadm\n\nPlease fix the misalignments highlighted above and try upgrading again", target, have)
			return nil
		case minor(target) > minor(st.API.Version)+1:
			code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is too high; kubeadm can upgrade only 1 minor version at a time\n", target)
			return nil
		case versionLess(target, st.API.Version):
			code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is an unsupported version, downgrades need --allow-downgrades", target)
			return nil
		}
		if !p.has("y") {
			s.printf("[upgrade] Are you sure you want to proceed? [y/N]: ")
			buf := make([]byte, 16)
			n, _ := s.stdin.Read(buf)
			if a := strings.ToLower(strings.TrimSpace(string(buf[:n]))); a != "y" && a != "yes" {
				code = s.fail(1, "won't proceed; the user didn't answer (Y|y) in order to continue")
				return nil
			}
		}
		if s.reportPreflight(s.pullImages(st, hs, controlPlaneImages(target))) {
			code = 1
			return nil
		}
		st.API.Version = target
		if err := s.writeStaticPodManifests(target); err != nil {
			return err
		}
		s.printf("[upgrade/version] You have chosen to change the cluster version to %q\n[upgrade/versions] Cluster version: %s\n[upgrade/versions] kubeadm version: %s\n[upgrade/staticpods] Writing new Static Pod manifests to \"/etc/kubernetes/tmp\"\n[upgrade/successful] SUCCESS! Your cluster was upgraded to %q. Enjoy!\n\n[upgrade/kubelet] Now that your control plane is upgraded, please proceed with upgrading your kubelets if you haven't already done so.\n", target, target, have, target)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm upgrade: %v", err)
	}
	return code
}

// kubeadmUpgradeNode is kubeadm upgrade node: the node must be registered
// (it talks to the API server with its kubelet.conf).
func (s *sim) kubeadmUpgradeNode(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "[preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	found := false
	version := ""
	err := s.st.view(func(st *State) error {
		for _, n := range st.Nodes {
			found = found || n.Host == s.host.Host
		}
		if st.API != nil {
			version = st.API.Version
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm upgrade: %v", err)
	}
	if !found {
		return s.fail(1, "error execution phase preflight: couldn't create a Kubernetes client from file \"/etc/kubernetes/kubelet.conf\": failed to load admin kubeconfig: open /etc/kubernetes/kubelet.conf: no such file or directory")
	}
	if s.exists("/etc/kubernetes/manifests/kube-apiserver.yaml") && version != "" {
		// A control-plane node: its static Pods move to the cluster's
		// version (kubeadm-config's, which upgrade apply set).
		if err := s.writeStaticPodManifests(version); err != nil {
			return s.fail(1, "cp-hostsim kubeadm upgrade: %v", err)
		}
		s.printf("[upgrade] Reading configuration from the cluster...\n[preflight] Running pre-flight checks\n[upgrade/staticpods] Writing new Static Pod manifests to \"/etc/kubernetes/tmp\"\n[upgrade] The control plane instance for this node was successfully updated!\n[upgrade] The configuration for this node was successfully updated!\n")
		return 0
	}
	s.printf("[upgrade] Reading configuration from the cluster...\n[preflight] Running pre-flight checks\n[upgrade] Skipping phase. Not a control plane node.\n[upgrade] Backing up kubelet config file to /etc/kubernetes/tmp/kubeadm-kubelet-config.yaml\n[kubelet-start] Writing kubelet configuration to file \"/var/lib/kubelet/config.yaml\"\n[upgrade] The configuration for this node was successfully updated!\n[upgrade] Now you should go ahead and upgrade the kubelet package using your package manager.\n")
	return 0
}

func versionInfo(v string) string {
	return fmt.Sprintf(`&version.Info{Major:"1", Minor:"%d", GitVersion:"%s", GitCommit:"5864a4677267e6adeae276ad85882a8714d69d9d", GitTreeState:"clean", BuildDate:"2024-10-22T20:34:54Z", GoVersion:"go1.22.8", Compiler:"gc", Platform:"linux/amd64"}`, minor(v), v)
}

// kubeadmVersion is kubeadm version [-o short], of the installed package.
func (s *sim) kubeadmVersion(p flags) int {
	var v string
	_ = s.st.view(func(st *State) error {
		v = s.installedKubeadm(st.host(s.host.Host))
		return nil
	})
	if p.get("o") == "short" {
		s.printf("%s\n", v)
		return 0
	}
	s.printf("kubeadm version: %s\n", versionInfo(v))
	return 0
}

// kubeadmImagesList is kubeadm config images list [--kubernetes-version V]
// (default: the installed kubeadm's) [--image-repository R]: with R, every
// image is R/NAME:TAG, CoreDNS included (kubeadm drops its coredns/
// sub-path for a repository other than registry.k8s.io). The pause tag is
// the installed kubeadm's, whatever V (pauseTag).
func (s *sim) kubeadmImagesList(p flags) int {
	var v, installed string
	_ = s.st.view(func(st *State) error {
		installed = s.installedKubeadm(st.host(s.host.Host))
		v = firstNonEmpty(p.get("kubernetes-version"), installed)
		return nil
	})
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	repo := strings.TrimSuffix(p.get("image-repository"), "/")
	for _, i := range controlPlaneImages(v) {
		if strings.HasPrefix(i, "registry.k8s.io/pause:") {
			i = "registry.k8s.io/pause:" + pauseTag(installed)
		}
		if repo != "" && repo != "registry.k8s.io" {
			i = repo + "/" + i[strings.LastIndex(i, "/")+1:]
		}
		s.printf("%s\n", i)
	}
	return 0
}

// pauseTag is the pause image tag a kubeadm of version lists: a constant
// of the kubeadm binary, not of --kubernetes-version; kubeadm 1.34 moved
// from 3.10 to 3.10.1, so an upgrade across it names a new sandbox image.
func pauseTag(kubeadm string) string {
	var major, minor int
	if _, err := fmt.Sscanf(kubeadm, "v%d.%d", &major, &minor); err == nil && (major > 1 || minor >= 34) {
		return "3.10.1"
	}
	return "3.10"
}
