package diagnose

import "regexp"

// BuiltinRules returns the built-in rule table, most specific first: a
// full disk or a broken resolver also breaks image pulls, so they are
// tried before the image-pull rule. Each call compiles a fresh table.
func BuiltinRules() Rules {
	re := regexp.MustCompile
	// Job ids of the builtin kubernetes pack the rules know about; a rule
	// uses a job only when the failure's job library has it.
	var (
		registryMirrorJobs = []string{"configure-containerd-registry-mirror", "configure-registry-mirror"}
		prePullJobs        = []string{"pre-pull-kubernetes-images", "pre-pull-images"}
		resolverJobs       = []string{"configure-dns-resolver", "configure-resolver"}
		hostPrepJobs       = []string{"prepare-network", "prepare-kubernetes-prerequisites"}
		joinJobs           = []string{"join-workers", "join-worker", "join-masters"}
	)
	return Rules{
		{
			ID: "disk-full",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`(?i)write (?P<path>/\S+?):? no space left on device`),
				re(`(?i)no space left on device`),
				re(`You don't have enough free space in (?P<path>\S+?)\.?$`),
				re(`(?i)\bhas disk pressure\b|\bDiskPressure\b`),
			}},
			Defaults: map[string]string{"path": "/"},
			Summary:  "The disk of {host} is full, so {instance} cannot write to {path}.",
			Explanation: "A write failed with \"no space left on device\": the file system holding {path} on {host} has no free " +
				"blocks (or inodes) left. Image pulls, package installs and etcd all stop at this point; retrying " +
				"without freeing space fails the same way.",
			ManualSteps: []string{
				"On {host}, find the full file system: `df -h / /var/lib/containerd /var/log` and `df -i /`.",
				"Free space: `apt-get clean`, `journalctl --vacuum-size=200M`, `crictl rmi --prune` (unused images), or grow the disk.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskLow, ManualRisk: RiskLow, Confidence: 0.95,
			Patch: manualOnly("frees disk space"),
		},
		{
			ID: "dns-resolution",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`lookup (?P<lookup>[^\s:]+) on (?P<nameserver>\[?[0-9a-fA-F.:]+?\]?):53: `),
				re(`lookup (?P<lookup>[^\s:]+): (?:no such host|Temporary failure in name resolution)`),
				re(`Temporary failure resolving '(?P<lookup>[^']+)'`),
				re(`Temporary failure in name resolution`),
				re(`Could not resolve host: (?P<lookup>[^\s;]+)`),
			}},
			Defaults: map[string]string{"lookup": "the registry and package hosts", "nameserver": "the configured nameserver"},
			Summary:  "Name resolution fails on {host}: {lookup} cannot be resolved through {nameserver}.",
			Explanation: "{instance} could not resolve {lookup}: the resolver {host} uses ({nameserver}) does not answer or " +
				"answers wrongly (\"server misbehaving\", an i/o timeout, \"no such host\"). Everything that downloads " +
				"(apt, image pulls, the CNI manifest) fails until the node's resolver is fixed; a registry mirror would not " +
				"help, because its name must be resolved too.",
			ManualSteps: []string{
				"On {host}, check the resolver: `resolvectl status` (or `cat /etc/resolv.conf`) and `getent hosts {lookup}`.",
				"Point the node at a working DNS server (netplan `nameservers:`, /etc/systemd/resolved.conf `DNS=`, then `systemctl restart systemd-resolved`) and confirm `getent hosts {lookup}` answers.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskLow, ManualRisk: RiskLow, Confidence: 0.9,
			Patch: fix{
				slots:   []slot{{ids: resolverJobs}},
				anchors: []string{"prepare-network", "prepare-kubernetes-prerequisites", "validate-node", "validate-nodes"},
				what:    "configures the node's DNS resolver",
			}.build,
		},
		{
			ID: "join-token-expired",
			Signature: Signature{Jobs: joinJobs, Lines: []*regexp.Regexp{
				re(`could not find a JWS signature in the cluster-info ConfigMap for token ID "(?P<token_id>[a-z0-9]+)"`),
				re(`could not find a JWS signature`),
				re(`token id "(?P<token_id>[a-z0-9]+)" is invalid`),
				re(`(?i)\btoken has expired\b|\bbootstrap token (?:\S+ )?(?:has )?expired\b`),
			}, Support: []*regexp.Regexp{
				re(`^artifact kubeadm\.join_token expired at `),
			}},
			Defaults: map[string]string{"token_id": "used by the join"},
			Summary:  "The bootstrap token {token_id} is expired or unknown, so {instance} cannot join the cluster.",
			Explanation: "kubeadm join authenticates with a bootstrap token that lives 24h; the API server no longer knows token " +
				"{token_id} (it expired or was deleted), so the cluster-info ConfigMap carries no JWS signature for it and " +
				"discovery fails. A fresh token from generate-join-token lets the join run again.",
			ManualSteps: []string{
				"On the first master: `kubeadm token list` shows the valid tokens; a run after the token expired plans a new one by itself.",
				"If generate-join-token ran in this operation and its token is already gone, check the clocks of the masters (`timedatectl`) and whether something deletes tokens, then approve and apply the patch to retry {job}.",
			},
			Risk: RiskLow, ManualRisk: RiskLow, Confidence: 0.9,
			Patch: fix{
				slots:        []slot{{ids: []string{"generate-join-token"}}},
				anchors:      []string{"init-control-plane", "prepare-kubernetes-prerequisites"},
				beforeFailed: true,
				what:         "generates a join token",
			}.build,
		},
		{
			ID: "port-in-use",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`\[ERROR Port-(?P<port>\d+)\]: Port \d+ is in use`),
				re(`listen tcp [^\s]*:(?P<port>\d+): bind: address already in use`),
				re(`(?i):(?P<port>\d+): bind: address already in use`),
				re(`(?i)address already in use`),
			}},
			Defaults: map[string]string{"port": "<port>"},
			Summary:  "Port {port} is already in use on {host}, so {instance} cannot start.",
			Explanation: "kubeadm's preflight (or the service itself) found port {port} taken on {host}. Either an earlier, " +
				"interrupted kubeadm run left a kube-apiserver, etcd or kubelet behind, or another service listens there. " +
				"No job of the pack can tell which, so a person decides.",
			ManualSteps: []string{
				"On {host}, find the listener: `ss -ltnp 'sport = :{port}'`.",
				"If it is a kube-apiserver, etcd or kubelet left by an earlier kubeadm run, `kubeadm reset -f` on {host} removes that node's Kubernetes state; otherwise stop or move the service that holds the port.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskMedium, ManualRisk: RiskMedium, Confidence: 0.9,
			Patch: manualOnly("can tell what holds the port"),
		},
		{
			ID: "swap-enabled",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`\[ERROR Swap\]: running with swap on is not supported`),
				re(`(?i)running with swap on is not supported`),
			}},
			Summary: "Swap is on on {host}; kubeadm and the kubelet refuse to run with swap.",
			Explanation: "The kubelet does not run with swap enabled unless configured to, and kubeadm's preflight stops on it. " +
				"The host preparation turns swap off, but swap is on again on {host} (typically re-enabled at boot by " +
				"/etc/fstab or a swap unit).",
			ManualSteps: []string{
				"On {host}: `swapoff -a`, comment out the swap lines of /etc/fstab and `systemctl mask` any swap unit (`systemctl --type swap`), so swap stays off after a reboot.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskLow, ManualRisk: RiskLow, Confidence: 0.95,
			Patch: fix{
				slots:   []slot{{ids: hostPrepJobs}},
				anchors: []string{"build-node-inventory", "validate-node"},
				what:    "turns swap off",
			}.build,
		},
		{
			ID: "kernel-prerequisites",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`\[ERROR FileContent--proc-sys-(?P<sysctl>net-[a-z0-9_-]+)\]`),
				re(`/proc/sys/net/bridge/bridge-nf-call-iptables does not exist`),
				re(`/proc/sys/net/ipv4/ip_forward contents are not set to 1`),
				re(`modprobe: FATAL: Module (?P<module>br_netfilter|overlay) not found`),
				re(`br_netfilter.*(?i:not found|could not|failed|missing)`),
				re(`sysctl: cannot stat /proc/sys/net/bridge/`),
				re(`^evidence (?:ip_forward_enabled|bridge_netfilter_enabled|modules_persisted)\b.* failed`),
			}},
			Summary: "Kernel prerequisites are missing on {host}: br_netfilter/overlay or the ip_forward and bridge sysctls.",
			Explanation: "Kubernetes networking needs the br_netfilter and overlay modules loaded and net.ipv4.ip_forward and " +
				"net.bridge.bridge-nf-call-iptables set to 1; kubeadm's preflight (or the host preparation's evidence) found " +
				"them missing on {host}, e.g. after a reboot without persisted settings or on a kernel without the module.",
			ManualSteps: []string{
				"On {host}: `modprobe overlay && modprobe br_netfilter`, and list both in /etc/modules-load.d/kubernetes.conf.",
				"`sysctl -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1`, persisted in /etc/sysctl.d/99-kubernetes.conf.",
				"If modprobe reports the module not found, install the kernel's extra modules (`linux-modules-extra-$(uname -r)` on Ubuntu) and reboot.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskLow, ManualRisk: RiskLow, Confidence: 0.9,
			Patch: fix{
				slots:   []slot{{ids: hostPrepJobs}},
				anchors: []string{"build-node-inventory", "validate-node"},
				what:    "loads br_netfilter and sets the sysctls",
			}.build,
		},
		{
			ID: "image-pull",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`\[ERROR ImagePull\]: failed to pull image (?P<image>\S+?):? output`),
				re(`failed to pull and unpack image "(?P<image>[^"]+)"`),
				re(`(?i)failed to pull image "?(?P<image>[^\s"]+?)"?(?::|\s|$)`),
				re(`\bErrImagePull\b|\bImagePullBackOff\b`),
				re(`Head \\?"https://(?P<registry>[^/"\\]+)/v2/`),
			}},
			Defaults: map[string]string{"registry": "the upstream registry", "image": "the Kubernetes images"},
			Summary:  "Images cannot be pulled on {host}: {registry} is unreachable, so {instance} failed.",
			Explanation: "{job} needs images such as {image}; containerd's pulls from {registry} time out or are refused, so the " +
				"registry is not reachable from {host} (no route, a firewall or proxy, or rate limiting). Pointing containerd " +
				"at a registry mirror the nodes can reach, restarting containerd so it reads the mirror configuration, and " +
				"pre-pulling the images lets the retry run without the upstream registry.",
			ManualSteps: []string{
				"Check from {host} that the registry or a mirror answers: `crictl pull {image}`.",
				"Configure a reachable mirror under /etc/containerd/certs.d, `systemctl restart containerd`, then approve and apply the patch to retry {job}.",
			},
			Risk: RiskMedium, ManualRisk: RiskLow, Confidence: 0.9,
			Patch: fix{
				slots: []slot{
					{ids: registryMirrorJobs, params: mirrorParams},
					{ids: []string{"restart-containerd"}, optional: true},
					{ids: prePullJobs, optional: true},
				},
				anchors: []string{"install-container-runtime", "prepare-kubernetes-prerequisites"},
				what:    "configures a containerd registry mirror",
			}.build,
		},
		{
			ID: "cni-missing",
			Signature: Signature{Lines: []*regexp.Regexp{
				re(`\bNetworkPluginNotReady\b`),
				re(`(?i)cni plugin not initialized`),
				re(`(?i)network plugin is not ready: cni config uninitialized`),
				re(`(?i)container runtime network not ready`),
				re(`no networks found in /etc/cni/net\.d`),
			}, Support: []*regexp.Regexp{
				re(`^evidence (?:node_ready|first_master_ready|all_nodes_ready)\b.* failed`),
				re(`timed out waiting for the condition on nodes/`),
			}},
			Summary: "{host} does not become Ready: no CNI plugin is running, so {instance} failed.",
			Explanation: "The kubelet reports NetworkPluginNotReady: there is no CNI configuration in /etc/cni/net.d on {host}, " +
				"so pods get no network and the node stays NotReady. Installing the pack's CNI (install-cni) and verifying " +
				"again fixes a cluster whose CNI was never installed or was removed.",
			ManualSteps: []string{
				"On a master: `kubectl -n kube-system get pods -o wide` — the CNI pods (calico-node, cilium, kube-flannel) must be Running on {host}; read the logs of the failing one.",
				"On {host}: /etc/cni/net.d must hold the CNI configuration and /opt/cni/bin the plugins.",
				"Then approve and apply the patch to retry {job}.",
			},
			Risk: RiskMedium, ManualRisk: RiskLow, Confidence: 0.85,
			Patch: fix{
				slots:        []slot{{ids: []string{"install-cni"}}},
				anchors:      []string{"join-worker", "join-workers", "init-control-plane"},
				beforeFailed: true,
				what:         "installs the CNI",
			}.build,
		},
	}
}
