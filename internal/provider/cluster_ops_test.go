package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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

// Changing only a master's labels or taints, or adding a master, does not
// replace the cluster; a change of the first master does.
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
	named := func(name, addr string, labels map[string]string, taints []string) nodeModel {
		return nodeModel{Name: types.StringValue(name), Address: types.StringValue(addr), Port: types.Int64Null(), Labels: labels, Taints: taints}
	}
	master := func(addr string, labels map[string]string, taints []string) nodeModel {
		return named("master-1", addr, labels, taints)
	}
	state := list(master("10.0.0.11", map[string]string{"rack": "r1"}, nil))
	for name, c := range map[string]struct {
		plan    types.List
		replace bool
	}{
		"labels and taints":   {list(master("10.0.0.11", map[string]string{"rack": "r2"}, []string{"a:NoSchedule"})), false},
		"address":             {list(master("10.0.0.12", map[string]string{"rack": "r1"}, nil)), true},
		"a master added":      {list(master("10.0.0.11", map[string]string{"rack": "r1"}, nil), named("master-2", "10.0.0.13", nil, nil)), false},
		"the first replaced":  {list(named("master-2", "10.0.0.13", nil, nil)), true},
		"a port set":          {list(nodeModel{Name: types.StringValue("master-1"), Address: types.StringValue("10.0.0.11"), Port: types.Int64Value(2222), Labels: map[string]string{"rack": "r1"}}), true},
		"address and a label": {list(master("10.0.0.12", map[string]string{"rack": "r2"}, nil)), true},
	} {
		var resp listplanmodifier.RequiresReplaceIfFuncResponse
		mastersReplaced(ctx, planmodifier.ListRequest{StateValue: state, PlanValue: c.plan}, &resp)
		if resp.Diagnostics.HasError() || resp.RequiresReplace != c.replace {
			t.Errorf("%s: RequiresReplace = %v (%v), want %v", name, resp.RequiresReplace, resp.Diagnostics, c.replace)
		}
	}
}

// The control-plane endpoint reaches the pack as host:port (6443 when
// given without a port) and makes the api_endpoint; a single master
// without one leaves the pack its default (no parameter) and the
// api_endpoint is the first master's; several masters without one are
// refused at plan on parameters["control_plane_endpoint"].
func TestClusterEndpointReachesThePack(t *testing.T) {
	str := types.StringValue
	m := relabelModel(nil, nil)
	m.Masters = append(m.Masters, nodeModel{Name: str("master-2"), Address: str("10.0.0.12")})
	m.Parameters = map[string]string{intent.EndpointParam: "api.prod.internal"}
	if got := clusterParams(m)[intent.EndpointParam]; got != "api.prod.internal:6443" {
		t.Errorf("got: control_plane_endpoint %q want: api.prod.internal:6443", got)
	}
	if got := apiEndpoint(m); got != "https://api.prod.internal:6443" {
		t.Errorf("got: api_endpoint %q want: https://api.prod.internal:6443", got)
	}
	var diags diag.Diagnostics
	validateCluster(context.Background(), m, nil, &diags)
	if diags.HasError() {
		t.Fatalf("got: %v want: no error with the endpoint given", diags)
	}
	m.Parameters = nil
	diags = nil
	validateCluster(context.Background(), m, nil, &diags)
	wantOneError(t, diags, `parameters["control_plane_endpoint"]`, "load balancer or virtual IP", "")
	m.Parameters = map[string]string{intent.EndpointParam: "api.prod.internal:99999"}
	diags = nil
	validateCluster(context.Background(), m, nil, &diags)
	wantOneError(t, diags, `parameters["control_plane_endpoint"]`, "port", "")
	one := relabelModel(nil, nil)
	if _, set := clusterParams(one)[intent.EndpointParam]; set {
		t.Errorf("a single master without an endpoint sets control_plane_endpoint %q; the pack defaults it", clusterParams(one)[intent.EndpointParam])
	}
	if got := apiEndpoint(one); got != "https://10.0.0.11:6443" {
		t.Errorf("got: api_endpoint %q want: https://10.0.0.11:6443", got)
	}
}

// A master added to a cluster plans add_master: master-2 joins as a
// control-plane node (join-control-plane, the kubeadm join with the
// certificate key) after the certificates are uploaded on master-1 and
// with the endpoint given; nothing else joins.
func TestClusterHooksPlanAddMaster(t *testing.T) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	r := &KubernetesClusterResource{}
	h := clusterHooks{r: r}
	r.init(h)
	r.data = &providerData{Environment: "dev", Catalog: cat}
	state := relabelModel(nil, nil)
	state.Parameters = map[string]string{intent.EndpointParam: "api.prod.internal:6443"}
	plan := relabelModel(nil, nil)
	plan.Parameters = map[string]string{intent.EndpointParam: "api.prod.internal:6443"}
	plan.Masters = append(plan.Masters, nodeModel{Name: types.StringValue("master-2"), Address: types.StringValue("10.0.0.12")})
	plan.Environment, state.Environment = types.StringValue("dev"), types.StringValue("dev")
	var diags diag.Diagnostics
	_, ops := planIntent(&r.intentBase, h, plan, state, h.changes(plan, state, false), &diags)
	if diags.HasError() {
		t.Fatalf("planIntent: %v", diags)
	}
	if len(ops) != 1 || ops[0].Action != "add_master" || !slices.Equal(ops[0].Targets, []string{"master-2"}) {
		t.Fatalf("ops = %+v, want one add_master of master-2", ops)
	}
	p := ops[0].Composed.Plan
	join, ok := p.Instance("join-control-plane[master-2]")
	if !ok {
		t.Fatalf("no join-control-plane[master-2] in %v", p.Instances)
	}
	if join.Params[intent.EndpointParam] != "api.prod.internal:6443" {
		t.Errorf("join-control-plane's endpoint %q, want api.prod.internal:6443", join.Params[intent.EndpointParam])
	}
	if !slices.Contains(join.Needs, "generate-certificate-key[master-1]") {
		t.Errorf("join-control-plane[master-2] needs %v, want generate-certificate-key[master-1] among them", join.Needs)
	}
	for _, x := range p.Instances {
		if strings.HasPrefix(x.ID, "join-") && x.ID != "join-control-plane[master-2]" {
			t.Errorf("add_master also plans %s", x.ID)
		}
	}
}

// The plan modifiers on real plan and state values: an endpoint change
// alone replaces the cluster from parameters, warning why on the
// parameter; a master added with the endpoint kept is in place; a master
// added while the endpoint changes is refused on the parameter (and the
// parameters' modifier leaves the refusal to the masters'); another
// parameter changed replaces nothing.
func TestControlPlanePlanModifiers(t *testing.T) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&KubernetesClusterResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	sch := sr.Schema
	str := types.StringValue
	m1 := nodeModel{Name: str("master-1"), Address: str("10.0.0.11"), Port: types.Int64Null(), NodeAddress: types.StringNull(), WireGuardEndpoint: types.StringNull()}
	m2 := nodeModel{Name: str("master-2"), Address: str("10.0.0.12"), Port: types.Int64Null(), NodeAddress: types.StringNull(), WireGuardEndpoint: types.StringNull()}
	type config struct {
		masters []nodeModel
		params  map[string]string
	}
	build := func(c config) (tfsdk.State, tfsdk.Plan, types.List, types.Map) {
		t.Helper()
		st := tfsdk.State{Schema: sch, Raw: tftypes.NewValue(sch.Type().TerraformType(ctx), nil)}
		if d := st.SetAttribute(ctx, path.Root("masters"), c.masters); d.HasError() {
			t.Fatal(d)
		}
		if d := st.SetAttribute(ctx, path.Root("parameters"), c.params); d.HasError() {
			t.Fatal(d)
		}
		var l types.List
		var m types.Map
		st.GetAttribute(ctx, path.Root("masters"), &l)
		st.GetAttribute(ctx, path.Root("parameters"), &m)
		return st, tfsdk.Plan{Schema: sch, Raw: st.Raw}, l, m
	}
	lb := map[string]string{intent.EndpointParam: "api.prod.internal:6443"}
	for _, c := range []struct {
		name                   string
		prior, next            config
		mastersRep, paramsRep  bool
		mastersErr, paramsWarn string
	}{
		{"endpoint changed", config{[]nodeModel{m1, m2}, lb}, config{[]nodeModel{m1, m2}, map[string]string{intent.EndpointParam: "10.0.0.100:6443"}},
			false, true, "", `from "api.prod.internal:6443" to "10.0.0.100:6443"`},
		{"master added, endpoint kept", config{[]nodeModel{m1}, lb}, config{[]nodeModel{m1, m2}, lb}, false, false, "", ""},
		{"master added to a cluster without an endpoint", config{[]nodeModel{m1}, nil}, config{[]nodeModel{m1, m2}, lb}, false, false,
			`built with control-plane endpoint "10.0.0.11:6443"`, ""},
		{"another parameter changed", config{[]nodeModel{m1, m2}, lb}, config{[]nodeModel{m1, m2}, map[string]string{intent.EndpointParam: "api.prod.internal", "cni_manifest": "/srv/cni.yaml"}},
			false, false, "", ""},
		{"first master changed", config{[]nodeModel{m1, m2}, lb}, config{[]nodeModel{m2}, lb}, true, false, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, _, oldL, oldP := build(c.prior)
			_, pl, newL, newP := build(c.next)
			// As RequiresReplaceIf, each modifier runs when its attribute changes.
			var mr listplanmodifier.RequiresReplaceIfFuncResponse
			if !oldL.Equal(newL) {
				mastersReplaced(ctx, planmodifier.ListRequest{State: st, Plan: pl, StateValue: oldL, PlanValue: newL}, &mr)
			}
			if mr.RequiresReplace != c.mastersRep {
				t.Errorf("masters: RequiresReplace %v want %v (%v)", mr.RequiresReplace, c.mastersRep, mr.Diagnostics)
			}
			errs := errorsAt(mr.Diagnostics)
			if c.mastersErr == "" && len(errs) > 0 || c.mastersErr != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], `parameters["control_plane_endpoint"]: `) || !strings.Contains(errs[0], c.mastersErr)) {
				t.Errorf("masters: errors %q want one at parameters[\"control_plane_endpoint\"] saying %q", errs, c.mastersErr)
			}
			if c.mastersRep && mr.Diagnostics.WarningsCount() != 1 {
				t.Errorf("masters: a replacement without its warning: %v", mr.Diagnostics)
			}
			var pr mapplanmodifier.RequiresReplaceIfFuncResponse
			if !oldP.Equal(newP) {
				parametersReplaced(ctx, planmodifier.MapRequest{State: st, Plan: pl, StateValue: oldP, PlanValue: newP}, &pr)
			}
			if pr.RequiresReplace != c.paramsRep || pr.Diagnostics.HasError() {
				t.Errorf("parameters: RequiresReplace %v want %v (%v)", pr.RequiresReplace, c.paramsRep, pr.Diagnostics)
			}
			warned := ""
			for _, d := range pr.Diagnostics.Warnings() {
				if dp, ok := d.(diag.DiagnosticWithPath); ok && dp.Path().Equal(path.Root("parameters").AtMapKey(intent.EndpointParam)) {
					warned = d.Detail()
				}
			}
			if (c.paramsWarn == "") != (warned == "") || !strings.Contains(warned, c.paramsWarn) {
				t.Errorf("parameters: warning %q want one on parameters[\"control_plane_endpoint\"] saying %q", warned, c.paramsWarn)
			}
		})
	}
}
