package packs

import (
	"strings"
	"testing"
)

// TestScriptsAcceptPackDefaults: the checks the scripts make of their
// values accept every pack default and the values the e2e tests use, so
// valid inputs run as they did; what the script renders is checked where
// it is a file.
func TestScriptsAcceptPackDefaults(t *testing.T) {
	const fstab = "UUID=1 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n"
	const token, hash = "abcdef.0123456789abcdef", "sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	kubeconfig := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	hosts := map[string]string{
		"CP_HOSTS":                "m-1 10.0.0.10 master,node-1 10.0.0.11 worker",
		"CP_FIRST_MASTER":         "m-1",
		"CP_FIRST_MASTER_ADDRESS": "10.0.0.10",
	}
	with := func(a, b map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range a {
			out[k] = v
		}
		for k, v := range b {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		script  string
		pack    string
		params  map[string]string
		env     map[string]string
		arts    map[string]string
		files   map[string]string // host files present before the run
		rewrite []string
		check   func(t *testing.T, h *scriptHost)
	}{
		{script: "kubernetes/scripts/validate-inputs.sh", pack: "kubernetes", params: map[string]string{"cluster_name": "prod-eu"},
			env: hosts, rewrite: []string{"/var/lib/cp"},
			check: func(t *testing.T, h *scriptHost) {
				want := "cluster_name=prod-eu\ncni=calico\ncontainer_runtime=containerd\ncontrol_plane_endpoint=10.0.0.10:6443\nhosts=2\n" +
					"kubernetes_version=1.34.2\nmasters=1\npod_cidr=10.244.0.0/16\nservice_cidr=10.96.0.0/12\nstorage=longhorn\n"
				if got := h.read("/var/lib/cp/kubernetes/normalized_parameters"); got != want {
					t.Errorf("normalized_parameters = %q, want %q", got, want)
				}
			}},
		{script: "kubernetes/scripts/validate-inputs.sh", pack: "kubernetes",
			params:  map[string]string{"cluster_name": "ha", "control_plane_endpoint": "lb.example.com:6443"},
			env:     with(hosts, map[string]string{"CP_HOSTS": "m-1 10.0.0.10 master,m-2 10.0.0.12 master,node-1 10.0.0.11 worker"}),
			rewrite: []string{"/var/lib/cp"}},
		{script: "kubernetes/scripts/build-node-inventory.sh", pack: "kubernetes", env: hosts, rewrite: []string{"/var/lib/cp"},
			check: func(t *testing.T, h *scriptHost) {
				if got, want := h.read("/var/lib/cp/kubernetes/node-inventory"), "1 m-1 10.0.0.10 master\n2 node-1 10.0.0.11 worker\n"; got != want {
					t.Errorf("node-inventory = %q, want %q", got, want)
				}
			}},
		{script: "kubernetes/scripts/validate-credentials.sh", pack: "kubernetes", rewrite: []string{"/var/lib/cp"}},
		{script: "kubernetes/scripts/validate-credentials.sh", pack: "kubernetes", params: map[string]string{"registry_mirrors": "https://mirror.gcr.io,http://10.0.0.5:5000/v2"},
			rewrite: []string{"/var/lib/cp"},
			check: func(t *testing.T, h *scriptHost) {
				if got, want := h.read("/var/lib/cp/kubernetes/registries-checked"), "registry.k8s.io\nmirror.gcr.io\n10.0.0.5\n"; got != want {
					t.Errorf("registries-checked = %q, want %q", got, want)
				}
			}},
		{script: "kubernetes/scripts/prepare-network.sh", pack: "kubernetes", arts: map[string]string{"node_inventory": "1 node-1 10.0.0.11 worker\n"},
			files:   map[string]string{"/etc/fstab": fstab},
			rewrite: []string{"/etc/modules-load.d", "/etc/sysctl.d", "/etc/fstab"},
			check: func(t *testing.T, h *scriptHost) {
				if got, want := h.read("/etc/fstab"), "UUID=1 / ext4 defaults 0 1\n# disabled for kubelet: /swap.img none swap sw 0 0\n"; got != want {
					t.Errorf("fstab = %q, want %q", got, want)
				}
			}},
		{script: "kubernetes/scripts/install-container-runtime.sh", pack: "kubernetes", rewrite: []string{"/etc/containerd", "/etc/crictl.yaml", "/etc/apt"}},
		{script: "kubernetes/scripts/prepare-kubernetes-prerequisites.sh", pack: "kubernetes", params: map[string]string{"storage": "none"},
			files:   map[string]string{"/etc/fstab": fstab, "/etc/apt/sources.list.d/.keep": ""},
			rewrite: []string{"/etc/modules-load.d", "/etc/sysctl.d", "/etc/fstab", "/etc/containerd", "/etc/crictl.yaml", "/etc/apt"}},
		{script: "kubernetes/scripts/pre-pull-images.sh", pack: "kubernetes",
			check: func(t *testing.T, h *scriptHost) {
				if calls := h.log(h.calls); !strings.Contains(calls, "kubeadm config images list --kubernetes-version v1.34.2") {
					t.Errorf("no image list for v1.34.2:\n%s", calls)
				}
			}},
		{script: "kubernetes/scripts/join-node.sh", pack: "kubernetes", env: hosts,
			arts:    map[string]string{"kubeadm.join_token": token + "\n", "kubeadm.ca_cert_hash": hash + "\n"},
			rewrite: retryPaths,
			check: func(t *testing.T, h *scriptHost) {
				docs := yamlDocs(t, h.log(h.values))
				if len(docs) != 1 {
					t.Fatalf("kubeadm join got %d configs:\n%s", len(docs), h.log(h.values))
				}
				bt := dig(docs[0], "discovery", "bootstrapToken").(map[string]any)
				if bt["apiServerEndpoint"] != "10.0.0.10:6443" || bt["token"] != token || dig(bt, "caCertHashes", 0) != hash || len(bt) != 3 {
					t.Errorf("bootstrapToken = %v", bt)
				}
				if docs[0]["apiVersion"] != "kubeadm.k8s.io/v1beta4" || dig(docs[0], "nodeRegistration", "name") != "node-1" || docs[0]["controlPlane"] != nil {
					t.Errorf("JoinConfiguration = %v", docs[0])
				}
			}},
		{script: "kubernetes/scripts/join-node.sh", pack: "kubernetes",
			env: with(hosts, map[string]string{"CP_HOST": "m-2", "CP_HOST_ROLE": "master", "CP_HOST_ADDRESS": "10.0.0.12"}),
			arts: map[string]string{"kubeadm.join_token": token, "kubeadm.ca_cert_hash": hash,
				"kubeadm.certificate_key": strings.Repeat("ab", 32)},
			params:  map[string]string{"control_plane_endpoint": "lb.example.com:6443", "kubernetes_version": "1.30.5"},
			rewrite: retryPaths,
			check: func(t *testing.T, h *scriptHost) {
				docs := yamlDocs(t, h.log(h.values))
				cp := dig(docs[0], "controlPlane").(map[string]any)
				if docs[0]["apiVersion"] != "kubeadm.k8s.io/v1beta3" || dig(cp, "localAPIEndpoint", "advertiseAddress") != "10.0.0.12" ||
					cp["certificateKey"] != strings.Repeat("ab", 32) || dig(docs[0], "discovery", "bootstrapToken", "apiServerEndpoint") != "lb.example.com:6443" {
					t.Errorf("JoinConfiguration = %v", docs[0])
				}
			}},
		{script: "kubernetes/scripts/install-cni.sh", pack: "kubernetes"},
		{script: "kubernetes/scripts/install-cni.sh", pack: "kubernetes", params: map[string]string{"cni": "flannel", "cni_manifest": "/srv/manifests/kube-flannel.yml"},
			check: func(t *testing.T, h *scriptHost) {
				if calls := h.log(h.calls); !strings.Contains(calls, "apply -f /srv/manifests/kube-flannel.yml") {
					t.Errorf("the manifest path was not applied:\n%s", calls)
				}
			}},
		{script: "kubernetes/scripts/install-storage.sh", pack: "kubernetes",
			check: func(t *testing.T, h *scriptHost) {
				if calls := h.log(h.calls); !strings.Contains(calls, "helm upgrade --install longhorn longhorn --repo https://charts.longhorn.io --version 1.7.2 ") {
					t.Errorf("no Longhorn 1.7.2 install:\n%s", calls)
				}
			}},
		{script: "kubernetes/scripts/verify-node-ready.sh", pack: "kubernetes"},
		{script: "kubernetes/scripts/verify-cluster.sh", pack: "kubernetes"},
		{script: "minio/scripts/verify-minio.sh", pack: "minio", arts: kubeconfig},
		{script: "postgresql/scripts/deploy-postgresql.sh", pack: "postgresql", arts: kubeconfig,
			check: func(t *testing.T, h *scriptHost) {
				docs := yamlDocs(t, h.log(h.stdin))
				var sts map[string]any
				for _, d := range docs {
					if d["kind"] == "StatefulSet" {
						sts = d
					}
				}
				c := dig(sts, "spec", "template", "spec", "containers", 0).(map[string]any)
				if env := containerEnv(c); c["image"] != "postgres:17.6-bookworm" || env["APP_DATABASE"] != "app" || env["APP_USER"] != "app" ||
					dig(sts, "spec", "volumeClaimTemplates", 0, "spec", "resources", "requests", "storage") != "20Gi" {
					t.Errorf("StatefulSet = %v", sts)
				}
				if got, want := h.log(h.path("/.out/postgresql.credentials")), "PGUSER=app\nPGPASSWORD=secret\n"; got != want {
					t.Errorf("credentials = %q, want %q", got, want)
				}
			}},
		{script: "postgresql/scripts/verify-postgresql.sh", pack: "postgresql", arts: kubeconfig},
		{script: "postgresql/scripts/configure-backups.sh", pack: "postgresql", arts: kubeconfig,
			check: func(t *testing.T, h *scriptHost) {
				if calls := h.log(h.calls); !strings.Contains(calls, "delete cronjob postgresql-backup --ignore-not-found") {
					t.Errorf("without S3 the schedule is not removed:\n%s", calls)
				}
			}},
		{script: "postgresql/scripts/configure-backups.sh", pack: "postgresql", params: map[string]string{"backup_schedule": "@daily"},
			arts: with(kubeconfig, map[string]string{"object_storage.s3.endpoint": "https://s3.eu-central-1.amazonaws.com",
				"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=k\nAWS_SECRET_ACCESS_KEY=s\n"}),
			check: func(t *testing.T, h *scriptHost) {
				docs := yamlDocs(t, h.log(h.stdin))
				if len(docs) != 4 || docs[1]["kind"] != "CronJob" || dig(docs[1], "spec", "schedule") != "@daily" {
					t.Errorf("applied = %v, want the bucket check Job, a CronJob on @daily, the backup now and the restore check", docs)
				}
			}},
		{script: "kubernetes/scripts/verify-node-ready.sh", pack: "kubernetes", params: map[string]string{"node_ready_timeout": "1h30m"},
			check: func(t *testing.T, h *scriptHost) {
				if calls := h.log(h.calls); !strings.Contains(calls, "--timeout=1h30m") {
					t.Errorf("the timeout did not reach kubectl:\n%s", calls)
				}
			}},
		{script: "tempo/scripts/uninstall-tempo.sh", pack: "tempo", arts: kubeconfig},
		{script: "tempo/scripts/deploy-tempo.sh", pack: "tempo", params: map[string]string{"namespace": "tempo-ext", "release_name": "tempo-ext", "bucket": "tempo-ext-traces"},
			arts: with(kubeconfig, map[string]string{"object_storage.s3.endpoint": "https://s3.eu-central-1.amazonaws.com"})},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			h := newScriptHost(t)
			for p, content := range c.files {
				h.write(p, content)
			}
			env := h.artifactEnv(with(packEnv(t, c.pack, c.params), c.env), c.arts)
			succeeded(t, h.run(c.script, env, c.rewrite...))
			if c.check != nil {
				c.check(t, h)
			}
		})
	}
}
