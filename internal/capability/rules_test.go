package capability

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestRulesDecidePerCandidate(t *testing.T) {
	envOK := Policy{s3: {"prod": {AllowedProviders: []string{"shared_minio", "aws_s3", "dedicated_minio"}}}}
	onlyAWS := Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3"}}}}
	ctx := Context{Organization: "acme", Criticality: "high", Compliance: []string{"pci", "gdpr"}}
	base := func(pol Policy, cands []Candidate, creators []Creator, rules ...Rule) Request {
		return Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol,
			Candidates: cands, Creators: creators, Rules: rules, Context: ctx, Consumer: "traces"}
	}
	cost := 30.0
	type want struct {
		kind      Kind
		provider  string
		create    string
		gateType  protocol.GateType
		roles     []string
		decidedBy map[string]string // candidate name -> DecidedBy
		reason    map[string]string // candidate name -> reason substring
		err       string
	}
	cases := []struct {
		name string
		req  Request
		want want
	}{
		{name: "no rule: the environment's policy decides and says so", req: base(envOK, []Candidate{sharedMinio}, nil),
			want: want{kind: KindBind, provider: "cp_minio.shared", decidedBy: map[string]string{"cp_minio.shared": "capability_policy object_storage.s3 prod"}}},
		{name: "deny on criticality rejects the candidate", req: base(envOK, []Candidate{sharedMinio, awsEncrypted}, nil,
			Rule{Name: "critical-not-shared", Criticality: []string{"high"}, Providers: []string{"shared_minio"}, Effect: EffectDeny, Reason: "critical data needs its own storage"}),
			want: want{kind: KindBind, provider: "aws-s3-eu",
				decidedBy: map[string]string{"cp_minio.shared": `rule 1 "critical-not-shared"`, "aws-s3-eu": "capability_policy object_storage.s3 prod"},
				reason:    map[string]string{"cp_minio.shared": `rejected: rule 1 "critical-not-shared" denies provider shared_minio (criticality high, provider shared_minio): critical data needs its own storage`}}},
		{name: "a rule for another criticality does not match", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "low-only", Criticality: []string{"low"}, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
		{name: "a rule for another organization does not match", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "other-org", Organizations: []string{"globex"}, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
		{name: "deny on organization rejects every candidate: unsatisfiable, no exception", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "acme-frozen", Organizations: []string{"acme"}, Effect: EffectDeny}),
			want: want{err: `rule 1 "acme-frozen" denies provider shared_minio (organization acme)`}},
		{name: "allow overrides the environment's allowed providers", req: base(onlyAWS, []Candidate{sharedMinio}, nil,
			Rule{Name: "acme-may-share", Organizations: []string{"acme"}, Providers: []string{"shared_minio"}, Effect: EffectAllow}),
			want: want{kind: KindBind, provider: "cp_minio.shared", decidedBy: map[string]string{"cp_minio.shared": `rule 1 "acme-may-share"`}}},
		{name: "the first matching rule decides", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "allow-first", Providers: []string{"shared_minio"}, Effect: EffectAllow},
			Rule{Name: "deny-later", Providers: []string{"shared_minio"}, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared", decidedBy: map[string]string{"cp_minio.shared": `rule 1 "allow-first"`}}},
		{name: "exception on compliance: a policy_exception gate for the rule's roles", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "pci-no-shared", Compliance: []string{"pci"}, Providers: []string{"shared_minio"}, Effect: EffectException, Roles: []string{"security"}}),
			want: want{kind: KindGate, gateType: protocol.GatePolicyException, roles: []string{"security"},
				reason: map[string]string{"cp_minio.shared": "compliance pci"}}},
		{name: "compliance the intent is not under does not match", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "hipaa", Compliance: []string{"hipaa"}, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
		{name: "require_approval on a candidate holds the binding at an approval gate", req: base(envOK, []Candidate{awsEncrypted}, nil,
			Rule{Name: "aws-needs-finops", Providers: []string{"aws_s3"}, Effect: EffectRequireApproval, Roles: []string{"finops"}}),
			want: want{kind: KindGate, gateType: protocol.GateApproval, provider: "aws-s3-eu", roles: []string{"finops"}}},
		{name: "require_approval on cost holds the creation at a cost_confirmation gate", req: base(envOK, nil, costlyCreator(40),
			Rule{Name: "pricey", MinMonthlyUSD: &cost, Effect: EffectRequireApproval, Roles: []string{"finance"}}),
			want: want{kind: KindGate, gateType: protocol.GateCostConfirmation, create: "dedicated_minio", roles: []string{"finance"},
				reason: map[string]string{"new dedicated_minio (minio install)": "cost 40 USD a month >= 30"}}},
		{name: "a cost rule does not match a cheaper creation", req: base(envOK, nil, costlyCreator(20),
			Rule{Name: "pricey", MinMonthlyUSD: &cost, Effect: EffectRequireApproval, Roles: []string{"finance"}}),
			want: want{kind: KindCreate, create: "dedicated_minio"}},
		{name: "a cost rule never matches an existing candidate", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "pricey", MinMonthlyUSD: &cost, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
		{name: "a rule on another environment does not match", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "dev-only", Environments: []string{"dev"}, Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
		{name: "a rule on another capability does not match", req: base(envOK, []Candidate{sharedMinio}, nil,
			Rule{Name: "pg", Capability: "database.postgresql", Effect: EffectDeny}),
			want: want{kind: KindBind, provider: "cp_minio.shared"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(tc.req)
			w := tc.want
			if w.err != "" {
				if err == nil || !strings.Contains(err.Error(), w.err) {
					t.Fatalf("got: %v want error containing %q", err, w.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got: %v want: no error", err)
			}
			if d.Kind != w.kind {
				t.Fatalf("kind got: %s want: %s (%s)", d.Kind, w.kind, d.Reason)
			}
			if w.provider != "" && d.Binding.Provider != w.provider {
				t.Errorf("provider got: %s want: %s", d.Binding.Provider, w.provider)
			}
			if w.create != "" && (d.Create == nil || d.Create.Provider != w.create) {
				t.Errorf("create got: %+v want %s", d.Create, w.create)
			}
			if w.gateType != "" {
				if d.Gate == nil || d.Gate.Type != w.gateType {
					t.Fatalf("gate got: %+v want type %s", d.Gate, w.gateType)
				}
				if !slices.Equal(d.Gate.RequiredRoles, w.roles) {
					t.Errorf("roles got: %q want: %q", d.Gate.RequiredRoles, w.roles)
				}
				if err := d.Gate.Validate(); err != nil {
					t.Errorf("gate invalid: %v", err)
				}
			} else if d.Gate != nil {
				t.Errorf("gate got: %+v want none", d.Gate)
			}
			for name, by := range w.decidedBy {
				if got := reportOf(d, name).DecidedBy; got != by {
					t.Errorf("%s decided by got: %q want: %q", name, got, by)
				}
			}
			for name, text := range w.reason {
				if got := strings.Join(reportOf(d, name).Reasons, "; "); !strings.Contains(got, text) {
					t.Errorf("%s reasons got: %q want substring %q", name, got, text)
				}
			}
		})
	}
}

func reportOf(d Decision, name string) CandidateReport {
	for _, c := range d.Candidates {
		if c.Name == name {
			return c
		}
	}
	return CandidateReport{}
}

// Approving the rule's gate by its role binds or creates; another role
// leaves it waiting.
func TestRuleApprovalDecided(t *testing.T) {
	pol := Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3"}}}}
	rule := Rule{Name: "aws-needs-finops", Providers: []string{"aws_s3"}, Effect: EffectRequireApproval, Roles: []string{"finops"}}
	req := func(roles ...string) Request {
		return Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol, Candidates: []Candidate{awsEncrypted},
			Rules: []Rule{rule}, Choices: []protocol.Decision{{Gate: "approve-bind-aws-s3-eu", Option: "bind aws-s3-eu", Actor: "bo", Roles: roles}}}
	}
	d, err := Resolve(req("finops"))
	if err != nil || d.Kind != KindBind || d.Binding.Provider != "aws-s3-eu" || d.Gate == nil || d.Gate.Chosen != "bind aws-s3-eu" {
		t.Fatalf("got: %+v, %v want: bind aws-s3-eu behind its approved gate", d, err)
	}
	d, err = Resolve(req("sre"))
	if err != nil || d.Kind != KindGate || !strings.Contains(d.Refused, `requires one of ["finops"]`) {
		t.Fatalf("got: kind %s refused %q, %v want: the gate waits, the decision refused", d.Kind, d.Refused, err)
	}
}

func TestCheckRule(t *testing.T) {
	neg := -1.0
	cases := []struct {
		rule Rule
		err  string
	}{
		{Rule{Name: "a", Effect: "maybe"}, `effect "maybe" is not one of`},
		{Rule{Name: "a", Effect: EffectException}, "needs roles"},
		{Rule{Name: "a", Effect: EffectRequireApproval}, "needs roles"},
		{Rule{Name: "a", Effect: EffectDeny, Roles: []string{"x"}}, "takes no roles"},
		{Rule{Name: "a", Effect: EffectDeny, MinMonthlyUSD: &neg}, "is negative"},
		{Rule{Name: "a", Effect: EffectAllow}, ""},
	}
	for _, tc := range cases {
		err := CheckRule(tc.rule)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: got: %v want: %q", tc.rule, err, tc.err)
		}
	}
}

// With rules, the binding the plan keeps carries every candidate's
// verdict and what decided it; without rules it carries none.
func TestBindingCarriesCandidatesWhenRulesWeighed(t *testing.T) {
	pol := Policy{s3: {"prod": {AllowedProviders: []string{"shared_minio", "aws_s3"}}}}
	req := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol,
		Candidates: []Candidate{sharedMinio, awsEncrypted}, Context: Context{Criticality: "high"},
		Rules: []Rule{{Name: "critical-not-shared", Criticality: []string{"high"}, Providers: []string{"shared_minio"}, Effect: EffectDeny}}}
	d, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range d.Binding.Candidates {
		got[c.Name] = c.DecidedBy
	}
	if len(got) != 2 || got["cp_minio.shared"] != `rule 1 "critical-not-shared"` || got["aws-s3-eu"] != "capability_policy object_storage.s3 prod" {
		t.Errorf("got: %+v want both candidates with what decided each", d.Binding.Candidates)
	}
	req.Rules = nil
	if d, _ := Resolve(req); d.Binding.Candidates != nil {
		t.Errorf("got: %+v without rules want: none", d.Binding.Candidates)
	}
}
