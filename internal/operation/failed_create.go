package operation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// A create that does not complete saves no Terraform state, and so no
// private state: its operation record is kept where the operation ran
// instead, root-only on one host (FailedHost), so that the next create of
// the same intent continues it (Continue) rather than starting a new one.
// The record is named after the intent and action of the operation id
// (name.action), not after its hash: a later create whose id differs (its
// hosts or parameters changed) finds the record, sees another operation
// and ignores it (ChooseFailed), and its own failure replaces it.

// FailedDir holds the records of creates that did not complete.
const FailedDir = "/var/lib/cp/operation"

// FailedPath is the file of the failed-create record of operation id.
func FailedPath(opID string) string {
	key := opID
	if i := strings.LastIndex(opID, "."); i > 0 {
		key = opID[:i]
	}
	sum := sha256.Sum256([]byte(key))
	return path.Join(FailedDir, "create."+hex.EncodeToString(sum[:])[:16]+".json")
}

// EncodeFailed is the compact JSON of the record of a create that did not
// complete, the text of its timeline (subject, detail, actor) passed
// through redact (the run's secret values masked) when redact is not nil.
// A terminal operation (Completed, Cancelled) is not kept: it is refused.
// k is not modified.
func EncodeFailed(k Kept, redact func(string) string) ([]byte, error) {
	if k.Operation.Status.Terminal() {
		return nil, fmt.Errorf("keep operation %s: it is %s, over: no record is kept", k.Operation.ID, k.Operation.Status)
	}
	k.Create = true
	k.Operation.Timeline = slices.Clone(k.Operation.Timeline)
	if redact != nil {
		for i := range k.Operation.Timeline {
			e := &k.Operation.Timeline[i]
			e.Subject, e.Detail, e.Actor = redact(e.Subject), redact(e.Detail), redact(e.Actor)
		}
	}
	return k.Encode()
}

// ChooseFailed is the record a create of operation opID continues: the
// one read (b, empty when there is none) when it is of the same operation
// and not over; nil otherwise. A record that cannot be read is an error
// (the create then starts a new operation).
func ChooseFailed(b []byte, opID string) (*Kept, error) {
	k, err := DecodeKept(b)
	if err != nil || k == nil {
		return nil, err
	}
	if k.Operation.ID != opID || k.Operation.Status.Terminal() || !k.Create {
		return nil, nil
	}
	return k, nil
}

// WriteFailed keeps the record b of operation opID on h, mode 0600, owned
// by root (written through sudo when the login user is not root).
func WriteFailed(ctx context.Context, h HostAccess, opID string, b []byte) error {
	return onHost(ctx, h, func(conn transport.Conn, become bool) error {
		return conn.Upload(ctx, transport.File{Path: FailedPath(opID), Content: b, Mode: 0o600, Become: become})
	})
}

// ReadFailed reads the record kept for operation opID's intent on h; none
// is empty, not an error.
func ReadFailed(ctx context.Context, h HostAccess, opID string) ([]byte, error) {
	var out []byte
	p := quoteWord(FailedPath(opID))
	err := onHost(ctx, h, func(conn transport.Conn, become bool) error {
		res, err := conn.Run(ctx, transport.Command{Cmd: "if [ -f " + p + " ]; then cat -- " + p + "; fi", Become: become})
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("read %s: exit code %d: %s", FailedPath(opID), res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
		out = res.Stdout
		return nil
	})
	return out, err
}

// RemoveFailed removes the record kept for operation opID's intent on h.
func RemoveFailed(ctx context.Context, h HostAccess, opID string) error {
	return onHost(ctx, h, func(conn transport.Conn, become bool) error {
		res, err := conn.Run(ctx, transport.Command{Cmd: "rm -f -- " + quoteWord(FailedPath(opID)), Become: become})
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("remove %s: exit code %d: %s", FailedPath(opID), res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
		return err
	})
}

// FailedHost is the host that keeps the failed-create record of an
// operation on hosts: the first master by name, or the first host by name
// when none is a master. ok is false when there is no host.
func FailedHost(hosts []HostAccess) (HostAccess, bool) {
	less := func(a, b HostAccess) bool {
		am, bm := a.Host.Role == protocol.RoleMaster, b.Host.Role == protocol.RoleMaster
		if am != bm {
			return am
		}
		return a.Host.Name < b.Host.Name
	}
	var best HostAccess
	for i, h := range hosts {
		if i == 0 || less(h, best) {
			best = h
		}
	}
	return best, len(hosts) > 0
}

func onHost(ctx context.Context, h HostAccess, f func(transport.Conn, bool) error) error {
	pool, err := Pool([]HostAccess{h}, nil)
	if err != nil {
		return err
	}
	defer pool.Close()
	conn, err := pool.Dial(ctx, h.Host.Name)
	if err == nil {
		err = f(conn, h.Access.User != "root")
	}
	if err != nil {
		return fmt.Errorf("failed-create record on %s: %w", h.Host.Name, err)
	}
	return nil
}

// quoteWord quotes s as one word for a POSIX shell.
func quoteWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
