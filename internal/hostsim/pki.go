package hostsim

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// newCA creates a cluster CA like kubeadm's (RSA 2048, CN=kubernetes, 10y).
func newCA(now time.Time) (*CA, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kubernetes"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("sign CA certificate: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("encode CA public key: %w", err)
	}
	sum := sha256.Sum256(spki)
	return &CA{
		CertPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		KeyPEM:  string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
		Hash:    "sha256:" + hex.EncodeToString(sum[:]),
	}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// clientCert issues a client certificate signed by the CA.
func (ca *CA) clientCert(now time.Time, cn string, orgs ...string) (certPEM, keyPEM string, err error) {
	cb, _ := pem.Decode([]byte(ca.CertPEM))
	kb, _ := pem.Decode([]byte(ca.KeyPEM))
	if cb == nil || kb == nil {
		return "", "", fmt.Errorf("cluster CA in the simulator state is not PEM; run kubeadm reset -f and init again")
	}
	caCert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return "", "", fmt.Errorf("parse cluster CA: %w", err)
	}
	caKey, err := x509.ParsePKCS1PrivateKey(kb.Bytes)
	if err != nil {
		return "", "", fmt.Errorf("parse cluster CA key: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", fmt.Errorf("generate client key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return "", "", fmt.Errorf("sign client certificate %s: %w", cn, err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})), nil
}

// kubeconfig renders a kubeconfig for user with a client certificate.
func (ca *CA) kubeconfig(now time.Time, server, user string, orgs ...string) (string, error) {
	cert, key, err := ca.clientCert(now, user, orgs...)
	if err != nil {
		return "", err
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return fmt.Sprintf(`apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %s
    server: https://%s
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: %s
  name: %s@kubernetes
current-context: %s@kubernetes
kind: Config
preferences: {}
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
`, b64(ca.CertPEM), server, user, user, user, user, b64(cert), b64(key)), nil
}

// kubeconfigInfo is what the simulator reads back from a kubeconfig.
type kubeconfigInfo struct {
	Server string
	CAPEM  string
}

func parseKubeconfig(b []byte) (kubeconfigInfo, error) {
	var kc struct {
		CurrentContext string `yaml:"current-context"`
		Clusters       []struct {
			Name    string `yaml:"name"`
			Cluster struct {
				Server string `yaml:"server"`
				CAData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Contexts []struct {
			Name    string `yaml:"name"`
			Context struct {
				Cluster string `yaml:"cluster"`
			} `yaml:"context"`
		} `yaml:"contexts"`
	}
	if err := yaml.Unmarshal(b, &kc); err != nil {
		return kubeconfigInfo{}, fmt.Errorf("parse kubeconfig: %w", err)
	}
	cluster := ""
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			cluster = c.Context.Cluster
		}
	}
	for _, c := range kc.Clusters {
		if c.Name == cluster || cluster == "" {
			ca, err := base64.StdEncoding.DecodeString(c.Cluster.CAData)
			if err != nil {
				return kubeconfigInfo{}, fmt.Errorf("decode certificate-authority-data: %w", err)
			}
			return kubeconfigInfo{Server: c.Cluster.Server, CAPEM: string(ca)}, nil
		}
	}
	return kubeconfigInfo{}, fmt.Errorf("invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable")
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// randomToken returns a kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}).
func randomToken() (string, string) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	pick := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
			sb.WriteByte(alphabet[k.Int64()])
		}
		return sb.String()
	}
	return pick(6), pick(16)
}
