package hostsim

import (
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

// kubeadmToken runs fn on the state when the admin kubeconfig reaches
// the API server (kubeadm token create|list).
func (s *sim) kubeadmToken(p flags, fn func(*State) int) int {
	code := 0
	err := s.st.update(func(st *State) error {
		if msg := s.kubeadmAdmin(st, p); msg != "" {
			code = s.fail(1, "%s\nTo see the stack trace of this error execute with --v=5 or higher", msg)
			return nil
		}
		code = fn(st)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim kubeadm token: %v", err)
	}
	return code
}

// kubeadmTokenCreate is kubeadm token create [--ttl D] [--print-join-command].
func (s *sim) kubeadmTokenCreate(p flags) int {
	return s.kubeadmToken(p, func(st *State) int {
		ttl := 24 * time.Hour
		if t := p.get("ttl"); t != "" {
			d, err := time.ParseDuration(t)
			if err != nil {
				return s.fail(1, "invalid argument %q for \"--ttl\" flag: %v", t, err)
			}
			ttl = d
		}
		tok, err := s.addToken(st, "", ttl)
		if err != nil {
			return s.fail(1, "%v", err)
		}
		if p.has("print-join-command") {
			s.printf("kubeadm join %s --token %s --discovery-token-ca-cert-hash %s \n", st.API.Endpoint, tok, st.CA.Hash)
		} else {
			s.printf("%s\n", tok)
		}
		return 0
	})
}

// kubeadmTokenList is kubeadm token list: the unexpired tokens as a table.
func (s *sim) kubeadmTokenList(p flags) int {
	return s.kubeadmToken(p, func(st *State) int {
		var live []Token
		for _, t := range st.Tokens {
			if t.Expires.IsZero() || s.now().Before(t.Expires) {
				live = append(live, t)
			}
		}
		slices.SortFunc(live, func(a, b Token) int { return strings.Compare(a.ID, b.ID) })
		if len(live) == 0 {
			return 0
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
		return 0
	})
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
