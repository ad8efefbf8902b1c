package capability

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const s3 = "object_storage.s3"

// seedPolicy is the capability_policy of seed 001 §6.
func seedPolicy() Policy {
	return Policy{s3: {
		"dev":   {AllowedProviders: []string{"shared_minio"}},
		"stage": {AllowedProviders: []string{"shared_minio", "dedicated_minio"}, DefaultProvider: "shared_minio"},
		"prod": {AllowedProviders: []string{"aws_s3", "dedicated_minio"}, RequireEncryption: true,
			RequireApproval: true, ApprovalRoles: []string{"sre", "platform_admin"}},
	}}
}

func cand(name, provider string, attrs map[string]string) Candidate {
	return Candidate{Name: name, Provider: provider, Source: SourceExternal,
		Capability: protocol.Capability{Key: s3, Attributes: attrs}}
}

func minioCreators() []Creator {
	return []Creator{
		{Capability: s3, Provider: "dedicated_minio", Pack: "minio", Action: "install"},
		{Capability: s3, Provider: "shared_minio", Pack: "minio", Action: "install-shared"},
	}
}

var (
	euCentral    = map[string]string{"region": "eu-central"}
	awsEncrypted = cand("aws-s3-eu", "aws_s3", map[string]string{"region": "eu-central", "encryption": "true", "capacity_gb": "1000"})
	awsWest      = cand("aws-s3-west", "aws_s3", map[string]string{"region": "eu-west", "encryption": "true", "capacity_gb": "1000"})
	sharedMinio  = cand("cp_minio.shared", "shared_minio", map[string]string{"region": "eu-central", "capacity_gb": "200"})
	sharedMinio2 = cand("cp_minio.shared-b", "shared_minio", map[string]string{"region": "eu-central", "capacity_gb": "800"})
	dedMinio     = cand("cp_minio.team", "dedicated_minio", map[string]string{"region": "eu-central", "capacity_gb": "800"})
)

func TestResolve(t *testing.T) {
	type want struct {
		kind     Kind
		provider string // binding provider
		create   string // create provider kind
		gateType protocol.GateType
		gateID   string
		options  []string
		roles    []string
		reason   string   // substring of the decision reason
		reports  []string // "name=accepted|rejected: substring"
		err      string   // substring of the error
	}
	cases := []struct {
		name string
		req  Request
		want want
	}{
		{
			name: "bind the only matching candidate",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: seedPolicy(), Candidates: []Candidate{sharedMinio}},
			want: want{kind: KindBind, provider: "cp_minio.shared", reason: "only matching candidate of 1",
				reports: []string{"cp_minio.shared=accepted: provider shared_minio allowed in dev"}},
		},
		{
			name: "dev rejects aws_s3 by policy",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: seedPolicy(), Candidates: []Candidate{awsEncrypted, sharedMinio}},
			want: want{kind: KindBind, provider: "cp_minio.shared",
				reports: []string{"aws-s3-eu=rejected: provider aws_s3 not allowed in dev (allowed: shared_minio)"}},
		},
		{
			name: "stage rejects aws_s3 listing allowed providers sorted",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(), Candidates: []Candidate{awsEncrypted}, Creators: minioCreators()},
			want: want{kind: KindCreate, create: "shared_minio",
				reports: []string{"aws-s3-eu=rejected: provider aws_s3 not allowed in stage (allowed: dedicated_minio, shared_minio)"}},
		},
		{
			name: "stage with no candidates creates the default provider",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(), Creators: minioCreators()},
			want: want{kind: KindCreate, create: "shared_minio", reason: "default provider shared_minio in stage"},
		},
		{
			name: "stage single creator creates dedicated minio",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(), Creators: minioCreators()[:1]},
			want: want{kind: KindCreate, create: "dedicated_minio", reason: "only provider allowed in stage that a pack can create"},
		},
		{
			name: "prod without candidates stops at an approval gate with roles",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"region": "same-as-workload"}},
				Environment: "prod", Workload: euCentral, Policy: seedPolicy(), Creators: minioCreators()},
			want: want{kind: KindGate, create: "dedicated_minio", gateType: protocol.GateApproval, gateID: "approve-dedicated-minio",
				options: []string{"create dedicated_minio", OptionCancel}, roles: []string{"sre", "platform_admin"},
				reason:  "policy requires approval to create dedicated_minio",
				reports: []string{"new shared_minio (minio install-shared)=rejected: provider shared_minio not allowed in prod"}},
		},
		{
			name: "prod binds an existing encrypted aws_s3 without approval",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"region": "same-as-workload"}},
				Environment: "prod", Workload: euCentral, Policy: seedPolicy(), Candidates: []Candidate{awsEncrypted}, Creators: minioCreators()},
			want: want{kind: KindBind, provider: "aws-s3-eu",
				reports: []string{"aws-s3-eu=accepted: encryption true", "aws-s3-eu=accepted: region eu-central = workload region"}},
		},
		{
			name: "prod policy adds encryption required",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: seedPolicy(),
				Candidates: []Candidate{dedMinio, awsEncrypted}},
			want: want{kind: KindBind, provider: "aws-s3-eu",
				reports: []string{"cp_minio.team=rejected: encryption required but missing"}},
		},
		{
			name: "same-as-workload rejects another region",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"region": "same-as-workload"}},
				Environment: "prod", Workload: euCentral, Policy: seedPolicy(), Candidates: []Candidate{awsWest, awsEncrypted}},
			want: want{kind: KindBind, provider: "aws-s3-eu",
				reports: []string{"aws-s3-west=rejected: region eu-west != workload region eu-central"}},
		},
		{
			name: "same-as-workload without workload attribute rejects",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"region": "same-as-workload"}},
				Environment: "dev", Candidates: []Candidate{sharedMinio}},
			want: want{err: "region must equal the workload's, but the workload has no region"},
		},
		{
			name: "numeric minimum accepts larger and rejects smaller",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"min_capacity_gb": "500"}},
				Environment: "stage", Policy: seedPolicy(), Candidates: []Candidate{sharedMinio, sharedMinio2}},
			want: want{kind: KindBind, provider: "cp_minio.shared-b",
				reports: []string{"cp_minio.shared=rejected: capacity_gb 200 < min_capacity_gb 500", "cp_minio.shared-b=accepted: capacity_gb 800 >= min_capacity_gb 500"}},
		},
		{
			name: "numeric minimum with a non-numeric attribute rejects",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"min_capacity_gb": "500"}},
				Environment: "dev", Candidates: []Candidate{cand("odd", "shared_minio", map[string]string{"capacity_gb": "lots"})}},
			want: want{err: `capacity_gb "lots" is not a number, need >= 500`},
		},
		{
			name: "equality constraint",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"access_mode": "dedicated"}},
				Environment: "dev", Candidates: []Candidate{
					cand("a", "shared_minio", map[string]string{"access_mode": "shared"}),
					cand("b", "shared_minio", map[string]string{"access_mode": "dedicated"})}},
			want: want{kind: KindBind, provider: "b", reports: []string{"a=rejected: access_mode shared != dedicated", "b=accepted: access_mode dedicated"}},
		},
		{
			name: "required flag falsy value rejects",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"encryption": "required"}},
				Environment: "dev", Candidates: []Candidate{cand("plain", "shared_minio", map[string]string{"encryption": "false"})}},
			want: want{err: "encryption required but is false"},
		},
		{
			name: "wrong capability key rejects",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev",
				Candidates: []Candidate{{Name: "pg", Provider: "shared_minio", Capability: protocol.Capability{Key: "database.postgresql"}}}},
			want: want{err: "provides database.postgresql, not object_storage.s3"},
		},
		{
			name: "ambiguous match stops at provider selection",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: seedPolicy(), Candidates: []Candidate{sharedMinio2, sharedMinio}},
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection, gateID: "select-object-storage-s3-provider",
				options: []string{"bind cp_minio.shared", "bind cp_minio.shared-b", OptionCancel}, reason: "2 candidates match"},
		},
		{
			name: "default provider breaks ambiguity",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(), Candidates: []Candidate{dedMinio, sharedMinio}},
			want: want{kind: KindBind, provider: "cp_minio.shared", reason: "default provider shared_minio in stage chooses cp_minio.shared among 2"},
		},
		{
			name: "default provider matching two candidates still gates",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(), Candidates: []Candidate{sharedMinio, sharedMinio2, dedMinio}},
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection, options: []string{"bind cp_minio.shared", "bind cp_minio.shared-b", "bind cp_minio.team", OptionCancel}},
		},
		{
			name: "ambiguous creators without default gate on selection",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "qa",
				Policy: Policy{s3: {"qa": {AllowedProviders: []string{"shared_minio", "dedicated_minio"}}}}, Creators: minioCreators()},
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection, options: []string{"create dedicated_minio", "create shared_minio", OptionCancel}},
		},
		{
			name: "no policy for the capability allows any provider",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: "secret.store"}, Environment: "prod", Policy: seedPolicy(), Candidates: []Candidate{{Name: "vault", Provider: "vault", Capability: protocol.Capability{Key: "secret.store"}}}},
			want: want{kind: KindBind, provider: "vault", reports: []string{"vault=accepted: provider vault allowed: no policy for secret.store in prod"}},
		},
		{
			name: "no policy for the environment allows any provider",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "sandbox", Policy: seedPolicy(), Candidates: []Candidate{awsWest}},
			want: want{kind: KindBind, provider: "aws-s3-west"},
		},
		{
			name: "unsatisfiable says what would satisfy it",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"region": "same-as-workload", "min_capacity_gb": "500"}},
				Environment: "prod", Workload: euCentral, Policy: seedPolicy(), Candidates: []Candidate{awsWest, sharedMinio}},
			want: want{err: "declare a provider of kind aws_s3 or dedicated_minio with encryption required, capacity_gb >= 500, region eu-central (same as workload) as a candidate"},
		},
		{
			name: "unsatisfiable in dev lists rejected candidates",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: seedPolicy(), Candidates: []Candidate{awsEncrypted}, Creators: minioCreators()[:1]},
			want: want{err: "aws-s3-eu: rejected: provider aws_s3 not allowed in dev (allowed: shared_minio) | new dedicated_minio (minio install): rejected: provider dedicated_minio not allowed in dev"},
		},
		{
			name: "invalid requirement",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3, Scope: "rack"}},
			want: want{err: `unknown scope "rack"`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(tc.req)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("got: %v want error containing: %q", err, tc.want.err)
				}
				if strings.Contains(tc.name, "unsatisfiable") && !errors.Is(err, ErrUnsatisfiable) {
					t.Fatalf("got: %v want: errors.Is ErrUnsatisfiable", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got: %v want: no error", err)
			}
			w := tc.want
			if d.Kind != w.kind {
				t.Fatalf("kind got: %s want: %s (reason %s)", d.Kind, w.kind, d.Reason)
			}
			if d.Binding.Decision != string(w.kind) || d.Binding.Reason != d.Reason {
				t.Errorf("binding got: %+v want decision %s and the decision's reason", d.Binding, w.kind)
			}
			if w.provider != "" && d.Binding.Provider != w.provider {
				t.Errorf("provider got: %s want: %s", d.Binding.Provider, w.provider)
			}
			if w.create != "" && (d.Create == nil || d.Create.Provider != w.create) {
				t.Errorf("create got: %+v want provider %s", d.Create, w.create)
			}
			if w.gateType != "" {
				if d.Gate == nil || d.Gate.Type != w.gateType {
					t.Fatalf("gate got: %+v want type %s", d.Gate, w.gateType)
				}
				if err := d.Gate.Validate(); err != nil {
					t.Errorf("gate invalid: %v", err)
				}
			}
			if w.gateID != "" && d.Gate.ID != w.gateID {
				t.Errorf("gate id got: %s want: %s", d.Gate.ID, w.gateID)
			}
			if w.options != nil && !slices.Equal(d.Gate.OptionIDs(), w.options) {
				t.Errorf("options got: %q want: %q", d.Gate.OptionIDs(), w.options)
			}
			if w.roles != nil && !slices.Equal(d.Gate.RequiredRoles, w.roles) {
				t.Errorf("roles got: %q want: %q", d.Gate.RequiredRoles, w.roles)
			}
			if !strings.Contains(d.Reason, w.reason) {
				t.Errorf("reason got: %q want substring: %q", d.Reason, w.reason)
			}
			for _, r := range w.reports {
				name, text, _ := strings.Cut(r, "=")
				if !hasReport(d.Candidates, name, text) {
					t.Errorf("reports got: %+v want %s with reason %q", d.Candidates, name, text)
				}
			}
			for _, c := range d.Candidates {
				if len(c.Reasons) == 0 {
					t.Errorf("candidate %s has no reason", c.Name)
				}
			}
		})
	}
}

func hasReport(reps []CandidateReport, name, text string) bool {
	for _, r := range reps {
		if r.Name != name {
			continue
		}
		if r.Accepted != strings.HasPrefix(text, "accepted:") {
			return false
		}
		for _, s := range r.Reasons {
			if strings.Contains(s, text) {
				return true
			}
		}
	}
	return false
}

func TestResolveDeterministicOrder(t *testing.T) {
	req := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "stage", Policy: seedPolicy(),
		Candidates: []Candidate{dedMinio, awsWest, sharedMinio2, sharedMinio, awsEncrypted}, Creators: minioCreators()}
	first, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range first.Candidates {
		names = append(names, c.Name)
	}
	want := []string{"aws-s3-eu", "aws-s3-west", "cp_minio.shared", "cp_minio.shared-b", "cp_minio.team",
		"new dedicated_minio (minio install)", "new shared_minio (minio install-shared)"}
	if !slices.Equal(names, want) {
		t.Fatalf("got: %q want: %q", names, want)
	}
	for i := 0; i < 20; i++ {
		slices.Reverse(req.Candidates)
		d, _ := Resolve(req)
		if d.Reason != first.Reason || len(d.Candidates) != len(first.Candidates) {
			t.Fatalf("run %d differs: got %q want %q", i, d.Reason, first.Reason)
		}
	}
}

func TestResolveDoesNotMutateRequest(t *testing.T) {
	cons := map[string]string{"region": "same-as-workload"}
	req := Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: cons}, Environment: "prod",
		Workload: euCentral, Policy: seedPolicy(), Candidates: []Candidate{awsEncrypted}}
	d, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cons["encryption"]; ok {
		t.Fatalf("got: caller's constraints changed %v want: untouched", cons)
	}
	if d.Requirement.Constraints["encryption"] != ValueRequired {
		t.Fatalf("got: %v want: decision requirement carries encryption: required", d.Requirement.Constraints)
	}
}
