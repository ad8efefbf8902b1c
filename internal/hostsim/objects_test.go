package hostsim

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestKubectlObjectStore(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"

	// CoreDNS exists from kubeadm init but is not available without a CNI.
	if r := e.must("master-1", "kubectl", "-n", "kube-system", "get", "deployment", "coredns", "-o", "jsonpath={.status.availableReplicas}"); r.out != "" {
		t.Fatalf("coredns available without a CNI: %q", r.out)
	}
	e.fails("master-1", "timed out waiting for the condition on deployments.apps/coredns",
		"kubectl", "-n", "kube-system", "wait", "--for=condition=Available", "deployment/coredns", "--timeout=1s")
	e.must("master-1", "kubectl", "apply", "-f", "https://raw.githubusercontent.com/projectcalico/calico/v3.28.2/manifests/calico.yaml")
	contains(t, e.must("master-1", "kubectl", "-n", "kube-system", "wait", "--for=condition=Available", "deployment/coredns", "--timeout=5s"),
		"deployment.apps/coredns condition met")
	contains(t, e.must("master-1", "kubectl", "-n", "kube-system", "wait", "--for=condition=Available", "deployment", "--all", "--timeout=5s"),
		"deployment.apps/calico-kube-controllers condition met", "deployment.apps/coredns condition met")
	if r := e.must("master-1", "kubectl", "-n", "kube-system", "get", "deployment", "coredns", "-o", "jsonpath={.status.availableReplicas}"); r.out != "2" {
		t.Fatalf("coredns availableReplicas = %q, want 2", r.out)
	}
	e.fails("master-1", "unable to read URL", "kubectl", "apply", "-f", "https://example.com/app.yaml")

	// Namespaces through create --dry-run=client -o yaml | apply -f -.
	ns := e.must("master-1", "kubectl", "create", "namespace", "apps", "--dry-run=client", "-o", "yaml")
	contains(t, ns, "kind: Namespace", "name: apps")
	e.write("master-1", "/tmp/root.env", "# comment\nrootUser=cp-admin\nrootPassword=s3cret\n")
	e.fails("master-1", `namespaces "apps" not found`, "kubectl", "-n", "apps", "create", "secret", "generic", "s", "--from-env-file=/tmp/root.env")
	if r := e.runAs("master-1", "0", ns.out, "kubectl", "apply", "-f", "-"); r.code != 0 || r.out != "namespace/apps created\n" {
		t.Fatalf("apply namespace: %d %q %q", r.code, r.out, r.err)
	}

	// Secrets from env files and files; jsonpath reads base64 data.
	e.write("master-1", "/tmp/config.env", "export A=1\n")
	contains(t, e.must("master-1", "kubectl", "-n", "apps", "create", "secret", "generic", "root", "--from-env-file=/tmp/root.env"), "secret/root created")
	e.fails("master-1", "already exists", "kubectl", "-n", "apps", "create", "secret", "generic", "root", "--from-env-file=/tmp/root.env")
	e.must("master-1", "kubectl", "-n", "apps", "create", "secret", "generic", "kms", "--from-file=config.env=/tmp/config.env")
	r := e.must("master-1", "kubectl", "-n", "apps", "get", "secret", "root", "-o", "jsonpath={.data.rootUser}")
	if b, _ := base64.StdEncoding.DecodeString(r.out); string(b) != "cp-admin" {
		t.Fatalf("secret data rootUser = %q (%q)", r.out, b)
	}
	if r := e.must("master-1", "kubectl", "-n", "apps", "get", "secret", "kms", "-o", "name"); r.out != "secret/kms\n" {
		t.Fatalf("get secret -o name = %q", r.out)
	}
	e.fails("master-1", `secrets "nope" not found`, "kubectl", "-n", "apps", "get", "secret", "nope", "-o", "name")
	// A kind without status has no condition: wait times out, no crash.
	e.fails("master-1", "timed out waiting for the condition on secrets/root", "kubectl", "-n", "apps", "wait", "--for=condition=Ready", "secret/root", "--timeout=1s")
	dry := e.must("master-1", "kubectl", "-n", "apps", "create", "secret", "generic", "s3", "--from-env-file=/tmp/root.env", "--dry-run=client", "-o", "yaml")
	contains(t, dry, "kind: Secret", "namespace: apps", "rootUser: "+base64.StdEncoding.EncodeToString([]byte("cp-admin")))
	e.fails("master-1", `secrets "s3" not found`, "kubectl", "-n", "apps", "get", "secret", "s3")
	contains(t, e.runAs("master-1", "0", dry.out, "kubectl", "apply", "-f", "-"), "secret/s3 created")
	contains(t, e.runAs("master-1", "0", dry.out, "kubectl", "apply", "-f", "-"), "secret/s3 unchanged")

	// A Job completes when its pods can run; one whose Secret is missing
	// stays active (CreateContainerConfigError).
	job := func(name, secret string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  namespace: apps\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n" +
			"      containers:\n        - name: c\n          image: busybox\n          envFrom:\n            - secretRef: {name: " + secret + "}\n"
	}
	contains(t, e.runAs("master-1", "0", job("ok", "root")+"---\n"+job("stuck", "missing"), "kubectl", "apply", "-f", "-"),
		"job.batch/ok created", "job.batch/stuck created")
	contains(t, e.must("master-1", "kubectl", "-n", "apps", "wait", "--for=condition=complete", "job/ok", "--timeout=5s"), "job.batch/ok condition met")
	if r := e.must("master-1", "kubectl", "-n", "apps", "get", "job", "ok", "-o", "jsonpath={.status.succeeded}"); r.out != "1" {
		t.Fatalf("job ok succeeded = %q", r.out)
	}
	e.fails("master-1", "timed out waiting for the condition on jobs.batch/stuck", "kubectl", "-n", "apps", "wait", "--for=condition=complete", "job/stuck", "--timeout=1s")
	if r := e.runAs("master-1", "0", job("ok", "kms"), "kubectl", "apply", "-f", "-"); r.code == 0 || !strings.Contains(r.err, "field is immutable") {
		t.Fatalf("changing a Job's template: %d %q", r.code, r.err)
	}
	contains(t, e.must("master-1", "kubectl", "-n", "apps", "delete", "job", "ok", "stuck", "--ignore-not-found"), `job.batch "ok" deleted`, `job.batch "stuck" deleted`)
	e.must("master-1", "kubectl", "-n", "apps", "delete", "job", "ok", "--ignore-not-found")
	e.fails("master-1", `jobs.batch "ok" not found`, "kubectl", "-n", "apps", "delete", "job", "ok")

	// A namespace in the manifest must match -n.
	if r := e.runAs("master-1", "0", job("x", "root"), "kubectl", "-n", "other", "apply", "-f", "-"); r.code == 0 || !strings.Contains(r.err, "does not match the namespace") {
		t.Fatalf("namespace mismatch: %d %q", r.code, r.err)
	}
}

func TestHelmReleaseObjects(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, true)
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	e.must("master-1", "helm", "upgrade", "--install", "longhorn", "longhorn", "--repo", "https://charts.longhorn.io", "--version", "1.7.2",
		"--namespace", "longhorn-system", "--create-namespace", kc, "--wait")
	if r := e.must("master-1", "kubectl", "get", "storageclass", "longhorn", "-o", "name"); r.out != "storageclass.storage.k8s.io/longhorn\n" {
		t.Fatalf("storageclass: %q", r.out)
	}
	e.must("master-1", "helm", "upgrade", "--install", "pg", "oci://registry-1.docker.io/bitnamicharts/postgresql", "--version", "16.0.3",
		"--namespace", "db", "--create-namespace", kc, "--wait")
	r := e.must("master-1", "kubectl", "-n", "db", "get", "statefulset", "-l", "app.kubernetes.io/instance=pg", "-o", "jsonpath={.items[0].status.readyReplicas}")
	if r.out != "1" {
		t.Fatalf("postgresql readyReplicas = %q", r.out)
	}
	if r := e.must("master-1", "helm", "status", "pg", "--namespace", "db", kc, "-o", "json"); !strings.Contains(r.out, `"status":"deployed"`) || !strings.Contains(r.out, `"version":"16.0.3"`) {
		t.Fatalf("helm status -o json: %s", r.out)
	}
	e.fails("master-1", "not emulated: kubectl get statefulset.apps", "kubectl", "-n", "db", "get", "statefulset", "pg-postgresql")
	e.must("master-1", "helm", "uninstall", "pg", "--namespace", "db", kc, "--wait")
	e.fails("master-1", "not found", "kubectl", "-n", "db", "get", "statefulset", "pg-postgresql", "-o", "name")
	e.fails("master-1", "release: not found", "helm", "status", "pg", "--namespace", "db", kc)
}

func TestGetentAndCurl(t *testing.T) {
	e := newEnv(t)
	if r := e.must("w", "getent", "hosts", "registry.k8s.io"); !strings.HasSuffix(r.out, " registry.k8s.io\n") {
		t.Fatalf("getent hosts registry.k8s.io = %q", r.out)
	}
	key := e.must("w", "curl", "-fsSL", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key")
	contains(t, key, "-----BEGIN PGP PUBLIC KEY BLOCK-----", "-----END PGP PUBLIC KEY BLOCK-----")
	contains(t, e.must("w", "curl", "-fsSL", "https://packages.buildkite.com/helm-linux/helm-debian/gpgkey"), "BEGIN PGP PUBLIC KEY BLOCK")
	// pkgs.k8s.io redirects: without -L curl prints the redirect page.
	if r := e.must("w", "curl", "-fsS", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key"); strings.Contains(r.out, "BEGIN PGP") || !strings.Contains(r.out, "prod-cdn.packages.k8s.io") {
		t.Fatalf("curl without -L: %q", r.out)
	}
	// Minors before 1.24 have no repository: an error with -f, shown by -S.
	if r := e.run("w", "curl", "-fsSL", "https://pkgs.k8s.io/core:/stable:/v1.23/deb/Release.key"); r.code != 22 || !strings.Contains(r.err, "error: 403") {
		t.Fatalf("curl -f of a missing repository: exit %d %q", r.code, r.err)
	}
	if r := e.run("w", "curl", "-f", "-s", "-L", "https://pkgs.k8s.io/core:/stable:/v1.23/deb/Release.key"); r.code != 22 || r.err != "" {
		t.Fatalf("curl -fsL of a missing repository: exit %d %q, want 22 and no message", r.code, r.err)
	}
	if r := e.run("w", "curl", "-sSL", "https://pkgs.k8s.io/core:/stable:/v1.23/deb/Release.key"); r.code != 0 || !strings.Contains(r.out, "AccessDenied") {
		t.Fatalf("curl without -f of a missing repository: exit %d %q", r.code, r.out)
	}
	e.fails("w", "not emulated: curl -o", "curl", "-fsSL", "-o", "/tmp/k", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key")
	// Other URLs go to the real curl (not run outside a host).
	if r := e.run("w", "curl", "-fsSL", "https://example.com/"); r.code != 127 {
		t.Fatalf("curl of another URL: exit %d", r.code)
	}

	// The dns fault breaks both until resolv.conf has another nameserver.
	e.write("w", "/etc/resolv.conf", "nameserver 10.0.0.2\n")
	if err := SetFault(e.state, Fault{Kind: FaultDNS}); err != nil {
		t.Fatal(err)
	}
	if r := e.run("w", "getent", "hosts", "registry.k8s.io"); r.code != 2 || r.out != "" {
		t.Fatalf("getent with dns fault: exit %d %q", r.code, r.out)
	}
	if r := e.run("w", "curl", "-fsSL", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key"); r.code != 6 || !strings.Contains(r.err, "Could not resolve host: pkgs.k8s.io") {
		t.Fatalf("curl with dns fault: exit %d %q", r.code, r.err)
	}
	if !strings.Contains(e.file("w", "/etc/resolv.conf"), BrokenNameserver) {
		t.Fatalf("resolv.conf not rewritten by the dns fault")
	}
	e.write("w", "/etc/resolv.conf", "nameserver 10.0.0.53\n")
	e.must("w", "getent", "hosts", "registry.k8s.io")
	e.must("w", "curl", "-fsSL", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key")
}

// ConfigMaps from files, an explicit --kubeconfig, and drain's refusal of
// pods with emptyDir volumes unless --delete-emptydir-data.
func TestKubectlConfigMapsAndDrain(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	kc := []string{"kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf"}
	kubectl := func(args ...string) []string { return append(append([]string(nil), kc...), args...) }
	e.fails("master-1", "stat /nope: no such file or directory", "kubectl", "--kubeconfig", "/nope", "get", "nodes", "-o", "name")
	e.write("master-1", "/tmp/verify.sh", "echo ok\n")
	dry := e.must("master-1", kubectl("create", "configmap", "verify", "--from-file=verify.sh=/tmp/verify.sh", "--dry-run=client", "-o", "yaml")...)
	contains(t, dry, "kind: ConfigMap", "verify.sh: |", "echo ok")
	e.fails("master-1", `configmaps "verify" not found`, kubectl("get", "configmap", "verify", "-o", "name")...)
	contains(t, e.must("master-1", kubectl("create", "configmap", "verify", "--from-file=/tmp/verify.sh")...), "configmap/verify created")
	if r := e.must("master-1", kubectl("get", "configmap", "verify", "-o", `jsonpath={.data.verify\.sh}`)...); r.out != "echo ok\n" {
		t.Fatalf("configmap data: %q", r.out)
	}
	e.fails("master-1", "error reading /tmp/missing", kubectl("create", "configmap", "x", "--from-file=/tmp/missing")...)

	e.write("master-1", "/tmp/cache.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers: [{name: c, image: redis}]\n      volumes: [{name: tmp, emptyDir: {}}]\n")
	e.must("master-1", kubectl("apply", "-f", "/tmp/cache.yaml")...)
	e.fails("master-1", "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache", kubectl("drain", "worker-1", "--ignore-daemonsets")...)
	contains(t, e.must("master-1", kubectl("drain", "worker-1", "--ignore-daemonsets", "--delete-emptydir-data")...), "node/worker-1 drained")
}

func TestKubeadmImagesAndTokenList(t *testing.T) {
	e := newEnv(t)
	e.must("master-1", "apt-get", "install", "-y", "kubeadm")
	contains(t, e.must("master-1", "kubeadm", "config", "images", "list"), "registry.k8s.io/kube-apiserver:v1.31.2", "registry.k8s.io/pause:3.10")
	r := e.must("master-1", "kubeadm", "config", "images", "list", "--kubernetes-version", "1.32.2")
	if !strings.Contains(r.out, "registry.k8s.io/kube-proxy:v1.32.2\n") || strings.Contains(r.out, "v1.31.2") {
		t.Fatalf("images of v1.32.2:\n%s", r.out)
	}
	e.fails("master-1", "open /etc/kubernetes/admin.conf: no such file or directory", "kubeadm", "token", "list")
	initCluster(t, e, false)
	tok := strings.Fields(e.must("master-1", "kubeadm", "token", "create").out)[0]
	contains(t, e.must("master-1", "kubeadm", "token", "list", "--kubeconfig", "/etc/kubernetes/admin.conf"), tok, "authentication,signing")
	e.fails("master-1", "open /root/other.conf: no such file or directory", "kubeadm", "token", "list", "--kubeconfig", "/root/other.conf")
}
