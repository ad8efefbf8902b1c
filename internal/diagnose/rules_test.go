package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}

func failedEvidence(id, host, observed, detail string) protocol.EvidenceResult {
	return protocol.EvidenceResult{ID: id, Host: host, Passed: false, Observed: observed, ExitCode: 0, CheckedAt: testNow, Detail: detail}
}

// TestBuiltinRules diagnoses real-looking logs against plans of the
// builtin kubernetes pack; every proposed patch is reviewed by the real
// planner and must pass.
func TestBuiltinRules(t *testing.T) {
	mirror := map[string]string{"registry_mirrors": "https://mirror.example.internal"}
	create := func(t *testing.T) fixture { return createFixture(t, nil) }
	createMirror := func(t *testing.T) fixture { return createFixture(t, mirror) }
	addNode := func(t *testing.T) fixture { return addNodeFixture(t, testNow.Add(6*time.Hour)) }
	addNodeExpired := func(t *testing.T) fixture { return addNodeFixture(t, testNow.Add(-time.Hour)) }
	cases := []struct {
		name     string
		fx       func(t *testing.T) fixture
		instance string
		log      string
		evidence []protocol.EvidenceResult
		observed []string
		rule     string
		related  []string
		changes  []string
		manual   bool
		risk     Risk
		quotes   []string // each is a substring of some quoted line
		summary  string   // substring of the summary
		notes    string   // substring of some note
	}{
		{
			name: "image pull at init with the intent's mirror", fx: createMirror, instance: "init-control-plane[master-1]", log: "image-pull-init.log",
			rule: "image-pull",
			changes: []string{
				"insert_after install-container-runtime: configure-containerd-registry-mirror{registry_mirrors=https://mirror.example.internal}, restart-containerd, pre-pull-kubernetes-images",
				"retry init-control-plane",
			},
			risk:    RiskMedium,
			quotes:  []string{"[ERROR ImagePull]: failed to pull image registry.k8s.io/kube-apiserver:v1.31.2", "[ERROR ImagePull]: failed to pull image registry.k8s.io/etcd:3.5.15-0"},
			summary: "registry.k8s.io is unreachable",
		},
		{
			name: "image pull at init without a mirror gets the placeholder", fx: create, instance: "init-control-plane[master-1]", log: "image-pull-init.log",
			rule: "image-pull",
			changes: []string{
				"insert_after install-container-runtime: configure-containerd-registry-mirror{registry_mirrors=" + PlaceholderRegistryMirror + "}, restart-containerd, pre-pull-kubernetes-images",
				"retry init-control-plane",
			},
			risk: RiskMedium, notes: "registry_mirrors is the placeholder",
		},
		{
			name: "image pull at join workers", fx: createMirror, instance: "join-workers[worker-1]", log: "image-pull-join.log",
			rule: "image-pull",
			changes: []string{
				"insert_after install-container-runtime: configure-containerd-registry-mirror{registry_mirrors=https://mirror.example.internal}, restart-containerd, pre-pull-kubernetes-images",
				"retry join-workers",
			},
			risk: RiskMedium, quotes: []string{"dial tcp 34.96.108.209:443: i/o timeout"},
		},
		{
			name: "image pull when adding a node: the mirror goes after the host preparation", fx: addNode, instance: "join-worker[worker-6]", log: "image-pull-join.log",
			rule: "image-pull",
			changes: []string{
				"insert_after prepare-kubernetes-prerequisites: configure-containerd-registry-mirror{registry_mirrors=" + PlaceholderRegistryMirror + "}, restart-containerd, pre-pull-kubernetes-images",
				"retry join-worker",
			},
			risk: RiskMedium, summary: "registry.k8s.io is unreachable",
		},
		{
			name: "DNS failure in apt", fx: create, instance: "install-container-runtime[worker-2]", log: "dns-apt.log",
			rule: "dns-resolution", changes: []string{"retry install-container-runtime"}, manual: true, risk: RiskLow,
			quotes:  []string{"Temporary failure resolving 'download.docker.com'", "Temporary failure resolving 'archive.ubuntu.com'"},
			summary: "download.docker.com cannot be resolved", notes: "no job that configures the node's DNS resolver",
		},
		{
			name: "DNS failure at join", fx: addNode, instance: "join-worker[worker-6]", log: "dns-join.log",
			rule: "dns-resolution", changes: []string{"retry join-worker"}, manual: true, risk: RiskLow,
			quotes:  []string{"lookup cp.prod.internal on 127.0.0.53:53: server misbehaving"},
			summary: "cp.prod.internal cannot be resolved through 127.0.0.53",
		},
		{
			name: "broken resolver breaks image pulls: DNS first", fx: createMirror, instance: "init-control-plane[master-1]", log: "dns-image-pull.log",
			rule: "dns-resolution", related: []string{"image-pull"}, changes: []string{"retry init-control-plane"}, manual: true, risk: RiskLow,
			summary: "through 203.0.113.53",
		},
		{
			name: "port in use at init", fx: create, instance: "init-control-plane[master-1]", log: "port-in-use.log",
			rule: "port-in-use", changes: []string{"retry init-control-plane"}, manual: true, risk: RiskMedium,
			quotes: []string{"[ERROR Port-6443]: Port 6443 is in use", "[ERROR Port-2379]: Port 2379 is in use"}, summary: "Port 6443 is already in use on master-1",
		},
		{
			name: "apiserver cannot listen when a master joins", fx: create, instance: "join-masters[master-2]", log: "port-listen.log",
			rule: "port-in-use", changes: []string{"retry join-masters"}, manual: true, risk: RiskMedium,
			quotes: []string{"listen tcp 0.0.0.0:6443: bind: address already in use"}, summary: "Port 6443 is already in use on master-2",
		},
		{
			name: "swap on at join", fx: create, instance: "join-workers[worker-2]", log: "swap.log",
			rule: "swap-enabled", changes: []string{"retry join-workers"}, manual: true, risk: RiskLow,
			quotes: []string{"[ERROR Swap]: running with swap on is not supported. Please disable swap", "failed to run Kubelet: running with swap on is not supported"},
			notes:  "prepare-network is already in the plan",
		},
		{
			name: "kernel prerequisites in kubeadm preflight", fx: create, instance: "init-control-plane[master-1]", log: "kernel-preflight.log",
			rule: "kernel-prerequisites", changes: []string{"retry init-control-plane"}, manual: true, risk: RiskLow,
			quotes: []string{"[ERROR FileContent--proc-sys-net-bridge-bridge-nf-call-iptables]", "/proc/sys/net/ipv4/ip_forward contents are not set to 1"},
		},
		{
			name: "br_netfilter missing in prepare-network", fx: create, instance: "prepare-network[worker-1]", log: "kernel-modprobe.log",
			evidence: []protocol.EvidenceResult{failedEvidence("bridge_netfilter_enabled", "worker-1", "", "sysctl: cannot stat /proc/sys/net/bridge/bridge-nf-call-iptables: No such file or directory")},
			rule:     "kernel-prerequisites", changes: []string{"retry prepare-network"}, manual: true, risk: RiskLow,
			quotes: []string{"modprobe: FATAL: Module br_netfilter not found", `evidence bridge_netfilter_enabled on worker-1 failed`},
		},
		{
			name: "expired join token when adding a node", fx: addNode, instance: "join-worker[worker-6]", log: "join-token.log",
			rule: "join-token-expired",
			changes: []string{
				"insert_after prepare-kubernetes-prerequisites: generate-join-token",
				"retry join-worker",
			},
			risk: RiskLow, quotes: []string{`could not find a JWS signature in the cluster-info ConfigMap for token ID "abcdef"`},
			summary: "bootstrap token abcdef",
		},
		{
			name: "expired join token at join workers", fx: create, instance: "join-workers[worker-1]", log: "join-token.log",
			rule: "join-token-expired",
			changes: []string{
				"insert_after init-control-plane: generate-join-token",
				"retry join-workers",
			},
			risk: RiskLow,
		},
		{
			name: "invalid token id at join masters", fx: create, instance: "join-masters[master-2]", log: "join-token-invalid.log",
			rule: "join-token-expired",
			changes: []string{
				"insert_after init-control-plane: generate-join-token",
				"retry join-masters",
			},
			risk: RiskLow, summary: "bootstrap token x7k2qp", quotes: []string{`token id "x7k2qp" is invalid for this cluster or it has expired`},
		},
		{
			name: "join token refused although generate-join-token ran", fx: addNodeExpired, instance: "join-worker[worker-6]", log: "join-token.log",
			rule: "join-token-expired", changes: []string{"retry join-worker"}, manual: true, risk: RiskLow,
			quotes: []string{"artifact kubeadm.join_token expired at 2026-04-29T11:00:00Z"}, notes: "generate-join-token is already in the plan",
		},
		{
			name: "an expired token in the state does not hide an image pull failure", fx: addNodeExpired, instance: "join-worker[worker-6]", log: "image-pull-join.log",
			rule: "image-pull",
			changes: []string{
				"insert_after prepare-kubernetes-prerequisites: configure-containerd-registry-mirror{registry_mirrors=" + PlaceholderRegistryMirror + "}, restart-containerd, pre-pull-kubernetes-images",
				"retry join-worker",
			},
			risk: RiskMedium,
		},
		{
			name: "node not Ready without CNI when adding a node", fx: addNode, instance: "verify-node-ready[worker-6]", log: "cni-verify.log",
			evidence: []protocol.EvidenceResult{failedEvidence("node_ready", "worker-6", "False", "")},
			observed: []string{`node worker-6 Ready=False reason=KubeletNotReady message="container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"`},
			rule:     "cni-missing",
			changes:  []string{"insert_after join-worker: install-cni", "retry verify-node-ready"},
			risk:     RiskMedium, quotes: []string{`"Container runtime network not ready"`, "node worker-6 Ready=False", "evidence node_ready on worker-6 failed", "timed out waiting for the condition on nodes/worker-6"},
		},
		{
			name: "cluster not Ready although install-cni ran", fx: create, instance: "verify-cluster[master-1]", log: "cni-cluster.log",
			rule: "cni-missing", changes: []string{"retry verify-cluster"}, manual: true, risk: RiskLow,
			quotes: []string{"network plugin is not ready: cni config uninitialized"}, notes: "install-cni is already in the plan",
		},
		{
			name: "disk full while unpacking containerd", fx: create, instance: "install-container-runtime[worker-1]", log: "disk-apt.log",
			rule: "disk-full", changes: []string{"retry install-container-runtime"}, manual: true, risk: RiskLow,
			quotes: []string{"failed to write (No space left on device)"},
		},
		{
			name: "disk full while pulling images: not an image pull problem", fx: createMirror, instance: "init-control-plane[master-1]", log: "disk-pull.log",
			rule: "disk-full", related: []string{"image-pull"}, changes: []string{"retry init-control-plane"}, manual: true, risk: RiskLow,
			summary: "cannot write to /var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/42/fs/usr/local/bin/etcd",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := tc.fx(t)
			f := fx.failure(t, tc.instance, readLog(t, tc.log), tc.evidence, tc.observed...)
			res := Diagnose(context.Background(), f, Options{Review: fx.review})
			d := res.Diagnosis
			if d.Rule != tc.rule {
				t.Fatalf("rule got: %q want: %q (summary %q, rejected %+v)", d.Rule, tc.rule, d.Summary, res.Rejected)
			}
			if len(res.Rejected) > 0 || len(res.Warnings) > 0 {
				t.Errorf("got rejections %+v warnings %q want: none", res.Rejected, res.Warnings)
			}
			if got := changes(res.Patch); !slices.Equal(got, tc.changes) {
				t.Errorf("changes\ngot:  %q\nwant: %q", got, tc.changes)
			}
			if res.Patch != nil {
				p := res.Patch
				if p.Author != "diagnose:rule/"+tc.rule || !p.Approval.Required || p.Approval.ApprovedBy != "" || !slices.Equal(p.Approval.Roles, []string{"sre"}) {
					t.Errorf("patch author/approval got: %q %+v want: diagnose:rule/%s, required by sre, unapproved", p.Author, p.Approval, tc.rule)
				}
				if p.Risk != string(tc.risk) || p.Reason != d.Summary {
					t.Errorf("patch risk/reason got: %q %q want: %q %q", p.Risk, p.Reason, tc.risk, d.Summary)
				}
			}
			if d.Risk != tc.risk {
				t.Errorf("risk got: %q want: %q", d.Risk, tc.risk)
			}
			if got := len(d.ManualSteps) > 0; got != tc.manual {
				t.Errorf("manual steps got: %q want present: %v", d.ManualSteps, tc.manual)
			}
			if !slices.Equal(d.Related, tc.related) {
				t.Errorf("related got: %q want: %q", d.Related, tc.related)
			}
			for _, q := range tc.quotes {
				if !slices.ContainsFunc(d.Evidence, func(e string) bool { return strings.Contains(e, q) }) {
					t.Errorf("evidence got: %q want a line containing %q", d.Evidence, q)
				}
			}
			text := strings.Join(f.Lines(), "\n")
			for _, e := range d.Evidence {
				if !strings.Contains(text, e) {
					t.Errorf("quoted %q is not a line of the failure", e)
				}
			}
			if !strings.Contains(d.Summary, tc.summary) {
				t.Errorf("summary got: %q want it to contain %q", d.Summary, tc.summary)
			}
			if tc.notes != "" && !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, tc.notes) }) {
				t.Errorf("notes got: %q want one containing %q", d.Notes, tc.notes)
			}
			placeholder := regexp.MustCompile(`\{[a-z_]+\}`)
			for _, s := range append(slices.Clone(d.ManualSteps), d.Summary, d.Explanation) {
				if placeholder.MatchString(s) {
					t.Errorf("unexpanded placeholder in %q", s)
				}
			}
		})
	}
}

// TestRulesFollowTheLibrary checks that a rule inserts its preferred job
// only when the failure's library has it and the plan does not, and
// falls back to a retry otherwise.
func TestRulesFollowTheLibrary(t *testing.T) {
	lib := func(ids ...string) []LibraryJob {
		var out []LibraryJob
		for _, id := range ids {
			out = append(out, LibraryJob{ID: id})
		}
		return out
	}
	dnsLog := "dial tcp: lookup pkgs.k8s.io on 127.0.0.53:53: server misbehaving"
	cases := []struct {
		name    string
		f       Failure
		rule    string
		changes []string
		note    string
	}{
		{
			name: "a pack with a resolver job gets it inserted",
			f: Failure{Job: "install-kubernetes-packages", Instance: "install-kubernetes-packages[worker-1]", Host: "worker-1", LogTail: []string{dnsLog},
				PlanJobs:   []string{"validate-nodes", "prepare-network", "install-container-runtime", "install-kubernetes-packages"},
				JobLibrary: lib("configure-dns-resolver", "install-container-runtime", "install-kubernetes-packages", "prepare-network", "validate-nodes")},
			rule:    "dns-resolution",
			changes: []string{"insert_after prepare-network: configure-dns-resolver", "retry install-kubernetes-packages"},
		},
		{
			name: "host preparation missing from the plan is inserted for br_netfilter",
			f: Failure{Job: "join-worker", Instance: "join-worker[worker-6]", Host: "worker-6",
				LogTail:    []string{"\t[ERROR FileContent--proc-sys-net-bridge-bridge-nf-call-iptables]: /proc/sys/net/bridge/bridge-nf-call-iptables does not exist"},
				PlanJobs:   []string{"validate-node", "build-node-inventory", "join-worker"},
				JobLibrary: lib("build-node-inventory", "join-worker", "prepare-kubernetes-prerequisites", "prepare-network", "validate-node")},
			rule:    "kernel-prerequisites",
			changes: []string{"insert_after build-node-inventory: prepare-network", "retry join-worker"},
		},
		{
			name: "no mirror job in the library: retry with an explanation",
			f: Failure{Job: "init-control-plane", Instance: "init-control-plane[master-1]", Host: "master-1",
				LogTail:    []string{"\t[ERROR ImagePull]: failed to pull image registry.k8s.io/pause:3.10: output: dial tcp 34.96.108.209:443: i/o timeout, error: exit status 1"},
				PlanJobs:   []string{"install-container-runtime", "init-control-plane"},
				JobLibrary: lib("init-control-plane", "install-container-runtime", "restart-containerd")},
			rule: "image-pull", changes: []string{"retry init-control-plane"},
			note: "has no job that configures a containerd registry mirror (looked for configure-containerd-registry-mirror, configure-registry-mirror)",
		},
		{
			name: "unknown plan: the library decides the anchor, the older job ids still work",
			f: Failure{Job: "init-control-plane", Instance: "init-control-plane[master-1]", Host: "master-1",
				LogTail:    []string{"Warning  Failed  kubelet  Failed to pull image \"registry.k8s.io/coredns/coredns:v1.11.3\": ErrImagePull"},
				JobLibrary: lib("configure-registry-mirror", "install-container-runtime", "pre-pull-images")},
			rule:    "image-pull",
			changes: []string{"insert_after install-container-runtime: configure-registry-mirror, pre-pull-images", "retry init-control-plane"},
		},
		{
			name: "the failed job is not in the plan: nothing to retry",
			f: Failure{Job: "minio-install", Instance: "minio-install[master-1]", LogTail: []string{"write /data/x: no space left on device"},
				PlanJobs: []string{"other"}},
			rule: "disk-full", note: "minio-install is not a job of the plan",
		},
		{
			name: "a join-token signature outside a join job does not count",
			f: Failure{Job: "install-cni", Instance: "install-cni[master-1]", LogTail: []string{"token has expired"},
				PlanJobs: []string{"install-cni"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, d, draft, ok := BuiltinRules().Diagnose(tc.f)
			if !ok {
				if tc.rule != "" {
					t.Fatalf("got: no rule want: %s", tc.rule)
				}
				return
			}
			if r.ID != tc.rule {
				t.Fatalf("rule got: %q want: %q", r.ID, tc.rule)
			}
			p := patchFor(r, tc.f, d, draft)
			if got := changes(p); !slices.Equal(got, tc.changes) {
				t.Errorf("changes\ngot:  %q\nwant: %q", got, tc.changes)
			}
			if tc.note != "" && !containsSub(d.Notes, tc.note) {
				t.Errorf("notes got: %q want one containing %q", d.Notes, tc.note)
			}
			if p != nil {
				if err := (Reviewer{Library: tc.f.JobLibrary, PlanJobs: tc.f.PlanJobs}).Review(*p); err != nil {
					t.Errorf("the rule's own patch does not pass the local review: %v", err)
				}
			}
		})
	}
}
