package packs

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The scripts re-check every value they use, whatever the pack declares
// (user packs and direct engine callers may not type their parameters).
// Each test below runs a builtin script under bash with stub commands,
// once with valid values (what it renders is what it rendered before) and
// once with a value that steered the script before it checked its values:
// a command run through bash arithmetic, a file written outside its
// directory, a key or line added to a rendered file, an option passed to a
// command.

// refused asserts that the script failed naming what it refused, ran no
// injected command and left no trace of the payload.
func refused(t *testing.T, h *scriptHost, res scriptResult, want string) {
	t.Helper()
	if res.code == 0 {
		t.Errorf("exit 0, want a refusal\nstdout: %s\nstderr: %s", res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
	}
	if _, err := os.Stat(h.canary); err == nil {
		t.Errorf("the payload ran a command: %s exists", h.canary)
	}
}

func succeeded(t *testing.T, res scriptResult) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
}

// nodeHost is a Debian 12 host without kubelet.
func nodeHost(t *testing.T) *scriptHost {
	h := newScriptHost(t)
	h.write("/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n")
	h.write("/etc/kubernetes/.keep", "")
	return h
}

// TestValidateNodeArithmetic: the minimums were compared in (( )), where
// bash runs a command substitution inside an array subscript, as root.
func TestValidateNodeArithmetic(t *testing.T) {
	for script, nodePaths := range map[string][]string{
		"kubernetes/scripts/validate-node.sh":  {"/etc/os-release", "/etc/kubernetes", "/var/lib/cp"},
		"kubernetes/scripts/validate-nodes.sh": {"/etc/os-release", "/var/lib/cp"},
	} {
		t.Run(script, func(t *testing.T) {
			h := nodeHost(t)
			succeeded(t, h.run(script, packEnv(t, "kubernetes", nil), nodePaths...))
			if got, want := h.read("/var/lib/cp/kubernetes/node-facts"), "host=node-1\nhostname=node-1\nos=debian 12\ncpus=4\nmemory_mb=7936\ndisk_free_gb=50\n"; got != want {
				t.Errorf("node-facts = %q, want %q", got, want)
			}
			res := h.run(script, packEnv(t, "kubernetes", map[string]string{"min_cpus": "8"}), nodePaths...)
			if res.code == 0 || !strings.Contains(res.stderr, "4 CPUs, need at least 8") {
				t.Errorf("min_cpus 8 on 4 CPUs: exit %d, stderr %q; want the shortfall", res.code, res.stderr)
			}
			for _, p := range []string{"min_cpus", "min_memory_mb", "min_disk_gb"} {
				t.Run(p, func(t *testing.T) {
					h := nodeHost(t)
					payload := "BASH_VERSINFO[$(touch " + h.canary + ")]*0"
					res := h.run(script, packEnv(t, "kubernetes", map[string]string{p: payload}), nodePaths...)
					refused(t, h, res, p+` "BASH_VERSINFO[$(touch `)
					if h.exists("/var/lib/cp/kubernetes/node-facts") {
						t.Errorf("node facts recorded for a refused %s", p)
					}
				})
			}
		})
	}
}

// TestConfigureRegistryMirrorPaths: a registry name built a path out of
// certs.d, a mirror URL broke the TOML it is quoted in, a symlink led the
// write elsewhere.
func TestConfigureRegistryMirrorPaths(t *testing.T) {
	const script = "kubernetes/scripts/configure-registry-mirror.sh"
	containerd := func(t *testing.T) *scriptHost {
		h := newScriptHost(t)
		h.write("/etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n  config_path = \"\"\n")
		return h
	}
	env := func(mirrors, registries string) map[string]string {
		return packEnv(t, "kubernetes", map[string]string{"registry_mirrors": mirrors, "mirrored_registries": registries})
	}

	t.Run("valid", func(t *testing.T) {
		h := containerd(t)
		succeeded(t, h.run(script, env("https://mirror.gcr.io,http://10.0.0.5:5000", "docker.io,quay.io,registry.local:5000"), "/etc/containerd"))
		hosts := "\n[host.\"https://mirror.gcr.io\"]\n  capabilities = [\"pull\", \"resolve\"]\n" +
			"\n[host.\"http://10.0.0.5:5000\"]\n  capabilities = [\"pull\", \"resolve\"]\n"
		for reg, server := range map[string]string{"docker.io": "https://registry-1.docker.io", "quay.io": "https://quay.io", "registry.local:5000": "https://registry.local:5000"} {
			if got, want := h.read("/etc/containerd/certs.d/"+reg+"/hosts.toml"), "server = \""+server+"\"\n"+hosts; got != want {
				t.Errorf("%s hosts.toml = %q, want %q", reg, got, want)
			}
		}
		if got := h.read("/etc/containerd/config.toml"); !strings.Contains(got, `config_path = "`+h.root+`/etc/containerd/certs.d"`) {
			t.Errorf("config.toml does not point at certs.d:\n%s", got)
		}
	})
	t.Run("traversal", func(t *testing.T) {
		h := containerd(t)
		res := h.run(script, env("https://mirror.gcr.io", "docker.io,../../../tmp/X"), "/etc/containerd")
		refused(t, h, res, `mirrored_registries item "../../../tmp/X" is not a registry host[:port]`)
		if h.exists("/tmp/X") || h.exists("/etc/containerd/certs.d/docker.io") {
			t.Errorf("files written for a refused registry list")
		}
	})
	t.Run("quote-in-mirror", func(t *testing.T) {
		h := containerd(t)
		res := h.run(script, env(`https://mirror.example/"x`, "docker.io"), "/etc/containerd")
		refused(t, h, res, `registry_mirrors item "https://mirror.example/"x" is not an http(s) URL`)
		if h.exists("/etc/containerd/certs.d/docker.io/hosts.toml") {
			t.Errorf("hosts.toml written with a quote in a mirror:\n%s", h.read("/etc/containerd/certs.d/docker.io/hosts.toml"))
		}
	})
	t.Run("symlink", func(t *testing.T) {
		h := containerd(t)
		h.write("/outside/.keep", "")
		if err := os.MkdirAll(h.path("/etc/containerd/certs.d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(h.path("/outside"), h.path("/etc/containerd/certs.d/docker.io")); err != nil {
			t.Fatal(err)
		}
		res := h.run(script, env("https://mirror.gcr.io", "docker.io"), "/etc/containerd")
		refused(t, h, res, "resolves outside")
		if h.exists("/outside/hosts.toml") {
			t.Errorf("hosts.toml written through a symlink out of certs.d")
		}
	})
}

// TestInstallKubernetesPackagesSourceLine: a newline in kubernetes_version
// added a trusted apt source to kubernetes.list.
func TestInstallKubernetesPackagesSourceLine(t *testing.T) {
	const script = "kubernetes/scripts/install-kubernetes-packages.sh"
	host := func(t *testing.T) *scriptHost {
		h := newScriptHost(t)
		h.write("/etc/apt/sources.list.d/.keep", "")
		return h
	}
	h := host(t)
	succeeded(t, h.run(script, packEnv(t, "kubernetes", map[string]string{"storage": "none"}), "/etc/apt"))
	want := "deb [signed-by=" + h.root + "/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.34/deb/ /\n"
	if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != want {
		t.Errorf("kubernetes.list = %q, want %q", got, want)
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "apt-get install -y --allow-change-held-packages kubeadm=1.34.2-* kubelet=1.34.2-* kubectl=1.34.2-*") {
		t.Errorf("apt-get install of the pinned packages missing from:\n%s", calls)
	}

	h = host(t)
	res := h.run(script, packEnv(t, "kubernetes", map[string]string{"storage": "none",
		"kubernetes_version": "1.31.2\ndeb [trusted=yes] http://evil.example/ /"}), "/etc/apt")
	refused(t, h, res, `kubernetes_version "1.31.2?deb [trusted=yes] http://evil.example/ /" is not a version`)
	if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != "" {
		t.Errorf("kubernetes.list written for a refused version:\n%s", got)
	}
}

// TestRenderKubeadmConfigKeys: a newline in a CIDR added a key to the
// ClusterConfiguration.
func TestRenderKubeadmConfigKeys(t *testing.T) {
	const script = "kubernetes/scripts/render-kubeadm-config.sh"
	base := map[string]string{"cluster_name": "prod-eu", "control_plane_endpoint": "10.0.0.10:6443"}
	h := newScriptHost(t)
	succeeded(t, h.run(script, packEnv(t, "kubernetes", base), "/var/lib/cp"))
	want := `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: "prod-eu"
kubernetesVersion: "v1.34.2"
controlPlaneEndpoint: "10.0.0.10:6443"
networking:
  podSubnet: "10.244.0.0/16"
  serviceSubnet: "10.96.0.0/12"
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
systemReserved:
  cpu: "100m"
  memory: "256Mi"
kubeReserved:
  cpu: "100m"
  memory: "256Mi"
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "10%"
  imagefs.available: "15%"
`
	if got := h.read("/var/lib/cp/kubernetes/kubeadm-cluster.yaml"); got != want {
		t.Errorf("kubeadm-cluster.yaml = %q, want %q", got, want)
	}

	for p, v := range map[string]string{
		"pod_cidr":     "10.244.0.0/16\"\n  dnsDomain: \"evil.example",
		"cluster_name": `prod", "certificatesDir": "/tmp`,
	} {
		t.Run(p, func(t *testing.T) {
			h := newScriptHost(t)
			set := map[string]string{p: v}
			for k, bv := range base {
				if k != p {
					set[k] = bv
				}
			}
			refused(t, h, h.run(script, packEnv(t, "kubernetes", set), "/var/lib/cp"), p+` "`)
			if h.exists("/var/lib/cp/kubernetes/kubeadm-cluster.yaml") {
				t.Errorf("kubeadm config rendered with a refused %s:\n%s", p, h.read("/var/lib/cp/kubernetes/kubeadm-cluster.yaml"))
			}
		})
	}
}

// TestDrainNodeOption: a host name starting with '-' became an option of
// kubectl drain (--all drains every node).
func TestDrainNodeOption(t *testing.T) {
	const script = "kubernetes/scripts/drain-node.sh"
	h := newScriptHost(t)
	env := h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})
	succeeded(t, h.run(script, env))
	if calls := h.log(h.calls); !strings.Contains(calls, "kubectl --kubeconfig "+env["CP_ARTIFACT_KUBECONFIG_ADMIN"]+" drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=5m") {
		t.Errorf("drain of node-1 missing from:\n%s", calls)
	}

	h = newScriptHost(t)
	env = h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})
	env["CP_HOST"] = "--all"
	refused(t, h, h.run(script, env), `host "--all" is not a Kubernetes node name`)
	if calls := h.log(h.calls); strings.Contains(calls, "drain") {
		t.Errorf("kubectl drain ran for host --all:\n%s", calls)
	}
}

// yamlDocs decodes the non-empty YAML documents of s.
func yamlDocs(t *testing.T, s string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(s))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				return docs
			}
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, s)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// dig follows keys (string for a map, int for a list) through a decoded
// YAML value.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestConfigureBackupsManifest: backup_schedule and database are pasted
// into the CronJob; a quote added keys to an env entry, a newline keys to
// the spec.
func TestConfigureBackupsManifest(t *testing.T) {
	const script = "postgresql/scripts/configure-backups.sh"
	arts := map[string]string{
		"kubeconfig.admin":              "apiVersion: v1\n",
		"object_storage.s3.endpoint":    "http://minio.minio.svc:9000\n",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=k\nAWS_SECRET_ACCESS_KEY=s\n",
	}
	h := newScriptHost(t)
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "postgresql", nil), arts)))
	var cron map[string]any
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		if d["kind"] == "CronJob" {
			cron = d
		}
	}
	if cron == nil {
		t.Fatalf("no CronJob applied:\n%s", h.log(h.stdin))
	}
	spec := dig(cron, "spec").(map[string]any)
	if got := spec["schedule"]; got != "0 3 * * *" || len(spec) != 3 {
		t.Errorf("spec = %v, want schedule \"0 3 * * *\", concurrencyPolicy and jobTemplate only", spec)
	}
	env := dig(spec, "jobTemplate", "spec", "template", "spec", "initContainers", 0, "env", 2).(map[string]any)
	if env["name"] != "PGDATABASE" || env["value"] != "app" || len(env) != 2 {
		t.Errorf("PGDATABASE entry = %v, want {name: PGDATABASE, value: app}", env)
	}

	for p, v := range map[string]string{
		"backup_schedule": "0 3 * * *\"\n  suspend: true\n  x: \"",
		"database":        `app", "valueFrom": {"secretKeyRef": {"name": "other", "key": "k"}}, "x": "`,
		"postgres_image":  "postgres:16\"\n              securityContext: {privileged: true}\n              x: \"",
		"namespace":       "postgresql\"\n  labels: {x: y}\n  y: \"",
	} {
		t.Run(p, func(t *testing.T) {
			h := newScriptHost(t)
			refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "postgresql", map[string]string{p: v}), arts)), p+` "`)
			if applied := h.log(h.stdin); strings.Contains(applied, "CronJob") {
				t.Errorf("CronJob applied with a refused %s:\n%s", p, applied)
			}
		})
	}
}

// TestDeployTempoValues: the bucket was pasted into the Helm values.
func TestDeployTempoValues(t *testing.T) {
	const script = "tempo/scripts/deploy-tempo.sh"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://minio.minio.svc:9000\n"}
	h := newScriptHost(t)
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "tempo", nil), arts)))
	docs := yamlDocs(t, h.log(h.values))
	if len(docs) != 1 {
		t.Fatalf("helm got %d values files, want 1:\n%s", len(docs), h.log(h.values))
	}
	s3 := dig(docs[0], "tempo", "storage", "trace", "s3").(map[string]any)
	if s3["bucket"] != "tempo-traces" || s3["endpoint"] != "minio.minio.svc:9000" || s3["insecure"] != true || len(s3) != 5 {
		t.Errorf("s3 values = %v", s3)
	}
	if got := dig(docs[0], "tempo", "retention"); got != "336h" {
		t.Errorf("retention = %v, want 336h", got)
	}

	for p, v := range map[string]string{
		"bucket":    "tempo-traces\"\n        access_key: \"AKIAEVIL",
		"retention": `336h", "x": "`,
	} {
		t.Run(p, func(t *testing.T) {
			h := newScriptHost(t)
			refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "tempo", map[string]string{p: v}), arts)), p+` "`)
			if strings.Contains(h.log(h.calls), "helm upgrade") {
				t.Errorf("helm ran with a refused %s; values:\n%s", p, h.log(h.values))
			}
		})
	}
}

// TestVerifyIngestionJob: the verify image was pasted into the Job.
func TestVerifyIngestionJob(t *testing.T) {
	const script = "tempo/scripts/verify-ingestion-and-query.sh"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://127.0.0.1:8333",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=tempo-key\nAWS_SECRET_ACCESS_KEY=tempo-secret-key\n"}
	h := newScriptHost(t)
	h.stub("aws", tempoAWS("None", "single-tenant/7f3d9a10-0000-4000-8000-000000000002/meta.json", `{"tenantID":"single-tenant"}`, false))
	h.stub("kubectl", tempoQuerier(true, 0, false, ""))
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "tempo", nil), arts)))
	var job map[string]any
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		if d["kind"] == "Job" {
			job = d
		}
	}
	c := dig(job, "spec", "template", "spec", "containers", 0).(map[string]any)
	if c["image"] != "curlimages/curl:8.10.1" || len(c) != 5 {
		t.Errorf("container = %v, want the verify image and name, command, env, volumeMounts only", c)
	}

	h = newScriptHost(t)
	bad := "curlimages/curl:8.10.1\"\n          securityContext: {privileged: true}\n          x: \""
	refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "tempo", map[string]string{"verify_image": bad}), arts)), `verify_image "`)
	if applied := h.log(h.stdin); strings.Contains(applied, "privileged") {
		t.Errorf("Job applied with a refused verify_image:\n%s", applied)
	}
}

// TestJoinNodeConfig: control_plane_endpoint was pasted into the
// JoinConfiguration, where a newline turns CA verification off.
func TestJoinNodeConfig(t *testing.T) {
	const script = "kubernetes/scripts/join-node.sh"
	arts := map[string]string{"kubeadm.join_token": "abcdef.0123456789abcdef\n",
		"kubeadm.ca_cert_hash": "sha256:" + strings.Repeat("0a", 32) + "\n"}
	for name, c := range map[string]struct {
		params map[string]string
		arts   map[string]string
		want   string
	}{
		"endpoint": {params: map[string]string{"control_plane_endpoint": "10.0.0.10:6443\"\n    unsafeSkipCAVerification: true\n    x: \""},
			want: `control_plane_endpoint "10.0.0.10:6443"?    unsafeSkipCAVerification`},
		"token": {arts: map[string]string{"kubeadm.join_token": `abcdef.0123456789abcdef"],"unsafeSkipCAVerification":true,"x":["`},
			want: "kubeadm.join_token artifact is not a bootstrap token"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newScriptHost(t)
			a := map[string]string{}
			for k, v := range arts {
				a[k] = v
			}
			for k, v := range c.arts {
				a[k] = v
			}
			env := h.artifactEnv(packEnv(t, "kubernetes", c.params), a)
			env["CP_FIRST_MASTER_ADDRESS"] = "10.0.0.10"
			refused(t, h, h.run(script, env, retryPaths...), c.want)
			if cfg := h.log(h.values); cfg != "" {
				t.Errorf("kubeadm join ran with a refused %s:\n%s", name, cfg)
			}
		})
	}
}
