package protocol

import (
	"strings"
	"testing"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://10.0.0.10:6443
    certificate-authority-data: Y2E=
users:
- name: kubernetes-admin
  user:
    client-key-data: c2VjcmV0LWtleQ==
contexts:
- name: admin@prod
  context: {cluster: prod, user: kubernetes-admin}
current-context: admin@prod
`

const testKubeadmConfig = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.33.2
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
`

// TestArtifactTypes: every artifact type accepts what the built-in
// scripts write and refuses values of another form, each refusal saying
// what is wrong without quoting the value.
func TestArtifactTypes(t *testing.T) {
	cases := map[string]struct{ valid, invalid []string }{
		"env_file": {
			valid:   []string{"PGUSER=app\nPGPASSWORD=s3cr3t=x\n", "S3_ADMIN_API=minio\n"},
			invalid: []string{"", "pguser=app\n", "PGUSER app\n", "PGUSER=app\n\nX=1\n", "1KEY=v\n"},
		},
		"etcd.snapshot.manifest": {
			valid: []string{"host=m1\nfile=/var/lib/cp/kubernetes/etcd-snapshots/etcd-20260101T000000Z.db\nsha256=" + strings.Repeat("ab", 32) + "\nstatus={\"hash\":1}\n"},
			invalid: []string{"file=/x\nsha256=" + strings.Repeat("ab", 32) + "\n", "host=m1\nfile=relative.db\nsha256=" + strings.Repeat("ab", 32) + "\n",
				"host=m1\nfile=/x.db\nsha256=abc\n", "not key value\n"},
		},
		"file": {valid: []string{"version = 2\n", "x"}, invalid: []string{""}},
		"file_ref": {
			valid:   []string{"m1:/etc/kubernetes/pki/ca.crt\n"},
			invalid: []string{"", "m1\n", "m1:relative/path\n", ":/etc/x\n", "m1:/a\nm2:/b\n"},
		},
		"host.identity": {
			valid:   []string{strings.Repeat("0a", 16) + " node-1\n"},
			invalid: []string{"", strings.Repeat("0a", 16) + "\n", "abc node-1\n", strings.Repeat("0a", 16) + " bad_name!\n", "id=1\n"},
		},
		"inventory": {
			valid:   []string{"1 m1 10.0.0.1 master\n2 w1 10.0.0.2 worker\n"},
			invalid: []string{"", "1 m1 10.0.0.1\n", "2 m1 10.0.0.1 master\n", "1 m1 10.0.0.1 master\n3 w1 10.0.0.2 worker\n", "1 M_1 10.0.0.1 master\n"},
		},
		"json": {valid: []string{`{"a":1}` + "\n", "[1, 2]"}, invalid: []string{"", "{a:1}", "{\"a\":1"}},
		"key_value": {
			valid:   []string{"host=db.svc\nport=5432\n", "os=ubuntu 22.04\nstatus={\"x\":1}\n"},
			invalid: []string{"", "Host=db\n", "host db\n", "host=a\nhost=b\n", "host=a\n\nport=1\n"},
		},
		"kubeadm.certificate_key": {
			valid:   []string{strings.Repeat("0f", 32) + "\n"},
			invalid: []string{"", strings.Repeat("0f", 31) + "\n", strings.Repeat("0F", 32) + "\n", strings.Repeat("0f", 32) + "\nmore\n"},
		},
		"kubeadm.config": {
			valid:   []string{testKubeadmConfig},
			invalid: []string{"", "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n", "apiVersion: v1\nkind: ClusterConfiguration\n", "a: [\n", "kubernetesVersion: v1.33.2\n"},
		},
		"kubeadm.token": {
			valid:   []string{"abcdef.0123456789abcdef\n", "abcdef.0123456789abcdef"},
			invalid: []string{"", "abcdef0123456789abcdef\n", "ABCDEF.0123456789abcdef\n", "abcde.0123456789abcdef\n", "abcdef.0123456789abcdef\nx\n"},
		},
		"kubeconfig": {
			valid: []string{testKubeconfig},
			invalid: []string{"", "a: [\n", "kind: Config\nusers: [{name: u}]\n", "kind: Config\nclusters: [{name: c, cluster: {server: https://x}}]\n",
				"kind: Secret\nclusters: [{name: c, cluster: {server: https://x}}]\nusers: [{name: u}]\n", "clusters: [{name: c}]\nusers: [{name: u}]\n"},
		},
		"list": {valid: []string{"a\nb\n", "one"}, invalid: []string{"", "a\n\nb\n"}},
		"secret_ref": {
			valid:   []string{"observability/tempo-s3\n"},
			invalid: []string{"", "tempo-s3\n", "Observability/tempo-s3\n", "ns/\n", "a/b/c\n"},
		},
		"sha256": {
			valid:   []string{"sha256:" + strings.Repeat("a1", 32) + "\n"},
			invalid: []string{"", strings.Repeat("a1", 32) + "\n", "sha256:" + strings.Repeat("a1", 31) + "\n", "md5:" + strings.Repeat("a1", 32) + "\n"},
		},
		"string":               {valid: []string{"4bf92f3577b34da6a3ce929d0e0e4736\n"}, invalid: []string{"", "\n", "a\nb\n", "a\x00b"}},
		"text":                 {valid: []string{"NAME STATUS\nm1 Ready\n"}, invalid: []string{"", "  \n", "a\x00b", "\xff\xfe"}},
		"url":                  {valid: []string{"http://minio.storage.svc:9000\n", "https://s3.example.org"}, invalid: []string{"", "minio.storage.svc:9000\n", "ftp://x\n", "http://\n", "http://a\nhttp://b\n"}},
		"wireguard.public_key": {valid: []string{"xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\n"}, invalid: []string{"", "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8D\n", "AAAA\n", "not base64 at all!\n"}},
	}
	for _, typ := range ArtifactTypes() {
		if _, ok := cases[typ]; !ok {
			t.Errorf("type %s has no cases", typ)
		}
	}
	for typ, tc := range cases {
		t.Run(typ, func(t *testing.T) {
			if !KnownArtifactType(typ) {
				t.Fatalf("type %s is not registered", typ)
			}
			for _, v := range tc.valid {
				if err := CheckArtifactValue(typ, []byte(v)); err != nil {
					t.Errorf("value %q: got: %v want: accepted", v, err)
				}
			}
			for _, v := range tc.invalid {
				err := CheckArtifactValue(typ, []byte(v))
				if err == nil {
					t.Errorf("value %q: got: accepted want: refused", v)
					continue
				}
				if !strings.Contains(err.Error(), "not a "+typ+" value") {
					t.Errorf("value %q: got: %v want: the type named", v, err)
				}
				if s := strings.TrimSpace(v); len(s) > 3 && strings.Contains(err.Error(), s) {
					t.Errorf("value %q: the error %q quotes the value", v, err)
				}
			}
		})
	}
}

// TestArtifactTypeUnknown: an unknown type is not known and its value is
// refused; an untyped artifact is not checked.
func TestArtifactTypeUnknown(t *testing.T) {
	if KnownArtifactType("token") {
		t.Error("got: token known want: unknown")
	}
	if err := CheckArtifactValue("token", []byte("x")); err == nil || !strings.Contains(err.Error(), `"token" is not an artifact type`) {
		t.Errorf("got: %v want: token refused as unknown", err)
	}
	if !KnownArtifactType("") || CheckArtifactValue("", []byte("")) != nil {
		t.Error("got: an untyped artifact checked want: not checked")
	}
}

// BenchmarkCheckArtifactValue measures the engine's per-artifact check of
// the largest built-in type to parse, a kubeconfig.
func BenchmarkCheckArtifactValue(b *testing.B) {
	v := []byte(testKubeconfig)
	for b.Loop() {
		if err := CheckArtifactValue("kubeconfig", v); err != nil {
			b.Fatal(err)
		}
	}
}
