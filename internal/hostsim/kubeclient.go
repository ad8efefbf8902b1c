package hostsim

import (
	"os"
	"path/filepath"
	"strings"
)

// kubeconfigPath resolves the kubeconfig like kubectl and helm:
// --kubeconfig, then $KUBECONFIG, then $HOME/.kube/config.
func (s *sim) kubeconfigPath(p flags) (path string, explicit bool) {
	if f := p.get("kubeconfig"); f != "" {
		return f, true
	}
	if env := s.getenv("KUBECONFIG"); env != "" {
		for _, f := range strings.Split(env, ":") {
			if f != "" {
				if _, err := os.Stat(s.path(f)); err == nil {
					return f, false
				}
			}
		}
		return "", false
	}
	home := s.getenv("HOME")
	if home == "" {
		return "", false
	}
	return filepath.Join(home, ".kube/config"), false
}

// connect checks that a client can reach the simulated API server; it
// returns the error kubectl prints ("" when connected).
func (s *sim) connect(st *State, p flags) string {
	path, explicit := s.kubeconfigPath(p)
	refused := "The connection to the server localhost:8080 was refused - did you specify the right host or port?"
	if path == "" {
		return refused
	}
	b, err := s.readHostFile(path)
	if err != nil {
		if os.IsPermission(err) {
			return "error: error loading config file \"" + path + "\": open " + path + ": permission denied"
		}
		if explicit {
			return "error: stat " + path + ": no such file or directory"
		}
		return refused
	}
	kc, err := parseKubeconfig(b)
	if err != nil {
		return "error: " + err.Error()
	}
	server := strings.TrimPrefix(kc.Server, "https://")
	if st.API == nil {
		return "The connection to the server " + server + " was refused - did you specify the right host or port?"
	}
	if st.CA == nil || strings.TrimSpace(kc.CAPEM) != strings.TrimSpace(st.CA.CertPEM) {
		return "Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority (possibly because of \"crypto/rsa: verification error\" while trying to verify candidate authority certificate \"kubernetes\")"
	}
	if server != st.API.Endpoint && !s.endpointMatches(st, server) {
		return "The connection to the server " + server + " was refused - did you specify the right host or port?"
	}
	return ""
}
