package hostsim

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"gopkg.in/yaml.v3"
)

// kubeconfigCert is one kubeconfig whose embedded client certificate
// kubeadm manages: its file and the identity kubeadm gives it.
type kubeconfigCert struct {
	name string // as check-expiration lists it
	user string
	orgs []string
}

// managedKubeconfigs are the kubeconfigs the simulated kubeadm writes on a
// control-plane node, sorted by name as kubeadm lists them. kubelet.conf
// is not among them: the kubelet rotates its own certificate.
var managedKubeconfigs = []kubeconfigCert{
	{"admin.conf", "kubernetes-admin", []string{"kubeadm:cluster-admins"}},
	{"controller-manager.conf", "system:kube-controller-manager", nil},
	{"scheduler.conf", "system:kube-scheduler", nil},
	{"super-admin.conf", "kubernetes-super-admin", []string{"system:masters"}},
}

// kubeconfigClientCert returns the client certificate embedded in a
// kubeconfig.
func kubeconfigClientCert(b []byte) (*x509.Certificate, error) {
	var kc struct {
		Users []struct {
			User struct {
				CertData string `yaml:"client-certificate-data"`
			} `yaml:"user"`
		} `yaml:"users"`
	}
	if err := yaml.Unmarshal(b, &kc); err != nil {
		return nil, fmt.Errorf("parse kubeconfig: %w", err)
	}
	if len(kc.Users) == 0 || kc.Users[0].User.CertData == "" {
		return nil, errors.New("no client-certificate-data")
	}
	raw, err := base64.StdEncoding.DecodeString(kc.Users[0].User.CertData)
	if err != nil {
		return nil, fmt.Errorf("decode client-certificate-data: %w", err)
	}
	return parseCertPEM(raw)
}

func parseCertPEM(raw []byte) (*x509.Certificate, error) {
	b, _ := pem.Decode(raw)
	if b == nil {
		return nil, errors.New("not PEM")
	}
	return x509.ParseCertificate(b.Bytes)
}

// residual is kubeadm's residual time: the largest unit, or <invalid>
// once expired (duration.ShortHumanDuration).
func residual(d time.Duration) string {
	switch h := d.Hours(); {
	case d < 0:
		return "<invalid>"
	case h >= 24*365*2:
		return fmt.Sprintf("%dy", int(h/(24*365)))
	case h >= 48:
		return fmt.Sprintf("%dd", int(h/24))
	case h >= 1:
		return fmt.Sprintf("%dh", int(h))
	default:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
}

// kubeadmCertsCheckExpiration is kubeadm certs check-expiration: the
// expiry of each kubeconfig client certificate and of the CA this host
// holds, read from the files themselves, in kubeadm's two tables. The
// simulated kubeadm writes no other certificate (apiserver, etcd, front
// proxy), so none is listed.
func (s *sim) kubeadmCertsCheckExpiration(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "error execution phase preflight: [preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	caRaw, err := s.readHostFile("/etc/kubernetes/pki/ca.crt")
	if err != nil {
		return s.fail(1, "failed to load existing certificate ca: open /etc/kubernetes/pki/ca.crt: no such file or directory\nTo see the stack trace of this error execute with --v=5 or higher")
	}
	ca, err := parseCertPEM(caRaw)
	if err != nil {
		return s.fail(1, "failed to load existing certificate ca: %v", err)
	}
	now := s.now()
	stamp := func(t time.Time) string { return t.UTC().Format("Jan 02, 2006 15:04 UTC") }
	s.printf("[check-expiration] Reading configuration from the cluster...\n[check-expiration] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'\n\n")
	w := tabwriter.NewWriter(s.out, 10, 4, 3, ' ', 0)
	fmt.Fprintln(w, "CERTIFICATE\tEXPIRES\tRESIDUAL TIME\tCERTIFICATE AUTHORITY\tEXTERNALLY MANAGED")
	for _, k := range managedKubeconfigs {
		b, err := s.readHostFile("/etc/kubernetes/" + k.name)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "!MISSING! %s\t\t\t\t\n", k.name)
			continue
		}
		if err != nil {
			return s.fail(1, "failed to load kubeconfig %s: %v", k.name, err)
		}
		c, err := kubeconfigClientCert(b)
		if err != nil {
			return s.fail(1, "failed to load certificate embedded in %s: %v", k.name, err)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\tca\tno\n", k.name, stamp(c.NotAfter), residual(c.NotAfter.Sub(now)))
	}
	if err := w.Flush(); err != nil {
		return s.fail(1, "write: %v", err)
	}
	s.printf("\n")
	w = tabwriter.NewWriter(s.out, 10, 4, 3, ' ', 0)
	fmt.Fprintln(w, "CERTIFICATE AUTHORITY\tEXPIRES\tRESIDUAL TIME\tEXTERNALLY MANAGED")
	fmt.Fprintf(w, "ca\t%s\t%s\tno\n", stamp(ca.NotAfter), residual(ca.NotAfter.Sub(now)))
	if err := w.Flush(); err != nil {
		return s.fail(1, "write: %v", err)
	}
	return 0
}

// kubeadmCertsRenewAll is kubeadm certs renew all: each managed
// kubeconfig on this host gets a new client certificate, valid a year
// from now, signed by the cluster CA; a kubeconfig the host lacks is
// skipped. What runs with the old certificates keeps them until it
// restarts (the simulator runs no pod, so nothing is restarted).
func (s *sim) kubeadmCertsRenewAll(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "error execution phase preflight: [preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root")
	}
	var ca *CA
	var endpoint string
	if err := s.st.view(func(st *State) error {
		if st.CA == nil || st.API == nil {
			return errors.New("this host is not part of an initialized cluster")
		}
		ca, endpoint = st.CA, st.API.Endpoint
		return nil
	}); err != nil {
		return s.fail(1, "failed to renew certificates: %v", err)
	}
	if _, err := os.Stat(s.path("/etc/kubernetes/pki/ca.crt")); err != nil {
		return s.fail(1, "failed to load existing certificate ca: open /etc/kubernetes/pki/ca.crt: no such file or directory")
	}
	s.printf("[renew] Reading configuration from the cluster...\n[renew] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'\n\n")
	for _, k := range managedKubeconfigs {
		p := "/etc/kubernetes/" + k.name
		if _, err := os.Stat(s.path(p)); err != nil {
			continue
		}
		kc, err := ca.kubeconfig(s.now(), endpoint, k.user, k.orgs...)
		if err != nil {
			return s.fail(1, "failed to renew %s: %v", k.name, err)
		}
		if err := s.writeHostFile(p, kc, 0o600); err != nil {
			return s.fail(1, "failed to renew %s: %v", k.name, err)
		}
		s.printf("certificate embedded in the kubeconfig file %s renewed\n", strings.TrimSuffix(k.name, ".conf"))
	}
	s.printf("\nDone renewing certificates. You must restart the kube-apiserver, kube-controller-manager, kube-scheduler and etcd, so that they can use the new certificates.\n")
	return 0
}
