package provider

import (
	"errors"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/operation"
)

// sshSecrets reads ssh.private_key_wo and ssh.become_password_wo into s.
// Each conflicts with its file or environment form; a value that cannot
// work is refused here, at plan, and never quoted back.
func sshSecrets(m *sshModel, s *SSHDefaults, diags *diag.Diagnostics) {
	p := path.Root("ssh")
	if key := strOr(m.PrivateKeyWO, ""); known(m.PrivateKeyWO) {
		if s.PrivateKeyFile != "" {
			addAttrError(diags, p.AtName("private_key_wo"), "Conflicting private key arguments",
				"private_key_file and private_key_wo are both set; keep one: private_key_wo (the key itself, never persisted) or private_key_file (a path).")
		}
		if err := checkPrivateKey(key); err != nil {
			addAttrError(diags, p.AtName("private_key_wo"), "Invalid private key", err.Error())
		} else {
			s.PrivateKey = []byte(key)
		}
	}
	if known(m.BecomePasswordWO) {
		pw := strOr(m.BecomePasswordWO, "")
		if s.BecomePasswordEnv != "" {
			addAttrError(diags, p.AtName("become_password_wo"), "Conflicting sudo password arguments",
				"become_password_env and become_password_wo are both set; keep one: become_password_wo (the password itself, never persisted) or become_password_env (the name of a variable holding it).")
		}
		switch {
		case pw == "":
			addAttrError(diags, p.AtName("become_password_wo"), "Empty sudo password",
				"the value is empty, so sudo would be given an empty password; set the password, or remove the argument where sudo asks for none.")
		case strings.ContainsAny(pw, "\r\n\x00"):
			addAttrError(diags, p.AtName("become_password_wo"), "Invalid sudo password",
				"the value (not shown) holds a line break or a NUL; sudo reads the password up to the first line break, so it would never match. Give the password without the trailing newline, e.g. trimspace(file(...)).")
		default:
			s.BecomePassword = pw
		}
	}
}

// bastionSecret reads ssh.bastion.private_key_wo into b; it wins over
// the host's key the bastion would otherwise use.
func bastionSecret(m *bastionModel, b *Bastion, diags *diag.Diagnostics) {
	if !known(m.PrivateKeyWO) {
		return
	}
	p := path.Root("ssh").AtName("bastion").AtName("private_key_wo")
	if strOr(m.PrivateKeyFile, "") != "" {
		addAttrError(diags, p, "Conflicting private key arguments",
			"bastion.private_key_file and bastion.private_key_wo are both set; keep one.")
	}
	key := m.PrivateKeyWO.ValueString()
	if err := checkPrivateKey(key); err != nil {
		addAttrError(diags, p, "Invalid private key", err.Error())
		return
	}
	b.PrivateKeyFile, b.PrivateKey = "", []byte(key)
}

// checkPrivateKey says why key is not an unencrypted private key the SSH
// client can use. The message never holds any part of the value.
func checkPrivateKey(key string) error {
	if strings.TrimSpace(key) == "" {
		return errors.New("the value is empty; give the key itself, e.g. file(\"~/.ssh/id_ed25519\"), not its path")
	}
	_, err := gossh.ParsePrivateKey([]byte(key))
	var missing *gossh.PassphraseMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &missing):
		return errors.New("the key (not shown) is encrypted with a passphrase; give an unencrypted key, or load it into ssh-agent and leave private_key_wo and private_key_file unset")
	case !strings.Contains(key, "-----BEGIN "):
		return errors.New("the value (not shown) is not a private key: it has no \"-----BEGIN ... PRIVATE KEY-----\" line; give the key's content, e.g. file(\"~/.ssh/id_ed25519\"), not its path or its public half")
	default:
		return errors.New("the value (not shown) is not a private key the SSH client can read; give an unencrypted OpenSSH, PKCS#1, PKCS#8 or SEC 1 key, e.g. file(\"~/.ssh/id_ed25519\")")
	}
}

// known reports whether v is set and known; an unknown secret (one that
// depends on a resource not created yet) is checked when it is known.
func known(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }

// access is how the provider's SSH defaults log in: files, or the key
// and sudo password given by the _wo arguments (which win over the file
// and environment forms, refused together at plan), in memory.
func (s SSHDefaults) access() operation.Access {
	a := operation.Access{
		User: s.User, Port: s.Port, PrivateKeyFile: s.PrivateKeyFile, PrivateKey: s.PrivateKey,
		KnownHostsFile: s.KnownHostsFile, AcceptNew: s.HostKeyChecking == "accept-new", DialTimeout: s.Timeout,
		BecomePassword: s.BecomePassword,
	}
	if a.BecomePassword == "" && s.BecomePasswordEnv != "" {
		a.BecomePassword = os.Getenv(s.BecomePasswordEnv)
	}
	if b := s.Bastion; b != nil {
		a.Bastion = &operation.Bastion{Address: b.Address, Port: b.Port, User: b.User, PrivateKeyFile: b.PrivateKeyFile, PrivateKey: b.PrivateKey}
	}
	return a
}
