package testhosts

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"

	"golang.org/x/crypto/ssh"
)

// keyPair is an ed25519 key in OpenSSH formats.
type keyPair struct {
	private []byte // OpenSSH PEM
	public  []byte // authorized_keys line, with newline
	pub     ssh.PublicKey
}

func newKeyPair(comment string) (keyPair, error) {
	pubKey, privKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return keyPair{}, fmt.Errorf("generate ed25519 key %q: %w", comment, err)
	}
	block, err := ssh.MarshalPrivateKey(privKey, comment)
	if err != nil {
		return keyPair{}, fmt.Errorf("encode private key %q: %w", comment, err)
	}
	sp, err := ssh.NewPublicKey(pubKey)
	if err != nil {
		return keyPair{}, fmt.Errorf("encode public key %q: %w", comment, err)
	}
	line := ssh.MarshalAuthorizedKey(sp)
	line = append(line[:len(line)-1], []byte(" "+comment+"\n")...)
	return keyPair{private: pem.EncodeToMemory(block), public: line, pub: sp}, nil
}

// writeKeyPair writes path (0600) and path.pub (0644).
func writeKeyPair(path string, k keyPair) error {
	if err := os.WriteFile(path, k.private, 0o600); err != nil {
		return fmt.Errorf("write private key %s: %w", path, err)
	}
	if err := os.WriteFile(path+".pub", k.public, 0o644); err != nil {
		return fmt.Errorf("write public key %s.pub: %w", path, err)
	}
	return nil
}

// knownHostsLine renders one known_hosts entry for addr:port.
func knownHostsLine(addr string, port int, key ssh.PublicKey) string {
	h := addr
	if port != 22 {
		h = fmt.Sprintf("[%s]:%d", addr, port)
	}
	return h + " " + string(ssh.MarshalAuthorizedKey(key))
}
