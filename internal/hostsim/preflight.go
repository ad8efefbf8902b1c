package hostsim

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// check is one kubeadm preflight error.
type check struct{ name, msg string }

// kubeVersion turns a package version ("1.31.2-1.1") into "v1.31.2".
func kubeVersion(pkg string) string {
	v, _, _ := strings.Cut(pkg, "-")
	if v == "" {
		return ""
	}
	return "v" + strings.TrimPrefix(v, "v")
}

// criChecks are the container runtime checks kubeadm init and join share.
func (s *sim) criChecks(hs *HostState) []check {
	var out []check
	if s.euid != 0 {
		out = append(out, check{"IsPrivilegedUser", "user is not running as root"})
	}
	if _, ok := hs.Packages["kubelet"]; !ok {
		out = append(out, check{"FileExisting-kubelet", "kubelet not found in system path"})
	}
	if _, ok := hs.Packages["cri-tools"]; !ok {
		out = append(out, check{"FileExisting-crictl", "crictl not found in system path"})
	}
	if msg := s.criDown(hs); msg != "" {
		out = append(out, check{"CRI", "container runtime is not running: output: " + msg + ", error: exit status 1"})
	}
	if s.sysctlValue(hs, "net.ipv4.ip_forward") != "1" {
		out = append(out, check{"FileContent--proc-sys-net-ipv4-ip_forward", "/proc/sys/net/ipv4/ip_forward contents are not set to 1"})
	}
	return out
}

// criDown says why the CRI is unreachable ("" when it is up).
func (s *sim) criDown(hs *HostState) string {
	const sock = "unix:///var/run/containerd/containerd.sock"
	svc := hs.Services["containerd.service"]
	if _, ok := hs.Packages["containerd"]; !ok && !s.realContainerd() {
		svc = nil
	}
	if svc == nil || s.unitState(hs, "containerd.service") != "active" {
		return fmt.Sprintf(`time="%s" level=fatal msg="validate service connection: validate CRI v1 runtime API for endpoint \"%s\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /var/run/containerd/containerd.sock: connect: no such file or directory\""`, s.now().UTC().Format("2006-01-02T15:04:05Z07:00"), sock)
	}
	if hs.CRIDisabled {
		return fmt.Sprintf(`time="%s" level=fatal msg="validate service connection: validate CRI v1 runtime API for endpoint \"%s\": rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService"`, s.now().UTC().Format("2006-01-02T15:04:05Z07:00"), sock)
	}
	return ""
}

// pullError says why pulling image fails on this host ("" when it works).
func (s *sim) pullError(st *State, hs *HostState, image string) string {
	_ = applyDNS(st, s.host.Host, s.root)
	ref := image
	registry, repo, _ := strings.Cut(image, "/")
	name, tag, _ := strings.Cut(repo, ":")
	if registry == "docker.io" {
		registry = "registry-1.docker.io"
	}
	if broken, ns := dnsBroken(st, s.host.Host, s.root); broken {
		return fmt.Sprintf(`failed to pull and unpack image "%s": failed to resolve reference "%s": failed to do request: Head "https://%s/v2/%s/manifests/%s": dial tcp: lookup %s on %s:53: read udp %s:41235->%s:53: i/o timeout`, ref, ref, registry, name, tag, registry, ns, s.host.Address, ns)
	}
	if _, ok := st.fault(FaultImagePull, s.host.Host); ok && !hs.MirrorConfigured {
		return fmt.Sprintf(`failed to pull and unpack image "%s": failed to resolve reference "%s": failed to do request: Head "https://%s/v2/%s/manifests/%s": dial tcp: lookup registry-1.docker.io: i/o timeout`, ref, ref, registry, name, tag)
	}
	return ""
}

// controlPlaneImages lists what kubeadm pulls for a version.
func controlPlaneImages(version string) []string {
	out := []string{}
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy"} {
		out = append(out, "registry.k8s.io/"+c+":"+version)
	}
	return append(out, "registry.k8s.io/coredns/coredns:v1.11.3", "registry.k8s.io/pause:3.10", "registry.k8s.io/etcd:3.5.15-0")
}

// pullImages pulls images into the host's store, returning the preflight
// errors of the ones that failed.
func (s *sim) pullImages(st *State, hs *HostState, images []string) []check {
	var out []check
	for _, img := range images {
		if slices.Contains(hs.Images, img) {
			continue
		}
		if msg := s.pullError(st, hs, img); msg != "" {
			out = append(out, check{"ImagePull", fmt.Sprintf("failed to pull image %s: output: E%s %s, error: exit status 1", img, s.now().UTC().Format("0102 15:04:05.000000"), msg)})
			continue
		}
		hs.Images = append(hs.Images, img)
	}
	slices.Sort(hs.Images)
	return out
}

// reportPreflight prints fatal preflight errors like kubeadm; it returns
// true when the command must stop.
func (s *sim) reportPreflight(fatal []check) bool {
	if len(fatal) == 0 {
		return false
	}
	var b strings.Builder
	b.WriteString("error execution phase preflight: [preflight] Some fatal errors occurred:\n")
	for _, c := range fatal {
		fmt.Fprintf(&b, "\t[ERROR %s]: %s\n", c.name, c.msg)
	}
	b.WriteString("[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`\nTo see the stack trace of this error execute with --v=5 or higher")
	s.fail(1, "%s", b.String())
	return true
}

// exists reports whether a host path exists.
func (s *sim) exists(p string) bool {
	_, err := os.Stat(s.path(p))
	return err == nil
}
