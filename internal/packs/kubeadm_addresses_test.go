package packs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Cluster shapes with node addresses other than the SSH addresses (NAT,
// floating IPs, a second NIC) and kubelet settings other than the
// defaults; TestKubeadmValidateRendered validates them with every other
// shape.
func init() {
	kubeadmClusters["node-addresses"] = kubeadmCluster{params: map[string]string{
		"node_addresses": "m-1=172.16.0.11,m-2=172.16.0.12,w-1=172.16.0.21", "kubernetes_version": "1.34.2",
		"control_plane_endpoint": "api.prod.example.internal:6443",
	}, masters: 2, workers: 1, server: "api.prod.example.internal:6443"}
	kubeadmClusters["node-address-default-endpoint"] = kubeadmCluster{params: map[string]string{
		"node_addresses": "m-1=172.16.0.11", "system_reserved_cpu": "500m", "system_reserved_memory": "1Gi",
		"kube_reserved_cpu": "0.25", "kube_reserved_memory": "512Mi", "eviction_memory_available": "200Mi",
		"eviction_nodefs_available": "5%", "eviction_imagefs_available": "20%",
	}, masters: 1, workers: 1, server: "172.16.0.11:6443"}
	kubeadmClusters["node-addresses-v1beta3"] = kubeadmCluster{params: map[string]string{
		"node_addresses": "m-1=172.16.0.11,w-1=172.16.0.21", "kubernetes_version": "1.30.5", "control_plane_endpoint": "api.old.example.internal:6443",
	}, masters: 1, workers: 1, server: "api.old.example.internal:6443"}
}

// docOf is the document of kind in a rendered file.
func docOf(t *testing.T, file, kind string) map[string]any {
	t.Helper()
	for _, d := range yamlDocs(t, readFile(t, file)) {
		if d["kind"] == kind {
			return d
		}
	}
	t.Fatalf("%s has no %s:\n%s", file, kind, readFile(t, file))
	return nil
}

func field(d map[string]any, path ...string) any {
	var v any = d
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// The init and join configurations advertise each master on its node
// address and give every kubelet its node address as node-ip (a list of
// name/value pairs in v1beta4, a map in v1beta3); with no endpoint set
// the cluster is reached on the first master's node address and its SSH
// address is a further API server name; the KubeletConfiguration kubeadm
// uploads holds the systemd cgroup driver, the reservations and the
// eviction thresholds of the parameters. kubeadm config validate passes
// them (TestKubeadmValidateRendered).
func TestKubeadmNodeAddressesAndKubeletConfiguration(t *testing.T) {
	bin := kubeadmBinary(t)
	for _, name := range []string{"node-addresses", "node-address-default-endpoint", "node-addresses-v1beta3"} {
		t.Run(name, func(t *testing.T) {
			c := kubeadmClusters[name]
			nodeIP := map[string]string{}
			for _, e := range strings.Split(c.params["node_addresses"], ",") {
				k, v, _ := strings.Cut(e, "=")
				nodeIP[k] = v
			}
			configs, _ := renderCluster(t, bin, c)
			v1beta3 := c.params["kubernetes_version"] == "1.30.5"
			for _, rc := range configs {
				host, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(rc.name, "join-node on "), "init-control-plane on "), " ")
				var reg map[string]any
				switch {
				case strings.HasPrefix(rc.name, "render-kubeadm-config"):
					kc := docOf(t, rc.file, "KubeletConfiguration")
					want := map[string]any{"cgroupDriver": "systemd",
						"systemReserved": map[string]any{"cpu": or(c.params["system_reserved_cpu"], "100m"), "memory": or(c.params["system_reserved_memory"], "256Mi")},
						"kubeReserved":   map[string]any{"cpu": or(c.params["kube_reserved_cpu"], "100m"), "memory": or(c.params["kube_reserved_memory"], "256Mi")},
						"evictionHard": map[string]any{"memory.available": or(c.params["eviction_memory_available"], "100Mi"),
							"nodefs.available": or(c.params["eviction_nodefs_available"], "10%"), "imagefs.available": or(c.params["eviction_imagefs_available"], "15%")},
					}
					for k, v := range want {
						if !reflect.DeepEqual(kc[k], v) {
							t.Errorf("KubeletConfiguration %s = %v, want %v", k, kc[k], v)
						}
					}
					cc := docOf(t, rc.file, "ClusterConfiguration")
					if got := cc["controlPlaneEndpoint"]; got != c.server {
						t.Errorf("controlPlaneEndpoint = %v, want %s", got, c.server)
					}
					sans := field(cc, "apiServer", "certSANs")
					if _, set := c.params["control_plane_endpoint"]; !set && !reflect.DeepEqual(sans, []any{hostAddress("m-1")}) {
						t.Errorf("certSANs = %v, want the first master's SSH address %s", sans, hostAddress("m-1"))
					}
					continue
				case strings.HasPrefix(rc.name, "init-control-plane"):
					d := docOf(t, rc.file, "InitConfiguration")
					if got := field(d, "localAPIEndpoint", "advertiseAddress"); got != nodeIP[host] || got == "" {
						t.Errorf("%s: advertiseAddress %v, want %s", rc.name, got, nodeIP[host])
					}
					reg, _ = d["nodeRegistration"].(map[string]any)
				default:
					d := docOf(t, rc.file, "JoinConfiguration")
					if strings.HasPrefix(host, "m-") {
						if got := field(d, "controlPlane", "localAPIEndpoint", "advertiseAddress"); got != nodeIP[host] {
							t.Errorf("%s: advertiseAddress %v, want %s", rc.name, got, nodeIP[host])
						}
					}
					if got := field(d, "discovery", "bootstrapToken", "apiServerEndpoint"); got != c.server {
						t.Errorf("%s: apiServerEndpoint %v, want %s", rc.name, got, c.server)
					}
					reg, _ = d["nodeRegistration"].(map[string]any)
				}
				want := nodeIP[host]
				if want == "" {
					want = hostAddress(host)
				}
				var wantArgs any = []any{map[string]any{"name": "node-ip", "value": want}}
				if v1beta3 {
					wantArgs = map[string]any{"node-ip": want}
				}
				if got := reg["kubeletExtraArgs"]; !reflect.DeepEqual(got, wantArgs) {
					t.Errorf("%s: kubeletExtraArgs %v, want %v", rc.name, got, wantArgs)
				}
			}
		})
	}
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// A misspelt KubeletConfiguration field is refused by kubeadm config
// validate, so the validation above reads the kubelet's settings too.
func TestKubeadmValidateRefusesWrongKubeletField(t *testing.T) {
	bin := kubeadmBinary(t)
	configs, _ := renderCluster(t, bin, kubeadmClusters["node-addresses"])
	for _, rc := range configs {
		if !strings.HasPrefix(rc.name, "init-control-plane") {
			continue
		}
		body := readFile(t, rc.file)
		if !strings.Contains(body, "\nsystemReserved:") {
			t.Fatalf("the init configuration holds no KubeletConfiguration:\n%s", body)
		}
		file := filepath.Join(t.TempDir(), "wrong-kubelet-field.yaml")
		if err := os.WriteFile(file, []byte(strings.Replace(body, "\nsystemReserved:", "\nsystemReservedX:", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := kubeadmOut(t, bin, "config", "validate", "--config", file); err == nil || !strings.Contains(out, "systemReservedX") {
			t.Errorf("kubeadm config validate accepts a misspelt KubeletConfiguration field: %v\n%s", err, out)
		}
	}
}

// Reservations and thresholds outside their form are refused before
// anything is rendered.
func TestRenderKubeadmConfigRefusesBadKubeletValues(t *testing.T) {
	for param, v := range map[string]string{
		"system_reserved_cpu": "1 core", "system_reserved_memory": "256MB\"", "kube_reserved_cpu": "-1",
		"kube_reserved_memory": "lots", "eviction_memory_available": "10%", "eviction_nodefs_available": "0%", "eviction_imagefs_available": "150%",
	} {
		h := newScriptHost(t)
		env := packEnv(t, "kubernetes", map[string]string{param: v, "cluster_name": "prod"})
		env["CP_FIRST_MASTER"], env["CP_FIRST_MASTER_ADDRESS"] = "m-1", "10.0.0.11"
		res := h.run("kubernetes/scripts/render-kubeadm-config.sh", env, "/var/lib/cp/kubernetes")
		if res.code == 0 || !strings.Contains(res.stderr, param) {
			t.Errorf("%s = %q: exit %d, %s; want refused", param, v, res.code, res.stderr)
		}
		if h.exists("/.out/kubeadm_cluster_config") {
			t.Errorf("%s = %q: a configuration was rendered", param, v)
		}
	}
}
