package packs

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// scriptPattern returns the one regular expression the scripts match the
// shell variable name against (`[[ "$name" =~ RE ]]`), failing unless every
// script holds it and all agree.
func scriptPattern(t *testing.T, name string, scripts ...string) *regexp.Regexp {
	t.Helper()
	re := regexp.MustCompile(`\[\[ "\$` + name + `" =~ (\S+) \]\]`)
	found := ""
	for _, s := range scripts {
		m := re.FindAllStringSubmatch(readFile(t, "builtin/kubernetes/scripts/"+s), -1)
		if len(m) == 0 {
			t.Fatalf("%s checks no $%s with [[ =~ ]]", s, name)
		}
		for _, g := range m {
			if found != "" && g[1] != found {
				t.Fatalf("%s checks $%s with %s, another script with %s", s, name, g[1], found)
			}
			found = g[1]
		}
	}
	return regexp.MustCompile(found)
}

// caCertHash is kubeadm's discovery hash of a CA certificate: SHA-256 of
// its DER SubjectPublicKeyInfo, computed here with Go's crypto alone.
func caCertHash(t *testing.T, caPEM string) string {
	t.Helper()
	sum := sha256.Sum256(parseCert(t, "ca.crt", caPEM).RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func parseCert(t *testing.T, name, data string) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode([]byte(data))
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("%s holds no PEM certificate:\n%.300s", name, data)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// checkAdminKubeconfig: the kubeconfig.admin artifact reaches server with
// the cluster's CA and a client certificate that CA signed for kubeadm's
// cluster administrators.
func checkAdminKubeconfig(t *testing.T, data, caPEM, server string) {
	t.Helper()
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
				CAData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct {
				CertData string `yaml:"client-certificate-data"`
			} `yaml:"user"`
		} `yaml:"users"`
	}
	if err := yaml.Unmarshal([]byte(data), &kc); err != nil {
		t.Fatalf("kubeconfig.admin: %v\n%s", err, data)
	}
	if len(kc.Clusters) != 1 || len(kc.Users) != 1 {
		t.Fatalf("kubeconfig.admin has %d clusters and %d users, want one each", len(kc.Clusters), len(kc.Users))
	}
	if got := kc.Clusters[0].Cluster.Server; got != server {
		t.Errorf("kubeconfig.admin server = %s, want %s", got, server)
	}
	ca, err := base64.StdEncoding.DecodeString(kc.Clusters[0].Cluster.CAData)
	if err != nil || string(ca) != caPEM {
		t.Errorf("kubeconfig.admin CA is not /etc/kubernetes/pki/ca.crt (%v)", err)
	}
	certPEM, err := base64.StdEncoding.DecodeString(kc.Users[0].User.CertData)
	if err != nil {
		t.Fatalf("kubeconfig.admin client certificate: %v", err)
	}
	cert := parseCert(t, "kubeconfig.admin client certificate", string(certPEM))
	if err := cert.CheckSignatureFrom(parseCert(t, "ca.crt", caPEM)); err != nil {
		t.Errorf("kubeconfig.admin client certificate is not signed by ca.crt: %v", err)
	}
	if !slices.Contains(cert.Subject.Organization, "kubeadm:cluster-admins") {
		t.Errorf("kubeconfig.admin client certificate organizations = %v, want kubeadm:cluster-admins", cert.Subject.Organization)
	}
}

// checkServingNames: the API server certificate covers every name a client
// reaches it by.
func checkServingNames(t *testing.T, certPEM string, names ...string) {
	t.Helper()
	cert := parseCert(t, "apiserver.crt", certPEM)
	for _, n := range names {
		if err := cert.VerifyHostname(n); err != nil {
			t.Errorf("apiserver.crt does not cover %s: %v (DNS %v, IP %v)", n, err, cert.DNSNames, cert.IPAddresses)
		}
	}
}

// tokenExpiry is the expiration of the bootstrap token Secret that
// `kubeadm token create --dry-run` would have created.
func tokenExpiry(t *testing.T, out string) time.Time {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  expiration: (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("kubeadm token create --dry-run shows no token Secret expiration:\n%s", out)
	}
	b, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatalf("token expiration %q: %v", m[1], err)
	}
	at, err := time.Parse(time.RFC3339, string(b))
	if err != nil {
		t.Fatalf("token expiration %q: %v", b, err)
	}
	return at
}

// TestKubeadmTokenGenerate: every token the real kubeadm generates passes
// the check the scripts apply to the tokens they read.
func TestKubeadmTokenGenerate(t *testing.T) {
	re := scriptPattern(t, "token", "init-control-plane.sh", "generate-join-token.sh", "join-node.sh")
	bin := kubeadmBinary(t)
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		out, err := kubeadmOut(t, bin, "token", "generate")
		if err != nil {
			t.Fatalf("kubeadm token generate: %v\n%s", err, out)
		}
		tok := strings.TrimSuffix(out, "\n")
		if !re.MatchString(tok) {
			t.Errorf("kubeadm token generate printed %q, which the scripts' check %s refuses", tok, re)
		}
		seen[tok] = true
	}
	if len(seen) != 20 {
		t.Errorf("20 runs of kubeadm token generate gave %d distinct tokens", len(seen))
	}
	for _, bad := range []string{"abcdef.0123456789abcdeF", "abcdef0123456789abcdef", "abcde.0123456789abcdefg"} {
		if re.MatchString(bad) {
			t.Errorf("the scripts' token check %s accepts %q", re, bad)
		}
		// kubeadm parses the token before it reads any kubeconfig.
		if out, err := kubeadmOut(t, bin, "token", "create", bad, "--dry-run", "--print-join-command"); err == nil || !strings.Contains(out, "was not of the form") {
			t.Errorf("kubeadm token create %q: %v, want a refused token:\n%s", bad, err, out)
		}
	}
}

// fmtHosts names hosts prefix-1..n.
func fmtHosts(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}
