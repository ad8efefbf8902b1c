package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func destroyEntry(res, name, gate, option string) destroyApprovalModel {
	return destroyApprovalModel{Resource: types.StringValue(res), Name: types.StringValue(name), Gate: types.StringValue(gate), Option: types.StringValue(option)}
}

// destroy_approvals entries are checked when the provider is configured:
// a resource type with a destroy, and a name, gate and option each given;
// a bad entry is refused on its attribute and dropped.
func TestDestroyApprovalsOf(t *testing.T) {
	var diags diag.Diagnostics
	got := destroyApprovalsOf([]destroyApprovalModel{
		destroyEntry("cp_tempo", "tracing", "confirm-tempo-uninstall", "uninstall"),
		destroyEntry("cp_bucket", "x", "g", "o"),
		destroyEntry("cp_scenario", "demo", "", "uninstall"),
	}, &diags)
	if len(got) != 1 || got[0].Resource != "cp_tempo" || got[0].Index != 0 {
		t.Fatalf("kept %+v; want the first entry only", got)
	}
	want := map[string]string{
		path.Root("destroy_approvals").AtListIndex(1).AtName("resource").String(): "Unknown resource type",
		path.Root("destroy_approvals").AtListIndex(2).AtName("gate").String():     "Missing gate",
	}
	if len(diags) != len(want) {
		t.Fatalf("diagnostics %v; want %d", diags, len(want))
	}
	for _, d := range diags {
		p := d.(diag.DiagnosticWithPath).Path().String()
		if want[p] != d.Summary() {
			t.Errorf("%s: %q, want %q", p, d.Summary(), want[p])
		}
	}
}

// An entry names a resource by type and by its name or its id; for the
// gates it names, it overrides the resource's own approvals.
func TestDestroyApprovalsFor(t *testing.T) {
	data := &providerData{DestroyApprovals: []destroyApproval{
		{Resource: "cp_tempo", Name: "tracing", Gate: "confirm-tempo-uninstall", Option: "uninstall", Index: 0},
		{Resource: "cp_scenario", Name: "tempo/tracing", Gate: "confirm-tempo-uninstall", Option: "cancel operation", Index: 1},
		{Resource: "cp_tempo", Name: "other", Gate: "confirm-tempo-uninstall", Option: "uninstall", Index: 2},
	}}
	tempo := &tempoModel{Name: types.StringValue("tracing"), ID: types.StringValue("tempo/tracing")}
	if got := destroyApprovalsFor(data, tempo); len(got) != 1 || got[0].Index != 0 {
		t.Errorf("cp_tempo tracing: %+v, want entry 0", got)
	}
	scen := &scenarioModel{Name: types.StringValue("tracing"), ID: types.StringValue("tempo/tracing")}
	if got := destroyApprovalsFor(data, scen); len(got) != 1 || got[0].Index != 1 {
		t.Errorf("cp_scenario tempo/tracing: %+v, want entry 1 (by id)", got)
	}
	own := []approvalModel{
		{Gate: types.StringValue("confirm-tempo-uninstall"), Option: types.StringValue("cancel operation")},
		{Gate: types.StringValue("approve-dedicated-minio"), Option: types.StringValue("create")},
	}
	merged := mergeDestroyApprovals(own, destroyApprovalsFor(data, tempo))
	var got []string
	for _, a := range merged {
		got = append(got, a.Gate.ValueString()+"="+a.Option.ValueString())
	}
	if strings.Join(got, ",") != "approve-dedicated-minio=create,confirm-tempo-uninstall=uninstall" {
		t.Errorf("merged approvals %v; want the resource's other gate kept and the provider's entry for the uninstall gate", got)
	}
	if h := destroyHCL(tempo, "confirm-tempo-uninstall", "uninstall"); h != `destroy_approvals = [{ resource = "cp_tempo", name = "tracing", gate = "confirm-tempo-uninstall", option = "uninstall" }]` {
		t.Errorf("HCL to paste: %s", h)
	}
}
