package hostsim

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// kubeadmAdmin checks what kubeadm commands that talk to the API server
// need: the admin kubeconfig readable and the API server up.
func (s *sim) kubeadmAdmin(st *State, p flags) string {
	kc := firstNonEmpty(p.get("kubeconfig"), "/etc/kubernetes/admin.conf")
	if _, err := s.readHostFile(kc); err != nil {
		if os.IsPermission(err) {
			return fmt.Sprintf("failed to load admin kubeconfig: open %s: permission denied", kc)
		}
		return fmt.Sprintf("failed to load admin kubeconfig: open %s: no such file or directory", kc)
	}
	if st.API == nil {
		return "failed to create API client: Get \"https://127.0.0.1:6443/api?timeout=32s\": dial tcp 127.0.0.1:6443: connect: connection refused"
	}
	return ""
}

func (s *sim) kubeadmToken(p flags) int {
	switch p.arg(1) {
	case "generate":
		id, secret := randomToken()
		s.printf("%s.%s\n", id, secret)
		return 0
	case "create", "list", "delete":
	default:
		return s.fail(1, "cp-hostsim kubeadm token: %q is not simulated (create, list, delete, generate)", p.arg(1))
	}
	code := 0
	err := s.st.update(func(st *State) error {
		if msg := s.kubeadmAdmin(st, p); msg != "" {
			code = s.fail(1, "%s\nTo see the stack trace of this error execute with --v=5 or higher", msg)
			return nil
		}
		switch p.arg(1) {
		case "create":
			ttl := 24 * time.Hour
			if t := p.get("ttl"); t != "" {
				d, err := time.ParseDuration(t)
				if err != nil {
					code = s.fail(1, "invalid argument %q for \"--ttl\" flag: %v", t, err)
					return nil
				}
				ttl = d
			}
			tok, err := s.addToken(st, p.arg(2), ttl)
			if err != nil {
				code = s.fail(1, "%v", err)
				return nil
			}
			if p.has("print-join-command") {
				s.printf("kubeadm join %s --token %s --discovery-token-ca-cert-hash %s \n", st.API.Endpoint, tok, st.CA.Hash)
			} else {
				s.printf("%s\n", tok)
			}
		case "list":
			var live []Token
			for _, t := range st.Tokens {
				if t.Expires.IsZero() || s.now().Before(t.Expires) {
					live = append(live, t)
				}
			}
			slices.SortFunc(live, func(a, b Token) int { return strings.Compare(a.ID, b.ID) })
			if f := firstNonEmpty(p.get("o"), p.get("output")); f == "json" {
				for _, t := range live {
					b, _ := json.MarshalIndent(map[string]any{"kind": "BootstrapToken", "apiVersion": "output.kubeadm.k8s.io/v1alpha3", "token": t.String(), "expires": t.Expires, "usages": []string{"authentication", "signing"}, "groups": []string{"system:bootstrappers:kubeadm:default-node-token"}}, "", "    ")
					s.printf("%s\n", b)
				}
				return nil
			}
			if len(live) == 0 {
				return nil
			}
			s.printf("%-23s   %-10s  %-20s   %-22s   %-58s %s\n", "TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS")
			for _, t := range live {
				ttl, exp := "<forever>", "<never>"
				if !t.Expires.IsZero() {
					ttl = humanDuration(t.Expires.Sub(s.now()))
					exp = t.Expires.UTC().Format(time.RFC3339)
				}
				s.printf("%-23s   %-10s  %-20s   %-22s   %-58s %s\n", t.String(), ttl, exp, "authentication,signing", "<none>", "system:bootstrappers:kubeadm:default-node-token")
			}
		case "delete":
			for _, id := range p.pos[2:] {
				id, _, _ = strings.Cut(id, ".")
				n := len(st.Tokens)
				st.Tokens = slices.DeleteFunc(st.Tokens, func(t Token) bool { return t.ID == id })
				if len(st.Tokens) == n {
					code = s.fail(1, "failed to delete bootstrap token %q: secrets \"bootstrap-token-%s\" not found", id, id)
					return nil
				}
				s.printf("bootstrap token %q deleted\n", id)
			}
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm token: %v", err)
	}
	return code
}

// humanDuration renders a duration like kubectl's AGE column.
func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "<invalid>"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
