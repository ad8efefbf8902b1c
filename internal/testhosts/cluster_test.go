package testhosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestHostsAreIsolatedAndReachable(t *testing.T) {
	c := Require(t, Options{Names: []string{"master-1", "worker-1"}})
	hosts := c.Hosts()
	if len(hosts) != 2 || hosts[0].Name != "master-1" || hosts[1].Name != "worker-1" {
		t.Fatalf("got hosts %+v, want master-1, worker-1", hosts)
	}
	m, w := hosts[0], hosts[1]
	marker := "/etc/cp-testhosts-isolation-" + filepath.Base(c.Dir())

	out, err := runSSH(t, m, "hostname && sudo -n sh -c 'echo written-on-master > "+marker+"' && cat "+marker)
	if err != nil {
		t.Fatalf("openssh on master-1: %v\n%s", err, out)
	}
	if got := strings.Fields(out); len(got) != 2 || got[0] != "master-1" || got[1] != "written-on-master" {
		t.Fatalf("got %q, want hostname master-1 and the file content", out)
	}
	if b, err := os.ReadFile(filepath.Join(m.Upper, marker)); err != nil || string(b) != "written-on-master\n" {
		t.Fatalf("upper dir of master-1: got %q, %v; want the file written there", b, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("file written on master-1 is visible on the machine (stat %s: %v)", marker, err)
	}
	out, err = runSSH(t, w, "test -e "+marker+" && echo present || echo absent")
	if err != nil || strings.TrimSpace(out) != "absent" {
		t.Fatalf("worker-1 sees master-1's file: got %q, %v; want absent", out, err)
	}

	// x/crypto/ssh, with the harness known_hosts.
	cl := dial(t, w)
	out, err = run(cl, "id -un && sudo -n id -u")
	if f := strings.Fields(out); err != nil || len(f) != 2 || f[0] != "cp" || f[1] != "0" {
		t.Fatalf("x/crypto/ssh on worker-1: got %q, %v; want user cp and sudo uid 0", out, err)
	}
	// A pty works (sshd needs /dev/pts inside the host).
	s, err := cl.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatalf("request pty: %v", err)
	}
	b, err := s.CombinedOutput("tty")
	if err != nil || !strings.HasPrefix(string(b), "/dev/pts/") {
		t.Fatalf("tty over pty: got %q, %v; want /dev/pts/N", b, err)
	}

	// A wrong host key is refused: the known_hosts entries are per host.
	cfg, _ := m.ClientConfig()
	if _, err := ssh.Dial("tcp", w.Target(), withHostKeyFor(t, cfg, m)); err == nil {
		t.Fatalf("dialing worker-1 while expecting master-1's host key succeeded; want a host key mismatch")
	}

	var desc clusterJSON
	js, err := c.JSON()
	if err != nil || json.Unmarshal(js, &desc) != nil {
		t.Fatalf("JSON: %v\n%s", err, js)
	}
	if len(desc.Hosts) != 2 || desc.Hosts[0].Addr != m.Addr || desc.KnownHostsPath != c.KnownHostsPath() {
		t.Fatalf("JSON describes %+v; want both hosts sorted by name", desc)
	}
	if st, err := os.Stat(c.KeyPath()); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key %s: mode %v, %v; want 0600", c.KeyPath(), st.Mode(), err)
	}
}

// withHostKeyFor returns cfg expecting host key of other at any address.
func withHostKeyFor(t *testing.T, cfg *ssh.ClientConfig, other Host) *ssh.ClientConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(other.Upper), "upper", hostConfDir, "ssh_host_ed25519_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pk, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		t.Fatal(err)
	}
	c := *cfg
	c.HostKeyCallback = ssh.FixedHostKey(pk)
	return &c
}

func TestPasswordUsers(t *testing.T) {
	c := Require(t, Options{Names: []string{"pw-1"}, Users: []User{
		{Name: "cp", KeyAuth: true, Sudo: SudoNoPassword},
		{Name: "become", KeyAuth: true, Password: "become-secret", Sudo: SudoPassword},
		{Name: "pwlogin", Password: "login-secret", Sudo: SudoNoPassword},
	}})
	h := c.Hosts()[0]
	cfg, err := h.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	// become: key login; sudo without password fails, with it works.
	cfg.User = "become"
	cl, err := ssh.Dial("tcp", h.Target(), cfg)
	if err != nil {
		t.Fatalf("key login as become: %v", err)
	}
	defer cl.Close()
	if out, err := run(cl, "sudo -n true"); err == nil {
		t.Fatalf("sudo -n as become succeeded (%q); want a password to be required", out)
	}
	if out, err := run(cl, "echo become-secret | sudo -S -p '' id -u"); err != nil || strings.TrimSpace(out) != "0" {
		t.Fatalf("sudo -S with password: got %q, %v; want 0", out, err)
	}
	// pwlogin: password authentication.
	pcfg := &ssh.ClientConfig{User: "pwlogin", Auth: []ssh.AuthMethod{ssh.Password("login-secret")}, HostKeyCallback: cfg.HostKeyCallback}
	pc, err := ssh.Dial("tcp", h.Target(), pcfg)
	if err != nil {
		t.Fatalf("password login: %v", err)
	}
	defer pc.Close()
	if out, err := run(pc, "id -un"); err != nil || strings.TrimSpace(out) != "pwlogin" {
		t.Fatalf("password session: got %q, %v", out, err)
	}
	pcfg.Auth = []ssh.AuthMethod{ssh.Password("wrong")}
	if _, err := ssh.Dial("tcp", h.Target(), pcfg); err == nil {
		t.Fatalf("password login with a wrong password succeeded")
	}
	// The provisioning file with passwords is gone.
	if _, err := os.Stat(filepath.Join(h.Upper, hostConfDir, "passwords")); !os.IsNotExist(err) {
		t.Fatalf("passwords file left in the host: %v", err)
	}
}

func TestOptionsValidation(t *testing.T) {
	cases := map[string]Options{
		"no names":         {},
		"duplicate":        {Names: []string{"a", "a"}},
		"bad name":         {Names: []string{"Bad_Name"}},
		"bad base":         {Names: []string{"a"}, BaseAddr: "10.0.0.1"},
		"sudo no password": {Names: []string{"a"}, Users: []User{{Name: "x", Sudo: SudoPassword}}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := o.withDefaults(); err == nil {
				t.Fatalf("got no error for %+v", o)
			}
		})
	}
}
