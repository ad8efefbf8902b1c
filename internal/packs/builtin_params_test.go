package packs

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestBuiltinParamTypes pins the type of every builtin pack parameter, so
// loosening one (back to string, or dropping its bounds) fails here.
func TestBuiltinParamTypes(t *testing.T) {
	release := "dns_label"
	want := map[string]map[string]string{
		"kubernetes": {
			"cluster_name": "dns_label", "kubernetes_version": "semver", "cni": "enum", "cni_manifest": "string", "cni_manifest_sha256": "string", "container_runtime": "enum",
			"storage": "enum", "longhorn_version": "semver", "pod_cidr": "ipv4_cidr", "service_cidr": "ipv4_cidr", "control_plane_endpoint": "host_port",
			"registry_host": "string", "registry_mirrors": "list", "mirrored_registries": "list", "wireguard_cidr": "ipv4_cidr",
			"wireguard_port": "integer", "min_cpus": "integer", "min_memory_mb": "integer", "min_disk_gb": "integer",
			"drain_timeout": "duration", "node_ready_timeout": "duration",
			"etcd_snapshot_keep": "integer", "etcd_snapshot": "string", "certificate_min_days": "integer",
			"http_proxy": "url", "https_proxy": "url", "no_proxy": "list", "node_addresses": "list", "wireguard_endpoints": "list",
			"system_reserved_cpu": "string", "system_reserved_memory": "quantity", "kube_reserved_cpu": "string", "kube_reserved_memory": "quantity",
			"eviction_memory_available": "quantity", "eviction_nodefs_available": "string", "eviction_imagefs_available": "string",
			"kubernetes_apt_repository": "string", "kubernetes_apt_key": "string", "image_repository": "string",
			"longhorn_chart": "string", "longhorn_chart_sha256": "string", "helm_apt_repository": "string", "helm_apt_key": "string",
			"containerd_source": "enum", "containerd_version": "string", "containerd_apt_repository": "string", "containerd_apt_key": "string",
		},
		"minio": {"namespace": "dns_label", "release_name": release, "chart_version": "semver", "region": "string", "storage_size": "quantity",
			"storage_class": "dns_subdomain", "bucket": "dns_subdomain", "mc_image": "image", "encryption": "bool", "access_mode": "enum"},
		"postgresql": {"namespace": "dns_label", "release_name": release, "database": "string", "username": "string",
			"storage_size": "quantity", "postgres_image": "image", "mc_image": "image", "backup_bucket": "dns_subdomain", "backup_schedule": "cron"},
		"postgresql-host": {"postgresql_version": "integer", "postgresql_cluster": "string", "apt_repository": "enum", "pgdg_url": "url",
			"port": "integer", "listen_address": "ip", "client_cidrs": "list", "database": "string", "username": "string",
			"backup_schedule": "cron", "backup_keep": "integer"},
		"tempo": {"namespace": "dns_label", "release_name": release, "chart_version": "semver", "bucket": "dns_subdomain", "retention": "duration",
			"mc_image": "image", "verify_image": "image"},
	}
	cat := builtin(t)
	for id, params := range want {
		p, err := cat.Get(id, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range protocol.SortedKeys(p.Parameters) {
			if _, ok := params[name]; !ok {
				t.Errorf("%s: parameter %s has no expected type in this test; add it", id, name)
			}
		}
		for name, typ := range params {
			s, ok := p.Parameters[name]
			if !ok {
				t.Errorf("%s: no parameter %s", id, name)
				continue
			}
			if s.Type != typ {
				t.Errorf("%s.%s: got: type %q want: %q", id, name, s.Type, typ)
			}
			if s.Type == "string" && s.Pattern == "" {
				t.Errorf("%s.%s: a string without a pattern; narrow it", id, name)
			}
		}
	}
}

// TestBuiltinParamBounds checks the bounds the scripts rely on with values
// at and past each edge.
func TestBuiltinParamBounds(t *testing.T) {
	cat := builtin(t)
	cases := []struct {
		pack, param string
		ok, bad     []string
	}{
		{"kubernetes", "kubernetes_version", []string{"1.30.0", "1.31.2", "1.35.9"}, []string{"1.29.12", "1.36.0", "v1.31.2"}},
		{"kubernetes", "wireguard_cidr", []string{"10.200.0.0/24"}, []string{"10.200.0.0/23", "10.200.0.0/25", "fd00::/120"}},
		{"kubernetes", "pod_cidr", []string{"10.0.0.0/8", "10.244.0.0/24"}, []string{"10.0.0.0/7", "10.244.0.0/25"}},
		{"kubernetes", "service_cidr", []string{"10.96.0.0/12", "10.96.0.0/28"}, []string{"10.96.0.0/11", "10.96.0.0/29"}},
		{"kubernetes", "wireguard_port", []string{"1", "65535"}, []string{"0", "65536"}},
		{"kubernetes", "min_cpus", []string{"1", "1024"}, []string{"0", "1025"}},
		{"kubernetes", "min_disk_gb", []string{"0"}, []string{"-1"}},
		{"kubernetes", "mirrored_registries", []string{"docker.io,quay.io", "registry.local:5000"}, []string{"docker.io/library", "..", "a..b", "docker.io,", "Docker.io"}},
		{"kubernetes", "registry_host", []string{"registry.k8s.io", "registry.internal:5000", "10.0.0.5:5000", "a:1", "a:65535", "harbor.internal:443"},
			[]string{"registry.internal:0", "registry.internal:65536", "registry.internal:", "registry.internal:5000:1", "Registry.internal", "https://registry.internal",
				"registry.internal/k8s", "-registry.internal", "a..b", "registry.internal:05000", "registry.internal:5000\nx"}},
		{"kubernetes", "registry_mirrors", []string{"https://mirror.gcr.io,http://10.0.0.5:5000"}, []string{"https://a b", `https://a"b`, "mirror.gcr.io"}},
		{"kubernetes", "cni_manifest", []string{"https://raw.example.com/calico.yaml", "/srv/cni/calico.yaml"}, []string{"/", "/srv/../etc/x", "-f", "file:///etc/x", "https://a.example/x y", "relative.yaml"}},
		{"kubernetes", "cni_manifest_sha256", []string{"0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"}, []string{"0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A", "000000000000000000000000000000000000000000000000000000000000000", "00000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000000000000000000000000000000000000000000;"}},
		{"kubernetes", "kubernetes_apt_repository", []string{"https://pkgs.k8s.io/core:/stable:/v{minor}/deb/", "http://10.0.0.5:8080/k8s/v{minor}/deb/", "https://apt.mirror.internal/k8s/"},
			[]string{"https://apt.mirror.internal/k8s", "https://apt.mirror.internal/v{major}/", "ftp://apt.mirror.internal/k8s/", "https://a b/", "https://apt.mirror.internal/k8s/ ./", "https://apt.mirror.internal/k8s]/", "/srv/k8s/"}},
		{"kubernetes", "kubernetes_apt_key", []string{"https://apt.mirror.internal/k8s/Release.key", "/srv/keys/kubernetes.asc"},
			[]string{"/", "/srv/../etc/shadow", "-o/tmp/x", "file:///srv/k.asc", "https://a.example/k y", "keys/k.asc"}},
		{"kubernetes", "containerd_version", []string{"2.2", "2.2.9", "1.7.28", "10.20.3000"}, []string{"2", "v2.2", "2.2.9-1", "2.2.*", "2.2.9.1", "2.2 ", "2.2;x", "latest"}},
		{"kubernetes", "containerd_apt_repository", []string{"https://download.docker.com/linux/debian", "http://10.0.0.5:8080/docker/linux/ubuntu"},
			[]string{"https://a b", "/srv/docker", "ftp://mirror.internal/docker", "https://mirror.internal/docker bookworm stable", "https://mirror.internal/../x y"}},
		{"kubernetes", "containerd_apt_key", []string{"https://mirror.internal/docker/gpg", "/srv/keys/docker.asc"}, []string{"/srv/../etc/shadow", "-o/tmp/x", "keys/docker.asc"}},
		{"kubernetes", "containerd_source", []string{"docker", "distribution"}, []string{"Docker", "apt", ""}},
		{"kubernetes", "image_repository", []string{"registry.mirror.internal:5000/k8s", "registry.k8s.io", "10.0.0.5:5000", "harbor.internal/library/k8s-mirror"},
			[]string{"https://registry.internal", "Registry.internal", "registry.internal/", "registry.internal/k8s:v1", "registry.internal/../x", `registry.internal/"x`, "-registry.internal"}},
		{"kubernetes", "helm_apt_repository", []string{"https://apt.mirror.internal/helm/", "http://10.0.0.5:8080/helm"}, []string{"https://a b/", "/srv/helm/", "https://apt.mirror.internal/helm/ any main", "ftp://apt.mirror.internal/helm/"}},
		{"kubernetes", "helm_apt_key", []string{"https://apt.mirror.internal/helm/gpgkey", "/srv/keys/helm.asc"}, []string{"/srv/../etc/shadow", "-o/tmp/x", "keys/helm.asc"}},
		{"kubernetes", "longhorn_chart", []string{"https://charts.longhorn.io", "http://10.0.0.5:8080/charts", "/srv/charts/longhorn-1.7.2.tgz"},
			[]string{"/srv/charts/longhorn", "/srv/../etc/x.tgz", "oci://registry.internal/longhorn", "https://a b", "longhorn-1.7.2.tgz", "--repo=https://x"}},
		{"kubernetes", "longhorn_chart_sha256", []string{"0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"},
			[]string{"0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A", "000000000000000000000000000000000000000000000000000000000000000", "sha256:0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"}},
		{"minio", "bucket", []string{"abc", "tempo-traces", "a.b.c"}, []string{"ab", "a..b", "Tempo", "-abc", "a_b"}},
		{"minio", "release_name", []string{"minio"}, []string{"a234567890123456789012345678901234567890123456789012345"}},
		{"minio", "region", []string{"us-east-1"}, []string{"US", "eu central"}},
		{"postgresql", "database", []string{"app", "_x1"}, []string{"1app", "App", "a-b", "a;drop"}},
		{"postgresql", "backup_schedule", []string{"0 3 * * *"}, []string{"0 3 * *", "0 3 * * *\nsuspend: true"}},
		{"tempo", "retention", []string{"336h"}, []string{"0s", "two weeks"}},
	}
	for _, c := range cases {
		p, err := cat.Get(c.pack, "")
		if err != nil {
			t.Fatal(err)
		}
		s := p.Parameters[c.param]
		for _, v := range c.ok {
			if err := paramtype.Check(s, v); err != nil {
				t.Errorf("%s.%s: got: %v want: %q accepted", c.pack, c.param, err, v)
			}
		}
		for _, v := range c.bad {
			if paramtype.Check(s, v) == nil {
				t.Errorf("%s.%s: got: %q accepted want: refused", c.pack, c.param, v)
			}
		}
	}
}

// TestBuiltinJobParamsTyped: every job declaration of a builtin pack
// stands for a typed spec (its own, or the pack's).
func TestBuiltinJobParamsTyped(t *testing.T) {
	for _, p := range builtin(t).List() {
		for _, id := range protocol.SortedKeys(p.Jobs) {
			for _, name := range protocol.SortedKeys(p.Jobs[id].Inputs.Parameters) {
				var pack *protocol.ParamSpec
				if s, ok := p.Parameters[name]; ok {
					pack = &s
				}
				decl := p.Jobs[id].Inputs.Parameters[name]
				if pack == nil && decl.Type == "" {
					t.Errorf("%s job %s: parameter %s has no type", p.Ref(), id, name)
				}
				if eff := paramtype.Inherit(decl, pack); eff.Type == "" || len(paramtype.ValidateSpec(eff)) > 0 {
					t.Errorf("%s job %s: parameter %s: got: %+v want: a valid typed spec", p.Ref(), id, name, eff)
				}
			}
		}
	}
}
