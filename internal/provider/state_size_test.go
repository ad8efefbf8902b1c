package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// State size after a completed create, without applying: the state of
// cp_kubernetes_cluster is computed with the resource's own code (the
// plan views set at plan, computed.record over the engine's result, the
// schema's tfsdk.State.Set) from the builtin create plan of n nodes and
// a completed engine result written for it: every instance done, every
// evidence check of its job passed (observed = its expected value),
// every artifact of its job produced on its host (secrets by reference).
// Bytes are of each attribute's value as compact JSON, as the state file
// holds it (without the file's indentation); private state is not
// counted.

// completedCreate returns the cluster model after a completed create of
// n nodes (3 masters).
func completedCreate(tb testing.TB, n int) *clusterModel {
	tb.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		tb.Fatalf("load the builtin packs: %v", err)
	}
	pack, err := cat.Get("kubernetes", "")
	if err != nil {
		tb.Fatalf("kubernetes pack: %v", err)
	}
	m := &clusterModel{Name: types.StringValue("bench"), Environment: types.StringValue("prod"), Region: types.StringValue("eu-central"),
		CNI: types.StringValue("calico"), ContainerRuntime: types.StringValue("containerd"), Storage: types.StringValue("longhorn"),
		KubernetesVersion: types.StringValue("1.34.2"), RequireHAControlPlane: types.BoolValue(true), PodCIDR: types.StringValue("100.64.0.0/10"),
		ServiceCIDR: types.StringValue("10.96.0.0/12"), DeletionProtection: types.BoolValue(false), RefreshHealth: types.BoolValue(true),
		ExposeKubeconfig: types.BoolValue(false), Timeouts: timeoutsNull(), Kubeconfig: types.StringNull()}
	in := protocol.Intent{ID: "bench", Action: "create", Pack: "kubernetes", TargetResource: "bench", TargetResourceType: "kubernetes.cluster",
		Parameters:  map[string]string{"cluster_name": "bench", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"},
		Constraints: map[string]string{"environment": "prod", "region": "eu-central", "require_ha_control_plane": "true"}}
	for i := range n {
		role, name, addr := protocol.RoleMaster, fmt.Sprintf("master-%d", i+1), fmt.Sprintf("10.0.0.%d", i+1)
		if i >= 3 {
			role, name, addr = protocol.RoleWorker, fmt.Sprintf("worker-%d", i-2), fmt.Sprintf("10.1.%d.%d", (i-3)/250, (i-3)%250+1)
		}
		in.Hosts = append(in.Hosts, protocol.Host{Name: name, Address: addr, Role: role})
		nm := nodeModel{Name: types.StringValue(name), Address: types.StringValue(addr), Port: types.Int64Null()}
		if role == protocol.RoleMaster {
			m.Masters = append(m.Masters, nm)
		} else {
			m.Workers = append(m.Workers, nm)
		}
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p, err := planner.Build(planner.Input{PlanID: "op-bench", Intent: in, Pack: pack, Now: now})
	if err != nil {
		tb.Fatalf("plan a create of %d nodes: %v", n, err)
	}
	op := intentOp{Action: "create", ID: "op-bench", Composed: &planner.Composed{Pack: pack, Plan: p}}
	ops := []intentOp{op}
	c := m.computed()
	*c.PlanSummary = types.StringValue(planSummary(ops))
	renderOpViews(ops, nil, intent.Actor{}).set(c)

	res := completedResult(tb, p, now)
	m.ID = types.StringValue("bench")
	m.APIEndpoint = types.StringValue(apiEndpoint(m))
	caps := func(last opResult, _ []protocol.Artifact) []protocol.Capability {
		return intent.Provided(pack, last.Result.Capabilities, nil, clusterExportValues(pack, m))
	}
	handle := func([]protocol.Artifact, []protocol.Capability) intent.Handle { return clusterHandle(m, pack) }
	c.record([]opResult{{Op: op, Result: res}}, nil, caps, handle)
	nodes := make([]attr.Value, 0, len(in.Hosts))
	for _, h := range in.Hosts {
		nodes = append(nodes, types.ObjectValueMust(clusterNodeType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue(h.Name), "role": types.StringValue(string(h.Role)), "ready": types.BoolValue(true)}))
	}
	m.Nodes = types.ListValueMust(clusterNodeType, nodes)
	m.Health = types.StringValue("healthy")
	return m
}

// completedResult is a completed run of p: see the comment above.
func completedResult(tb testing.TB, p *protocol.Plan, now time.Time) *engine.Result {
	tb.Helper()
	op := protocol.NewOperation("op-bench", p.ID, "ci", now)
	for _, s := range []protocol.OperationStatus{protocol.StatusPlanPreview, protocol.StatusCapabilityResolution, protocol.StatusRunning, protocol.StatusCompleted} {
		if err := op.Transition(s, now, ""); err != nil {
			tb.Fatalf("operation: %v", err)
		}
	}
	res := &engine.Result{Operation: *op}
	for _, in := range p.Instances {
		ir := engine.InstanceResult{ID: in.ID, Job: in.JobID, Stage: in.Stage, Host: in.Host, Status: engine.StatusDone, Started: now, Duration: time.Second}
		if in.IsGate() || in.Job == nil {
			res.Instances = append(res.Instances, ir)
			continue
		}
		for _, ev := range in.Job.Outputs.Evidence {
			er := protocol.EvidenceResult{ID: ev.ID, Host: in.Host, Passed: true, Observed: ev.Expected, CheckedAt: now}
			ir.Evidence = append(ir.Evidence, er)
			res.Evidence = append(res.Evidence, engine.InstanceEvidence{Instance: in.ID, EvidenceResult: er})
		}
		for _, a := range in.Job.Outputs.Artifacts {
			art := protocol.Artifact{ID: a.ID, Sensitivity: a.Sensitivity, Producer: in.ID, Host: in.Host,
				Ref: in.Host + ":/var/lib/cp/artifacts/" + a.ID, Fingerprint: "sha256:" + fmt.Sprintf("%064x", len(res.Artifacts))}
			if a.Sensitivity != protocol.SensitivitySecret {
				art.Value = "value of " + a.ID
			}
			ir.Artifacts = append(ir.Artifacts, a.ID)
			res.Artifacts = append(res.Artifacts, art)
		}
		res.Instances = append(res.Instances, ir)
	}
	return res
}

// stateSizes returns the compact JSON bytes of each attribute of the
// cluster's state for m, and their sum.
func stateSizes(tb testing.TB, m *clusterModel) (map[string]int, int) {
	tb.Helper()
	ctx := context.Background()
	var sresp resource.SchemaResponse
	(&KubernetesClusterResource{}).Schema(ctx, resource.SchemaRequest{}, &sresp)
	st := tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	if diags := st.Set(ctx, m); diags.HasError() {
		tb.Fatalf("set the state: %v", diags)
	}
	var top map[string]tftypes.Value
	if err := st.Raw.As(&top); err != nil {
		tb.Fatalf("read the state: %v", err)
	}
	sizes, total := map[string]int{}, 0
	for k, v := range top {
		b, err := json.Marshal(jsonOf(tb, v))
		if err != nil {
			tb.Fatalf("encode %s: %v", k, err)
		}
		sizes[k] = len(b)
		total += len(b)
	}
	return sizes, total
}

// jsonOf is v as the state file's JSON holds it.
func jsonOf(tb testing.TB, v tftypes.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case t.Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case t.Is(tftypes.Number):
		f := new(big.Float)
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	case t.Is(tftypes.List{}), t.Is(tftypes.Set{}), t.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = jsonOf(tb, e)
		}
		return out
	default: // object or map
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			tb.Fatalf("value of type %s: %v", t, err)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = jsonOf(tb, e)
		}
		return out
	}
}

// BenchmarkClusterState reports the state bytes of a completed create of
// 100 and 1,000 nodes (state_B, and state_B/node), and the time to
// compute them. CP_STATE_DETAIL=1 logs the bytes of each attribute.
func BenchmarkClusterState(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			var sizes map[string]int
			var total int
			for b.Loop() {
				sizes, total = stateSizes(b, completedCreate(b, n))
			}
			b.ReportMetric(float64(total), "state_B")
			b.ReportMetric(float64(total)/float64(n), "state_B/node")
			if os.Getenv("CP_STATE_DETAIL") != "" {
				keys := make([]string, 0, len(sizes))
				for k := range sizes {
					keys = append(keys, k)
				}
				slices.SortFunc(keys, func(a, c string) int { return sizes[c] - sizes[a] })
				for _, k := range keys {
					b.Logf("%d nodes: %-22s %9s B", n, k, strconv.Itoa(sizes[k]))
				}
			}
		})
	}
}

// Beyond the part that does not grow with the nodes, the state of a
// completed create grows by less than 2 KB per node: measured between
// 100 and 1,000 nodes.
func TestClusterStateUnder2KBPerNode(t *testing.T) {
	_, small := stateSizes(t, completedCreate(t, 100))
	_, large := stateSizes(t, completedCreate(t, 1000))
	perNode := float64(large-small) / 900
	t.Logf("state of a completed create: %d B at 100 nodes, %d B at 1,000: %.0f B per node beyond the fixed part", small, large, perNode)
	if perNode >= 2048 {
		t.Errorf("the state grows by %.0f B per node, want under 2,048", perNode)
	}
}
