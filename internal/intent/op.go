package intent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// Op is one pack action an apply will run, with its plan.
type Op struct {
	Action  string
	Targets []string
	// ID is stable: the same change names the same operation, so an apply
	// that failed and runs again resumes it (idempotency keys holding the
	// operation id stay valid).
	ID       string
	Composed *planner.Composed
	Hosts    []operation.HostAccess
	// Req is the request the plan was composed from; a diagnosis
	// composes it again with a proposed patch to review the patch.
	Req planner.Request
}

// OpID names an operation after what it changes: the intent's name, the
// action and the parts that make the change (hosts added, a version...),
// as name.action.<8 hex digits of their SHA-256>.
func OpID(name, action string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(append([]string{name, action}, parts...), "\x00")))
	return fmt.Sprintf("%s.%s.%s", name, action, hex.EncodeToString(h[:])[:8])
}
