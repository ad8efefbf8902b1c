package hostsim

import (
	"fmt"
	"net"
	"slices"
	"strings"
)

// kubeadmJoin is kubeadm join --config FILE, or ENDPOINT --token T
// --discovery-token-ca-cert-hash H: the endpoint must reach the API
// server, the token be valid, the CA hash match, a control-plane join
// bring the certificate key uploaded within 2h, the node name be free.
func (s *sim) kubeadmJoin(p flags) int {
	var cfg kubeadmConfig
	if f := p.get("config"); f != "" {
		b, err := s.readHostFile(f)
		if err != nil {
			return s.fail(1, "unable to read config from %q : open %s: no such file or directory", f, f)
		}
		if cfg, err = parseKubeadmConfig(b); err != nil {
			return s.fail(1, "%v", err)
		}
	}
	endpoint := firstNonEmpty(p.arg(1), cfg.JoinEndpoint)
	token := firstNonEmpty(p.get("token"), cfg.JoinToken)
	hashes := append(p.all("discovery-token-ca-cert-hash"), cfg.CAHashes...)
	controlPlane, certKey := cfg.ControlPlane, cfg.CertificateKey
	if endpoint == "" || token == "" {
		return s.fail(1, "discovery: Invalid value: \"\": bootstrapToken or file must be set")
	}
	if len(hashes) == 0 {
		return s.fail(1, "discovery.bootstrapToken: Invalid value: \"\": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue")
	}
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		s.printf("[preflight] Running pre-flight checks\n")
		checks := s.criChecks(hs)
		if s.exists("/etc/kubernetes/kubelet.conf") {
			checks = append(checks, check{"FileAvailable--etc-kubernetes-kubelet.conf", "/etc/kubernetes/kubelet.conf already exists"})
		}
		if s.reportPreflight(checks) {
			code = 1
			return nil
		}
		url := fmt.Sprintf("https://%s/api/v1/namespaces/kube-public/configmaps/cluster-info?timeout=10s", endpoint)
		host, _, err := net.SplitHostPort(endpoint)
		if err != nil {
			code = s.fail(1, "error execution phase preflight: couldn't validate the identity of the API Server: address %s: missing port in address", endpoint)
			return nil
		}
		_ = applyDNS(st, s.host.Host, s.root)
		if broken, ns := dnsBroken(st, s.host.Host, s.root); broken && net.ParseIP(host) == nil {
			code = s.fail(1, "error execution phase preflight: couldn't validate the identity of the API Server: Get %q: dial tcp: lookup %s on %s:53: read udp %s:52311->%s:53: i/o timeout", url, host, ns, s.host.Address, ns)
			return nil
		}
		if st.API == nil || !s.endpointMatches(st, endpoint) {
			code = s.fail(1, "error execution phase preflight: couldn't validate the identity of the API Server: Get %q: dial tcp %s: connect: connection refused\nTo see the stack trace of this error execute with --v=5 or higher", url, endpoint)
			return nil
		}
		if !s.validToken(st, token) {
			id, _, _ := strings.Cut(token, ".")
			code = s.fail(1, "error execution phase preflight: couldn't validate the identity of the API Server: could not find a JWS signature in the cluster-info ConfigMap for token ID %q\nTo see the stack trace of this error execute with --v=5 or higher", id)
			return nil
		}
		if !slices.Contains(hashes, st.CA.Hash) {
			code = s.fail(1, "error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys %q are pinned\nTo see the stack trace of this error execute with --v=5 or higher", st.CA.Hash)
			return nil
		}
		if s.reportPreflight(s.pullImages(st, hs, []string{"registry.k8s.io/pause:3.10", "registry.k8s.io/kube-proxy:" + st.API.Version})) {
			code = 1
			return nil
		}
		nodeName := firstNonEmpty(cfg.NodeName, s.host.Host)
		if n, ok := st.Nodes[nodeName]; ok && n.Host != s.host.Host {
			code = s.fail(1, "error execution phase kubelet-start: a Node with name %q and status \"Ready\" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node", nodeName)
			return nil
		}
		s.printf("[preflight] Reading configuration from the cluster...\n[preflight] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'\n")
		if controlPlane {
			if certKey == "" || certKey != st.CertificateKey || s.now().After(st.CertKeyExpires) {
				code = s.fail(1, "error execution phase control-plane-prepare/download-certs: error downloading certs: error downloading the secret: Secret \"kubeadm-certs\" was not found in the \"kube-system\" Namespace. This Secret might have expired. Please, run `kubeadm init phase upload-certs --upload-certs` on a control plane to generate a new one\nTo see the stack trace of this error execute with --v=5 or higher")
				return nil
			}
		}
		st.Nodes[nodeName] = s.newNode(nodeName, s.host.Address, controlPlane)
		if controlPlane {
			if err := s.writeControlPlaneFiles(st, nodeName); err != nil {
				return err
			}
		} else if err := s.writeNodeFiles(st, nodeName); err != nil {
			return err
		}
		kubelet := hs.Services["kubelet.service"]
		if kubelet == nil {
			kubelet = &Service{}
			hs.Services["kubelet.service"] = kubelet
		}
		kubelet.Active, kubelet.Since = true, s.now()
		s.printf("[kubelet-start] Writing kubelet configuration to file \"/var/lib/kubelet/config.yaml\"\n[kubelet-start] Writing kubelet environment file with flags to file \"/var/lib/kubelet/kubeadm-flags.env\"\n[kubelet-start] Starting the kubelet\n[kubelet-check] Waiting for a healthy kubelet at http://127.0.0.1:10248/healthz. This can take up to 4m0s\n[kubelet-check] The kubelet is healthy after 1.001234567s\n[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap\n\n")
		if controlPlane {
			s.printf("This node has joined the cluster and a new control plane instance was created:\n\n* Certificate signing request was sent to apiserver and approval was received.\n* The Kubelet was informed of the new secure connection details.\n* Control plane label and taint were applied to the new node.\n* The Kubernetes control plane instances scaled up.\n* A new etcd member was added to the local/stacked etcd cluster.\n\nTo start administering your cluster from this node, you need to run the following as a regular user:\n\n\tmkdir -p $HOME/.kube\n\tsudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config\n\tsudo chown $(id -u):$(id -g) $HOME/.kube/config\n\nRun 'kubectl get nodes' to see this node join the cluster.\n\n")
		} else {
			s.printf("This node has joined the cluster:\n* Certificate signing request was sent to apiserver and a response was received.\n* The Kubelet was informed of the new secure connection details.\n\nRun 'kubectl get nodes' on the control-plane to see this node join the cluster.\n\n")
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm join: %v", err)
	}
	return code
}

// endpointMatches reports whether endpoint reaches the simulated API
// server: its endpoint, or port 6443 on the address of a control-plane
// node.
func (s *sim) endpointMatches(st *State, endpoint string) bool {
	if endpoint == st.API.Endpoint {
		return true
	}
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil {
		return false
	}
	_, apiPort, _ := net.SplitHostPort(st.API.Endpoint)
	if port != apiPort {
		return false
	}
	for _, n := range st.Nodes {
		if n.ControlPlane && (n.Address == host || n.Name == host) {
			return true
		}
	}
	return false
}
