package planner

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func mustBuild(t *testing.T, in Input) *protocol.Plan {
	t.Helper()
	p, err := Build(in)
	if err != nil {
		t.Fatalf("got: %v want: a plan", err)
	}
	return p
}

func needsOf(t *testing.T, p *protocol.Plan, id string) []string {
	t.Helper()
	in, ok := p.Instance(id)
	if !ok {
		t.Fatalf("got: no instance %s want: one (instances: %d)", id, len(p.Instances))
	}
	return in.Needs
}

func TestPerHostEdges(t *testing.T) {
	p := mustBuild(t, createInput(fixtureKubernetes()))
	got := needsOf(t, p, "join-workers[worker-3]")
	want := []string{"install-cni", "install-container-runtime[worker-3]", "prepare-network[worker-3]"}
	if !slices.Equal(got, want) {
		t.Fatalf("got: %q want: %q", got, want)
	}
	// kubernetes.api of init-control-plane is implied through install-cni.
	if got := needsOf(t, p, "join-masters[master-2]"); !slices.Contains(got, "init-control-plane[master-1]") || slices.Contains(got, "install-container-runtime[master-1]") {
		t.Fatalf("got: %q want: init-control-plane[master-1] and only master-2's own runtime", got)
	}
	if _, ok := p.Instance("join-masters[master-1]"); ok {
		t.Fatal("got: join-masters on the first master want: other_masters only")
	}
	in, _ := p.Instance("install-container-runtime[worker-2]")
	if in.IdempotencyKey != "install-containerd:worker-2:1.7.22" || in.Params["cni"] != "calico" || in.Stage != "install-runtime" {
		t.Fatalf("got: key %q params %v stage %s", in.IdempotencyKey, in.Params, in.Stage)
	}
}

func TestSingleMasterSkipsJoinMasters(t *testing.T) {
	in := createInput(fixtureKubernetes())
	in.Intent = clusterIntent(1, 2)
	in.Intent.Parameters = map[string]string{"name": "small"}
	p := mustBuild(t, in)
	if _, ok := p.Instance("join-masters[master-2]"); ok {
		t.Fatal("got: join-masters instance want: none with one master")
	}
	if got := needsOf(t, p, "verify-cluster"); !slices.Equal(got, []string{"install-addons"}) {
		t.Fatalf("got: %q want: [install-addons]", got)
	}
}

func TestAddNodeTokens(t *testing.T) {
	cases := []struct {
		name     string
		state    func(*Input)
		inserted bool
		because  string
	}{
		{"valid token", func(in *Input) {}, false, ""},
		{"expired token", func(in *Input) { in.State.Artifacts[0].ExpiresAt = testNow.Add(-time.Minute) },
			true, "kubeadm.join_token required by join-node[worker-6] expired at 2026-04-29T11:59:00Z"},
		{"absent token", func(in *Input) { in.State.Artifacts = nil },
			true, "kubeadm.join_token required by join-node[worker-6] is absent from the cluster state"},
		{"token expiring exactly now", func(in *Input) { in.State.Artifacts[0].ExpiresAt = testNow }, true, "expired at 2026-04-29T12:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := addNodeInput(fixtureKubernetes(), testNow.Add(time.Hour))
			tc.state(&in)
			p := mustBuild(t, in)
			gen, ok := p.Instance("generate-join-token[master-1]")
			if ok != tc.inserted {
				t.Fatalf("got: inserted=%v want: %v", ok, tc.inserted)
			}
			if !ok {
				return
			}
			if gen.Origin != protocol.OriginInserted || !strings.Contains(gen.Because, tc.because) || gen.Stage != "join" {
				t.Fatalf("got: origin %s because %q stage %s want: inserted, %q, join", gen.Origin, gen.Because, gen.Stage, tc.because)
			}
			if !slices.Contains(needsOf(t, p, "join-node[worker-6]"), gen.ID) {
				t.Fatalf("got: join-node needs %q want: %s", needsOf(t, p, "join-node[worker-6]"), gen.ID)
			}
		})
	}
}

func TestMissingCapabilityInsertsRecursively(t *testing.T) {
	// Without kubernetes.api in the state, the library's init-control-plane
	// is inserted for join-node, and generate-join-token is not needed
	// because init-control-plane produces the token.
	in := addNodeInput(fixtureKubernetes(), testNow.Add(-time.Hour))
	in.State.Capabilities = nil
	p := mustBuild(t, in)
	init, ok := p.Instance("init-control-plane[master-1]")
	if !ok || init.Origin != protocol.OriginInserted || !strings.Contains(init.Because, "kubernetes.api required by join-node[worker-6] is not provided") {
		t.Fatalf("got: %+v want: inserted init-control-plane for kubernetes.api", init)
	}
	// init-control-plane needs a runtime on master-1, which only the
	// library can give: install-container-runtime is inserted in turn.
	rt, ok := p.Instance("install-container-runtime[master-1]")
	if !ok || rt.Origin != protocol.OriginInserted {
		t.Fatalf("got: %v want: install-container-runtime inserted recursively", rt)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Input)
		is     error
		want   []string
	}{
		{"removed producer names consumers", func(in *Input) {
			in.Customization = &protocol.Customization{Changes: []protocol.CustomizationChange{{Removed: "install-cni"}}}
		}, ErrEdit, []string{"removed install-cni", "join-workers (requires capability kubernetes.network.ready)", "install-addons (requires capability kubernetes.network.ready)"}},
		{"insert unknown job", func(in *Input) {
			in.Customization = &protocol.Customization{Changes: []protocol.CustomizationChange{{Inserted: "tune-sysctl", After: "prepare-network"}}}
		}, ErrEdit, []string{`job "tune-sysctl" is neither in the job library of kubernetes@1.0.0`, "nor defined inline"}},
		{"insert after unknown job", func(in *Input) {
			in.Customization = &protocol.Customization{Changes: []protocol.CustomizationChange{{Inserted: "pre-pull-images", After: "install-runtime"}}}
		}, ErrEdit, []string{`job "install-runtime" to insert after is not in the plan`, "install-container-runtime"}},
		{"remove unknown job", func(in *Input) {
			in.Customization = &protocol.Customization{Changes: []protocol.CustomizationChange{{Removed: "install-monitoring"}}}
		}, ErrEdit, []string{`job "install-monitoring" is not in the plan`}},
		{"customization of another template", func(in *Input) {
			in.Customization = &protocol.Customization{BaseTemplate: "kubernetes.create@0.9.0", Changes: []protocol.CustomizationChange{{Removed: "install-addons"}}}
		}, ErrEdit, []string{"based on kubernetes.create@0.9.0 but the plan uses kubernetes.create@1.0.0"}},
		{"unapproved patch", func(in *Input) { in.Patches = []protocol.PlanPatch{registryPatch("")} },
			ErrUnapproved, []string{"plan patch patch-1 by ai-agent:sre", "requires approval by a person with role sre"}},
		{"retry unknown job", func(in *Input) {
			in.Patches = []protocol.PlanPatch{{Author: "ana", Reason: "r", Changes: []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "init-cp"}}}}}
		}, ErrEdit, []string{`patch by ana: retry init-cp: job "init-cp" is not in the plan`}},
		{"cycle from an inserted job", func(in *Input) {
			// revalidate runs after install-cni but provides intent.validated,
			// which the node validations (and so install-cni) need.
			j := mkJob(jobSpec{id: "revalidate", expand: "once", prov: []protocol.Capability{capOf("intent.validated", false)}})
			in.Customization = &protocol.Customization{Changes: []protocol.CustomizationChange{{Inserted: "revalidate", After: "install-cni", Job: j}}}
		}, ErrCycle, []string{"cycle: ", "install-cni -> revalidate -> validate-"}},
		{"unknown intent parameter", func(in *Input) { in.Intent.Parameters["cni_plugin"] = "calico" },
			ErrParams, []string{`parameter "cni_plugin": unknown: the pack has no such parameter`, "known: "}},
		{"enum parameter", func(in *Input) { in.Intent.Parameters["cni"] = "flannel" },
			ErrParams, []string{`parameter "cni": "flannel" is not one of calico, cilium`}},
		{"required parameter", func(in *Input) { delete(in.Intent.Parameters, "name") },
			ErrParams, []string{`parameter "name": is required`}},
		{"unsatisfiable job requirement", func(in *Input) {
			in.Pack.Jobs["install-cni"].Inputs.Requires.Artifacts = append(in.Pack.Jobs["install-cni"].Inputs.Requires.Artifacts, protocol.ArtifactRef{ID: "cni.manifest"})
		}, ErrMissingInput, []string{"job install-cni requires artifact cni.manifest (scope cluster), which is absent from the cluster state",
			"library of kubernetes@1.0.0: no job of the library produces it"}},
		{"no producer on the host", func(in *Input) {
			in.Pack.Jobs["join-workers"].Inputs.Requires.Capabilities = append(in.Pack.Jobs["join-workers"].Inputs.Requires.Capabilities, cr("kubernetes.api", true))
		}, ErrMissingInput, []string{"job join-workers[worker-1] requires capability kubernetes.api (scope node)",
			"init-control-plane (already in the plan, no instance on worker-1)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := createInput(fixtureKubernetes())
			tc.mutate(&in)
			_, err := Build(in)
			if err == nil || !errors.Is(err, tc.is) {
				t.Fatalf("got: %v want: error wrapping %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("got: %v\nwant substring: %q", err, w)
				}
			}
		})
	}
}

func TestTempoWithoutDecisionFails(t *testing.T) {
	in, err := tempoInput("stage", nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Decisions = in.Decisions[:1] // only kubernetes.cluster
	_, err = Build(in)
	if !errors.Is(err, ErrMissingInput) || !strings.Contains(err.Error(), "pack tempo@1.0.0 requires capability object_storage.s3") {
		t.Fatalf("got: %v want: missing decision for object_storage.s3", err)
	}
}

func TestTemplateGate(t *testing.T) {
	k := fixtureKubernetes()
	k.Templates["create"].Gates = []protocol.Gate{{ID: "confirm-init", Type: protocol.GateDestructive, Reason: "kubeadm init wipes /etc/kubernetes",
		Options: []protocol.GateOption{protocol.Proceed("proceed"), protocol.Cancel("cancel operation")}, RequiredRoles: []string{"sre"}, Before: []string{"init-control-plane"}}}
	p := mustBuild(t, createInput(k))
	g, ok := p.Instance("confirm-init")
	if !ok || !g.IsGate() || g.Origin != protocol.OriginGate || g.Stage != "init-control-plane" {
		t.Fatalf("got: %+v want: gate node in stage init-control-plane", g)
	}
	if got := needsOf(t, p, "init-control-plane[master-1]"); !slices.Contains(got, "confirm-init") {
		t.Fatalf("got: %q want: init waits for confirm-init", got)
	}
	if s := RenderSimple(p); !strings.Contains(s, "confirm-init: waiting for destructive (roles: sre)") || !strings.Contains(s, "Verify cluster: 1 job, waiting for confirm-init") {
		t.Fatalf("got:\n%s", s)
	}
}

func TestPatchParametersAndInline(t *testing.T) {
	in := createInput(fixtureKubernetes())
	inline := mkJob(jobSpec{id: "tune-sysctl", expand: "each_worker", req: []protocol.CapabilityRequirement{cr("linux.host", true)},
		params: map[string]protocol.ParamSpec{"vm_max_map_count": {Required: true}}, key: "sysctl:{node_id}:{vm_max_map_count}"})
	in.Patches = []protocol.PlanPatch{{ID: "p2", Author: "bob", Reason: "elasticsearch needs it",
		Changes: []protocol.PatchChange{{InsertAfter: "prepare-network", Jobs: []protocol.PatchJob{{ID: "tune-sysctl", Job: inline, Parameters: map[string]string{"vm_max_map_count": "262144"}}}}}}}
	p := mustBuild(t, in)
	got, ok := p.Instance("tune-sysctl[worker-2]")
	if !ok || got.IdempotencyKey != "sysctl:worker-2:262144" || got.Origin != protocol.OriginPatch || !strings.Contains(got.Because, "plan patch by bob: elasticsearch needs it") {
		t.Fatalf("got: %+v", got)
	}
	if n := needsOf(t, p, "join-workers[worker-2]"); !slices.Contains(n, "tune-sysctl[worker-2]") || slices.Contains(n, "tune-sysctl[worker-1]") {
		t.Fatalf("got: %q want: join-workers[worker-2] waits for its own host's tune-sysctl", n)
	}
	if !p.Customized || p.Display() != "kubernetes.create@1.0.0 customized" {
		t.Fatalf("got: %s want: customized", p.Display())
	}
}

func TestNeedsSortedAndNoSelf(t *testing.T) {
	p := mustBuild(t, createInput(fixtureKubernetes()))
	for _, in := range p.Instances {
		if !slices.IsSorted(in.Needs) || slices.Contains(in.Needs, in.ID) {
			t.Fatalf("instance %s: needs %q not sorted or self", in.ID, in.Needs)
		}
		for _, n := range in.Needs {
			if _, ok := p.Instance(n); !ok {
				t.Fatalf("instance %s needs unknown %s", in.ID, n)
			}
		}
	}
}
