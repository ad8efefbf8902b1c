package intent

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A creation option that requires roles on top of the gate's (a
// require_approval rule's, kept by capability resolution when the policy
// requires approval_roles too): an actor holding both passes, one holding
// only the gate's is warned about the option's roles, one holding only
// the option's about the gate's.
func TestCheckApprovalsOptionRoles(t *testing.T) {
	g := protocol.Gate{ID: "select-s3", Type: protocol.GateProviderSelection, RequiredRoles: []string{"sre"},
		Options:     []protocol.GateOption{{ID: "create dedicated_minio", Effect: protocol.EffectCreate, Provider: "dedicated_minio"}, protocol.Cancel("cancel")},
		Chosen:      "create dedicated_minio",
		OptionRoles: map[string][]string{"create dedicated_minio": {"finops"}}}
	gates := GateSet{Planned: []protocol.Gate{g}}
	approvals := []Approval{{"select-s3", "create dedicated_minio"}}
	for _, tc := range []struct {
		name  string
		roles []string
		want  []string
	}{
		{"both held", []string{"sre", "finops"}, nil},
		{"gate's only", []string{"sre"}, []string{`approvals[0]: Gate waits: the approver lacks its role: gate select-s3 waits: option "create dedicated_minio" needs an actor holding one of the roles "finops", but actor "ana" holds "sre"`}},
		{"option's only", []string{"finops"}, []string{`approvals[0]: Gate waits: the approver lacks its role: gate select-s3 waits: option "create dedicated_minio" needs an actor holding one of the roles "sre", but actor "ana" holds "finops"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckApprovals(Root("approvals"), approvals, gates, Actor{Name: "ana", Roles: tc.roles}), tc.want)
		})
	}
	// Cancel is not held by the option's roles.
	wantProblems(t, CheckApprovals(Root("approvals"), []Approval{{"select-s3", "cancel"}}, gates, Actor{Name: "ana", Roles: []string{"sre"}}), nil)
}
