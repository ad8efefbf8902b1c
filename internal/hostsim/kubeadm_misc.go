package hostsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

func (s *sim) kubeadmPhase(p flags) int {
	if p.arg(2) != "upload-certs" || !p.has("upload-certs") {
		return s.fail(1, "cp-hostsim kubeadm: only `kubeadm init phase upload-certs --upload-certs` is simulated among init phases")
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
		key := firstNonEmpty(p.get("certificate-key"), randomHex(32))
		st.CertificateKey, st.CertKeyExpires = key, s.now().Add(2*time.Hour)
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

func (s *sim) kubeadmUpgrade(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "[preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		// `upgrade node` talks to the API server with the node's own
		// kubelet.conf (checked below); plan and apply need admin.conf.
		if p.arg(1) != "node" {
			if msg := s.kubeadmAdmin(st, p); msg != "" {
				code = s.fail(1, "[upgrade/config] FATAL: %s", msg)
				return nil
			}
		}
		have := s.installedKubeadm(hs)
		switch p.arg(1) {
		case "plan":
			s.printf("[upgrade/config] Reading configuration from the cluster...\n[upgrade] Running cluster health checks\n[upgrade] Fetching available versions to upgrade to\n[upgrade/versions] Cluster version: %s\n[upgrade/versions] kubeadm version: %s\n", st.API.Version, have)
			return nil
		case "apply":
			target := p.arg(2)
			if !strings.HasPrefix(target, "v") {
				target = "v" + target
			}
			if target == "v" {
				code = s.fail(1, "[upgrade/version] FATAL: missing one or more required arguments. Required arguments: [version]")
				return nil
			}
			if versionLess(have, target) {
				code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is higher than the kubeadm version %q. Upgrade kubeadm first using the tool you used to install kubeadm\n\nPlease fix the misalignments highlighted above and try upgrading again", target, have)
				return nil
			}
			if minor(target) > minor(st.API.Version)+1 {
				code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is too high; kubeadm can upgrade only 1 minor version at a time\n", target)
				return nil
			}
			if versionLess(target, st.API.Version) && !p.has("force") && !p.has("allow-downgrades") {
				code = s.fail(1, "[upgrade/version] FATAL: the --version argument is invalid due to these fatal errors:\n\n\t- Specified version to upgrade to %q is an unsupported version, downgrades need --allow-downgrades", target)
				return nil
			}
			if !p.has("y") && !p.has("yes") && !p.has("f") && !p.has("force") {
				s.printf("[upgrade] Are you sure you want to proceed? [y/N]: ")
				buf := make([]byte, 16)
				n, _ := s.stdin.Read(buf)
				if a := strings.ToLower(strings.TrimSpace(string(buf[:n]))); a != "y" && a != "yes" {
					code = s.fail(1, "won't proceed; the user didn't answer (Y|y) in order to continue")
					return nil
				}
			}
			if s.reportPreflight(s.pullImages(st, hs, controlPlaneImages(target)), p.get("ignore-preflight-errors")) {
				code = 1
				return nil
			}
			st.API.Version = target
			s.printf("[upgrade/version] You have chosen to change the cluster version to %q\n[upgrade/versions] Cluster version: %s\n[upgrade/versions] kubeadm version: %s\n[upgrade/staticpods] Writing new Static Pod manifests to \"/etc/kubernetes/tmp\"\n[upgrade/successful] SUCCESS! Your cluster was upgraded to %q. Enjoy!\n\n[upgrade/kubelet] Now that your control plane is upgraded, please proceed with upgrading your kubelets if you haven't already done so.\n", target, target, have, target)
			return nil
		case "node":
			found := false
			for _, n := range st.Nodes {
				found = found || n.Host == s.host.Host
			}
			if !found {
				code = s.fail(1, "error execution phase preflight: couldn't create a Kubernetes client from file \"/etc/kubernetes/kubelet.conf\": failed to load admin kubeconfig: open /etc/kubernetes/kubelet.conf: no such file or directory")
				return nil
			}
			s.printf("[upgrade] Reading configuration from the cluster...\n[preflight] Running pre-flight checks\n[upgrade] Skipping phase. Not a control plane node.\n[upgrade] Backing up kubelet config file to /etc/kubernetes/tmp/kubeadm-kubelet-config.yaml\n[kubelet-start] Writing kubelet configuration to file \"/var/lib/kubelet/config.yaml\"\n[upgrade] The configuration for this node was successfully updated!\n[upgrade] Now you should go ahead and upgrade the kubelet package using your package manager.\n")
			return nil
		}
		code = s.fail(1, "cp-hostsim kubeadm upgrade: %q is not simulated (plan, apply VERSION, node)", p.arg(1))
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm upgrade: %v", err)
	}
	return code
}

func versionInfo(v string) string {
	return fmt.Sprintf(`&version.Info{Major:"1", Minor:"%d", GitVersion:"%s", GitCommit:"5864a4677267e6adeae276ad85882a8714d69d9d", GitTreeState:"clean", BuildDate:"2024-10-22T20:34:54Z", GoVersion:"go1.22.8", Compiler:"gc", Platform:"linux/amd64"}`, minor(v), v)
}

func (s *sim) kubeadmVersion(p flags) int {
	var v string
	_ = s.st.view(func(st *State) error {
		v = s.installedKubeadm(st.host(s.host.Host))
		return nil
	})
	switch firstNonEmpty(p.get("o"), p.get("output")) {
	case "short":
		s.printf("%s\n", v)
	case "json":
		s.printf("{\n  \"clientVersion\": {\n    \"major\": \"1\",\n    \"minor\": \"%d\",\n    \"gitVersion\": \"%s\",\n    \"platform\": \"linux/amd64\"\n  }\n}\n", minor(v), v)
	default:
		s.printf("kubeadm version: %s\n", versionInfo(v))
	}
	return 0
}

func (s *sim) kubeadmConfigCmd(p flags) int {
	if p.arg(1) != "images" || (p.arg(2) != "list" && p.arg(2) != "pull") {
		return s.fail(1, "cp-hostsim kubeadm config: only `config images list|pull` is simulated")
	}
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		v := firstNonEmpty(p.get("kubernetes-version"), s.installedKubeadm(hs))
		if !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		imgs := controlPlaneImages(v)
		if p.arg(2) == "list" {
			for _, i := range imgs {
				s.printf("%s\n", i)
			}
			return nil
		}
		if msg := s.criDown(hs); msg != "" {
			code = s.fail(1, "failed to create new CRI image service: validate service connection: %s\nTo see the stack trace of this error execute with --v=5 or higher", msg)
			return nil
		}
		for _, i := range imgs {
			if fails := s.pullImages(st, hs, []string{i}); len(fails) > 0 {
				code = s.fail(1, "failed to pull image %q: %s\nTo see the stack trace of this error execute with --v=5 or higher", i, s.pullError(st, hs, i))
				return nil
			}
			s.printf("[config/images] Pulled %s\n", i)
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm config: %v", err)
	}
	return code
}
