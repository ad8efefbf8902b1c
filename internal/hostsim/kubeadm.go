package hostsim

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"
)

func (s *sim) installedKubeadm(hs *HostState) string {
	if v := kubeVersion(hs.Packages["kubeadm"]); v != "" {
		return v
	}
	return "v" + defaultKubeVersion
}

// kubeadmInit is kubeadm init [--config FILE]: preflight, image pulls,
// a fresh CA, the control plane's files and the first node.
func (s *sim) kubeadmInit(p flags) int {
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
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		version := firstNonEmpty(cfg.KubernetesVersion, s.installedKubeadm(hs))
		if !strings.HasPrefix(version, "v") {
			version = "v" + version
		}
		s.printf("[init] Using Kubernetes version: %s\n[preflight] Running pre-flight checks\n", version)
		checks := s.criChecks(hs)
		if s.exists("/etc/kubernetes/manifests/kube-apiserver.yaml") {
			checks = append(checks, check{"Port-6443", "Port 6443 is in use"},
				check{"FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml", "/etc/kubernetes/manifests/kube-apiserver.yaml already exists"})
		}
		if s.reportPreflight(checks) {
			code = 1
			return nil
		}
		if st.API != nil && st.API.Host != s.host.Host {
			code = s.fail(1, "error execution phase preflight: cp-hostsim: simulated cluster %q already has its control plane on host %s; join this host with kubeadm join, or run kubeadm reset -f on %s first", st.Cluster, st.API.Host, st.API.Host)
			return nil
		}
		s.printf("[preflight] Pulling images required for setting up a Kubernetes cluster\n[preflight] This might take a minute or two, depending on the speed of your internet connection\n[preflight] You can also perform this action beforehand using 'kubeadm config images pull'\n")
		if s.reportPreflight(s.pullImages(st, hs, controlPlaneImages(version))) {
			code = 1
			return nil
		}
		addr := firstNonEmpty(cfg.AdvertiseAddress, s.host.Address)
		endpoint := firstNonEmpty(cfg.ControlPlaneEndpoint, addr)
		if _, _, err := net.SplitHostPort(endpoint); err != nil {
			endpoint = net.JoinHostPort(endpoint, "6443")
		}
		ca, err := newCA(s.now())
		if err != nil {
			return err
		}
		nodeName := firstNonEmpty(cfg.NodeName, s.host.Host)
		*st = State{Cluster: st.Cluster, Hosts: st.Hosts, Faults: st.Faults, CA: ca,
			API:        &APIServer{Host: s.host.Host, Endpoint: endpoint, Version: version, Since: s.now()},
			Namespaces: []string{"default", "kube-node-lease", "kube-public", "kube-system"},
			Nodes:      map[string]*Node{}}
		st.Nodes[nodeName] = s.newNode(nodeName, addr, true)
		tok, err := s.addToken(st, firstOf(cfg.Tokens), 24*time.Hour)
		if err != nil {
			code = s.fail(1, "%v", err)
			return nil
		}
		// --skip-token-print: the token is created but never printed;
		// the join commands show "<value withheld>", as kubeadm does.
		using := "[bootstrap-token] Using token: " + tok + "\n"
		if p.has("skip-token-print") {
			tok, using = "<value withheld>", ""
		}
		if err := s.writeControlPlaneFiles(st, nodeName); err != nil {
			return err
		}
		kubelet := hs.Services["kubelet.service"]
		if kubelet == nil {
			kubelet = &Service{}
			hs.Services["kubelet.service"] = kubelet
		}
		kubelet.Active, kubelet.Since = true, s.now()
		s.printf(`[certs] Using certificateDir folder "/etc/kubernetes/pki"
[certs] Generating "ca" certificate and key
[certs] Generating "apiserver" certificate and key
[certs] apiserver serving cert is signed for DNS names [kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local %[1]s] and IPs [10.96.0.1 %[2]s]
[kubeconfig] Using kubeconfig folder "/etc/kubernetes"
[kubeconfig] Writing "admin.conf" kubeconfig file
[kubeconfig] Writing "super-admin.conf" kubeconfig file
[kubeconfig] Writing "kubelet.conf" kubeconfig file
[kubeconfig] Writing "controller-manager.conf" kubeconfig file
[kubeconfig] Writing "scheduler.conf" kubeconfig file
[etcd] Creating static Pod manifest for local etcd in "/etc/kubernetes/manifests"
[control-plane] Using manifest folder "/etc/kubernetes/manifests"
[control-plane] Creating static Pod manifest for "kube-apiserver"
[control-plane] Creating static Pod manifest for "kube-controller-manager"
[control-plane] Creating static Pod manifest for "kube-scheduler"
[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"
[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"
[kubelet-start] Starting the kubelet
[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests"
[kubelet-check] The kubelet is healthy after 1.001234567s
[api-check] The API server is healthy after 5.50123456s
[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace
[kubelet] Creating a ConfigMap "kubelet-config" in namespace kube-system with the configuration for the kubelets in the cluster
`, nodeName, addr)
		s.printf("[upload-certs] Skipping phase. Please see --upload-certs\n")
		s.printf(`[mark-control-plane] Marking the node %[1]s as control-plane by adding the labels: [node-role.kubernetes.io/control-plane node.kubernetes.io/exclude-from-external-load-balancers]
[mark-control-plane] Marking the node %[1]s as control-plane by adding the taints [node-role.kubernetes.io/control-plane:NoSchedule]
%[2]s[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles
[kubelet-finalize] Updating "/etc/kubernetes/kubelet.conf" to point to a rotatable kubelet client certificate and key
[addons] Applied essential addon: CoreDNS
[addons] Applied essential addon: kube-proxy

Your Kubernetes control-plane has initialized successfully!

To start using your cluster, you need to run the following as a regular user:

  mkdir -p $HOME/.kube
  sudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config
  sudo chown $(id -u):$(id -g) $HOME/.kube/config

Alternatively, if you are the root user, you can run:

  export KUBECONFIG=/etc/kubernetes/admin.conf

You should now deploy a pod network to the cluster.
Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:
  https://kubernetes.io/docs/concepts/cluster-administration/addons/

`, nodeName, using)
		if cfg.ControlPlaneEndpoint != "" {
			s.printf("You can now join any number of control-plane nodes running the following command on each as root:\n\n  kubeadm join %s --token %s \\\n\t--discovery-token-ca-cert-hash %s \\\n\t--control-plane\n\n", endpoint, tok, ca.Hash)
		}
		s.printf("Then you can join any number of worker nodes by running the following on each as root:\n\nkubeadm join %s --token %s \\\n\t--discovery-token-ca-cert-hash %s \n", endpoint, tok, ca.Hash)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm init: %v", err)
	}
	return code
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstOf(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func (s *sim) newNode(name, addr string, controlPlane bool) *Node {
	n := &Node{Name: name, Host: s.host.Host, Address: addr, ControlPlane: controlPlane, Joined: s.now(),
		Labels: map[string]string{
			"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
			"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
		}}
	if controlPlane {
		n.Labels["node-role.kubernetes.io/control-plane"] = ""
		n.Labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		n.Taints = []string{"node-role.kubernetes.io/control-plane:NoSchedule"}
	}
	return n
}

// addToken records a bootstrap token (random when tok is empty).
func (s *sim) addToken(st *State, tok string, ttl time.Duration) (string, error) {
	var t Token
	if tok == "" {
		t.ID, t.Secret = randomToken()
	} else {
		id, secret, ok := strings.Cut(tok, ".")
		if !ok || len(id) != 6 || len(secret) != 16 {
			return "", fmt.Errorf("the bootstrap token %q was not of the form \"^([a-z0-9]{6})\\.([a-z0-9]{16})$\"", tok)
		}
		t.ID, t.Secret = id, secret
	}
	if ttl > 0 {
		t.Expires = s.now().Add(ttl)
	}
	st.Tokens = slices.DeleteFunc(st.Tokens, func(o Token) bool { return o.ID == t.ID })
	st.Tokens = append(st.Tokens, t)
	return t.String(), nil
}

// validToken finds an unexpired token.
func (s *sim) validToken(st *State, tok string) bool {
	for _, t := range st.Tokens {
		if t.String() == tok && (t.Expires.IsZero() || s.now().Before(t.Expires)) {
			return true
		}
	}
	return false
}

// writeControlPlaneFiles writes what kubeadm init (or a control-plane
// join) leaves on the host.
func (s *sim) writeControlPlaneFiles(st *State, nodeName string) error {
	admin, err := st.CA.kubeconfig(s.now(), st.API.Endpoint, "kubernetes-admin", "kubeadm:cluster-admins")
	if err != nil {
		return err
	}
	superAdmin, err := st.CA.kubeconfig(s.now(), st.API.Endpoint, "kubernetes-super-admin", "system:masters")
	if err != nil {
		return err
	}
	files := map[string]string{
		"/etc/kubernetes/admin.conf":       admin,
		"/etc/kubernetes/super-admin.conf": superAdmin,
		"/etc/kubernetes/pki/ca.key":       st.CA.KeyPEM,
	}
	for p, c := range staticPodManifests(st.API.Version) {
		files[p] = c
	}
	etcdFiles, err := s.etcdPKIFiles(st, nodeName, s.now())
	if err != nil {
		return err
	}
	for p, c := range etcdFiles {
		files[p] = c
	}
	for _, c := range []string{"controller-manager", "scheduler"} {
		kc, err := st.CA.kubeconfig(s.now(), st.API.Endpoint, "system:kube-"+c)
		if err != nil {
			return err
		}
		files["/etc/kubernetes/"+c+".conf"] = kc
	}
	for p, c := range files {
		if err := s.writeHostFile(p, c, 0o600); err != nil {
			return err
		}
	}
	return s.writeNodeFiles(st, nodeName)
}

// staticPodManifests are the control plane's static Pod manifests of a
// version, by path: what kubeadm init, a control-plane join and kubeadm
// upgrade apply or node write.
func staticPodManifests(version string) map[string]string {
	out := map[string]string{}
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"} {
		out["/etc/kubernetes/manifests/"+c+".yaml"] = fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: kube-system\nspec:\n  containers:\n  - name: %s\n    image: registry.k8s.io/%s:%s\n", c, c, c, version)
	}
	// etcd's data and certificates are host paths, as in kubeadm's manifest.
	out["/etc/kubernetes/manifests/etcd.yaml"] += "    command:\n    - etcd\n    - --data-dir=/var/lib/etcd\n    volumeMounts:\n    - mountPath: /var/lib/etcd\n      name: etcd-data\n    - mountPath: /etc/kubernetes/pki/etcd\n      name: etcd-certs\n" +
		"  volumes:\n  - hostPath:\n      path: /etc/kubernetes/pki/etcd\n      type: DirectoryOrCreate\n    name: etcd-certs\n  - hostPath:\n      path: /var/lib/etcd\n      type: DirectoryOrCreate\n    name: etcd-data\n"
	return out
}

// writeStaticPodManifests rewrites the host's static Pod manifests for a
// version, as kubeadm upgrade does on a control-plane node.
func (s *sim) writeStaticPodManifests(version string) error {
	for p, c := range staticPodManifests(version) {
		if err := s.writeHostFile(p, c, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// writeNodeFiles writes what every kubeadm-managed node has.
func (s *sim) writeNodeFiles(st *State, nodeName string) error {
	kubelet, err := st.CA.kubeconfig(s.now(), st.API.Endpoint, "system:node:"+nodeName, "system:nodes")
	if err != nil {
		return err
	}
	if err := s.writeHostFile("/etc/kubernetes/kubelet.conf", kubelet, 0o600); err != nil {
		return err
	}
	if err := s.writeHostFile("/etc/kubernetes/pki/ca.crt", st.CA.CertPEM, 0o644); err != nil {
		return err
	}
	if err := s.writeHostFile("/var/lib/kubelet/config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n", 0o644); err != nil {
		return err
	}
	return s.writeHostFile("/var/lib/kubelet/kubeadm-flags.env", "KUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10\"\n", 0o644)
}

// kubeadmReset is kubeadm reset [-f]: without -f it asks on stdin.
func (s *sim) kubeadmReset(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "error execution phase preflight: [preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	if !p.has("f") {
		s.printf("[reset] WARNING: Changes made to this host by 'kubeadm init' or 'kubeadm join' will be reverted.\n[reset] Are you sure you want to proceed? [y/N]: ")
		line, _ := bufio.NewReader(s.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return s.fail(1, "error execution phase preflight: aborted reset operation")
		}
	}
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		st.removeEtcdMembersOf(s.host.Host)
		for name, n := range st.Nodes {
			if n.Host == s.host.Host {
				delete(st.Nodes, name)
			}
		}
		if st.API != nil && st.API.Host == s.host.Host {
			moved := false
			for _, n := range sortedNodes(st) {
				if n.ControlPlane {
					st.API.Host, moved = n.Host, true
					break
				}
			}
			if !moved {
				*st = State{Cluster: st.Cluster, Hosts: st.Hosts, Faults: st.Faults}
			}
		}
		if k := hs.Services["kubelet.service"]; k != nil {
			k.Active = false
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm reset: %v", err)
	}
	// Not /etc/cni/net.d: kubeadm reset leaves the CNI configuration (its
	// output says so).
	for _, d := range []string{"/etc/kubernetes", "/var/lib/kubelet", "/var/lib/etcd"} {
		_ = os.RemoveAll(s.path(d))
	}
	s.printf(`[preflight] Running pre-flight checks
[reset] Deleted contents of the etcd data directory: /var/lib/etcd
[reset] Stopping the kubelet service
[reset] Unmounting mounted directories in "/var/lib/kubelet"
[reset] Deleting contents of directories: [/etc/kubernetes/manifests /var/lib/kubelet /etc/kubernetes/pki]
[reset] Deleting files: [/etc/kubernetes/admin.conf /etc/kubernetes/super-admin.conf /etc/kubernetes/kubelet.conf /etc/kubernetes/bootstrap-kubelet.conf /etc/kubernetes/controller-manager.conf /etc/kubernetes/scheduler.conf]

The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d

The reset process does not reset or clean up iptables rules or IPVS tables.
If you wish to reset iptables, you must do so manually by using the "iptables" command.

The reset process does not clean your kubeconfig files and you must remove them manually.
Please, check the contents of the $HOME/.kube/config file.
`)
	return 0
}
