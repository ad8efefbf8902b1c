package ssh

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// authMethods returns the auth methods for a, and a closer for the agent
// connection (to call once the handshake is over).
func authMethods(a Auth) ([]gossh.AuthMethod, io.Closer, error) {
	var methods []gossh.AuthMethod
	var signers []gossh.Signer
	if a.PrivateKeyPath != "" {
		pem, err := os.ReadFile(a.PrivateKeyPath)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: reading private key: %w", transport.ErrAuth, err)
		}
		s, err := parseKey(pem, a.Passphrase)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: private key %s: %w", transport.ErrAuth, a.PrivateKeyPath, err)
		}
		signers = append(signers, s)
	}
	if len(a.PrivateKey) > 0 {
		s, err := parseKey(a.PrivateKey, a.Passphrase)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: private key given inline: %w", transport.ErrAuth, err)
		}
		signers = append(signers, s)
	}
	if len(signers) > 0 {
		methods = append(methods, gossh.PublicKeys(signers...))
	}
	var closer io.Closer = nopCloser{}
	if a.Agent {
		sock := a.AgentSocket
		if sock == "" {
			sock = os.Getenv("SSH_AUTH_SOCK")
		}
		if sock == "" {
			return nil, nil, fmt.Errorf("%w: agent auth requested but no agent socket is set (SSH_AUTH_SOCK is empty)", transport.ErrAuth)
		}
		c, err := net.Dial("unix", sock)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: connecting to ssh-agent at %s: %w", transport.ErrAuth, sock, err)
		}
		closer = c
		methods = append(methods, gossh.PublicKeysCallback(agent.NewClient(c).Signers))
	}
	if a.Password != "" {
		pw := a.Password
		methods = append(methods,
			gossh.Password(pw),
			gossh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range answers {
					answers[i] = pw
				}
				return answers, nil
			}))
	}
	return methods, closer, nil
}

func parseKey(pem []byte, passphrase string) (gossh.Signer, error) {
	s, err := gossh.ParsePrivateKey(pem)
	var missing *gossh.PassphraseMissingError
	if errors.As(err, &missing) {
		if passphrase == "" {
			return nil, errors.New("the key is encrypted and no passphrase is set")
		}
		s, err = gossh.ParsePrivateKeyWithPassphrase(pem, []byte(passphrase))
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
