package provider

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
)

func relabelModel(workerLabels map[string]string, workerTaints []string) *clusterModel {
	return &clusterModel{
		Name:              types.StringValue("prod-k8s"),
		KubernetesVersion: types.StringValue("1.31.2"),
		Masters:           []nodeModel{{Name: types.StringValue("master-1"), Address: types.StringValue("10.0.0.11")}},
		Workers: []nodeModel{
			{Name: types.StringValue("worker-1"), Address: types.StringValue("10.0.0.21"), Labels: workerLabels, Taints: workerTaints},
			{Name: types.StringValue("worker-2"), Address: types.StringValue("10.0.0.22")},
		},
	}
}

// A label or taint change of an existing worker plans the relabel action:
// one job on the first master with exactly the change, nothing on the
// worker (no kubeconfig goes there).
func TestClusterHooksPlanRelabelForLabelAndTaintChanges(t *testing.T) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	r := &KubernetesClusterResource{}
	h := clusterHooks{r: r}
	r.init(h)
	r.data = &providerData{Environment: "dev", Catalog: cat}
	state := relabelModel(map[string]string{"tier": "app", "zone": "a"}, []string{"dedicated=db:NoSchedule"})
	plan := relabelModel(map[string]string{"tier": "db"}, []string{"gpu:NoExecute"})
	plan.Environment, state.Environment = types.StringValue("dev"), types.StringValue("dev")
	plans := func(plan, state *clusterModel) []intentOp {
		t.Helper()
		var diags diag.Diagnostics
		_, ops := planIntent(&r.intentBase, h, plan, state, h.changes(plan, state, false), &diags)
		if diags.HasError() {
			t.Fatalf("planIntent: %v", diags)
		}
		return ops
	}
	ops := plans(plan, state)
	if len(ops) != 1 || ops[0].Action != "relabel" || !slices.Equal(ops[0].Targets, []string{"worker-1"}) {
		t.Fatalf("ops = %+v, want one relabel of worker-1", ops)
	}
	p := ops[0].Composed.Plan
	if len(p.Instances) != 1 {
		t.Fatalf("relabel plans %d instances, want 1: %+v", len(p.Instances), p.Instances)
	}
	in := p.Instances[0]
	if in.JobID != "relabel-nodes" || in.Host != "master-1" {
		t.Errorf("instance %s runs on %q, want relabel-nodes on master-1", in.ID, in.Host)
	}
	if want := "worker-1/tier=db,worker-1/zone-,worker-1/gpu:NoExecute,worker-1/dedicated:NoSchedule-"; in.Params[intent.RelabelParam] != want {
		t.Errorf("node_changes = %q, want %q", in.Params[intent.RelabelParam], want)
	}
	if again := plans(plan, state); again[0].ID != ops[0].ID {
		t.Errorf("the same change plans operation %s then %s; a failed apply must resume the same one", ops[0].ID, again[0].ID)
	}
	if ops := plans(plan, plan); len(ops) != 0 {
		t.Errorf("unchanged labels plan %d operations", len(ops))
	}

	plan.Parameters = map[string]string{intent.RelabelParam: "worker-2/x=y"}
	var diags diag.Diagnostics
	h.validate(context.Background(), plan, nil, &diags)
	if !diags.HasError() {
		t.Error("parameters.node_changes is accepted; it must be refused (the provider computes it)")
	}
}

// Changing only a master's labels or taints does not replace the cluster;
// any other change of the masters still does.
func TestMastersReplacedIgnoresLabelsAndTaints(t *testing.T) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&KubernetesClusterResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	elem := sr.Schema.Attributes["masters"].GetType().(types.ListType).ElemType
	list := func(m ...nodeModel) types.List {
		l, d := types.ListValueFrom(ctx, elem, m)
		if d.HasError() {
			t.Fatal(d)
		}
		return l
	}
	master := func(addr string, labels map[string]string, taints []string) nodeModel {
		return nodeModel{Name: types.StringValue("master-1"), Address: types.StringValue(addr), Port: types.Int64Null(), Labels: labels, Taints: taints}
	}
	state := list(master("10.0.0.11", map[string]string{"rack": "r1"}, nil))
	for name, c := range map[string]struct {
		plan    types.List
		replace bool
	}{
		"labels and taints":   {list(master("10.0.0.11", map[string]string{"rack": "r2"}, []string{"a:NoSchedule"})), false},
		"address":             {list(master("10.0.0.12", map[string]string{"rack": "r1"}, nil)), true},
		"a master added":      {list(master("10.0.0.11", map[string]string{"rack": "r1"}, nil), master("10.0.0.13", nil, nil)), true},
		"address and a label": {list(master("10.0.0.12", map[string]string{"rack": "r2"}, nil)), true},
	} {
		var resp listplanmodifier.RequiresReplaceIfFuncResponse
		mastersReplaced(ctx, planmodifier.ListRequest{StateValue: state, PlanValue: c.plan}, &resp)
		if resp.Diagnostics.HasError() || resp.RequiresReplace != c.replace {
			t.Errorf("%s: RequiresReplace = %v (%v), want %v", name, resp.RequiresReplace, resp.Diagnostics, c.replace)
		}
	}
}
