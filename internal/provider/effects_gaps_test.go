package provider

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/diagnose"
	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The provider's run settings reach what it hands to the resources: the
// engine's limits, the actor and environment recorded and checked, the
// organization policy rules match on, and the evidence refresh switch.
func TestProviderSettingsReachTheRun(t *testing.T) {
	str := types.StringValue
	d, diags := providerModel{
		Environment:        str("qa"),
		Parallelism:        types.Int64Value(3),
		PerHostParallelism: types.Int64Value(2),
		Actor:              str("ci"),
		Organization:       str("acme"),
		RefreshEvidence:    types.BoolValue(false),
	}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	if d.Environment != "qa" || d.Parallelism != 3 || d.PerHost != 2 || d.Actor != "ci" || d.Organization != "acme" || d.RefreshEvidence {
		t.Fatalf("got: environment %q, parallelism %d, per host %d, actor %q, organization %q, refresh_evidence %v want: qa, 3, 2, ci, acme, false",
			d.Environment, d.Parallelism, d.PerHost, d.Actor, d.Organization, d.RefreshEvidence)
	}
	d, _ = providerModel{}.settings("test")
	if d.Environment != "dev" || d.Parallelism != 10 || d.PerHost != 4 || d.Actor != "terraform" || !d.RefreshEvidence {
		t.Fatalf("got: defaults %q %d %d %q %v want: dev, 10, 4, terraform, true", d.Environment, d.Parallelism, d.PerHost, d.Actor, d.RefreshEvidence)
	}
}

// The provider's ssh block is how every host is reached, a bastion
// included: user, port, key file, known_hosts, host key checking and the
// dial timeout reach the SSH access.
func TestProviderSSHSettingsReachTheAccess(t *testing.T) {
	str := types.StringValue
	d, diags := providerModel{SSH: &sshModel{
		User: str("deploy"), Port: types.Int64Value(2222), PrivateKeyFile: str("/keys/id"),
		KnownHostsFile: str("/keys/known_hosts"), HostKeyChecking: str("accept-new"), Timeout: str("7s"),
		Bastion: &bastionModel{Address: str("10.0.0.1"), Port: types.Int64Value(2200), User: str("jump"), PrivateKeyFile: str("/keys/jump")},
	}}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	a := d.SSH.access()
	if a.User != "deploy" || a.Port != 2222 || a.PrivateKeyFile != "/keys/id" || a.KnownHostsFile != "/keys/known_hosts" || !a.AcceptNew || a.DialTimeout != 7*time.Second {
		t.Fatalf("got: access %+v want: deploy@:2222, /keys/id, /keys/known_hosts, accept-new, 7s", a)
	}
	if b := a.Bastion; b == nil || b.Address != "10.0.0.1" || b.Port != 2200 || b.User != "jump" || b.PrivateKeyFile != "/keys/jump" {
		t.Fatalf("got: bastion %+v want: jump@10.0.0.1:2200 with /keys/jump", b)
	}
	d, _ = providerModel{SSH: &sshModel{}}.settings("test")
	if a := d.SSH.access(); a.User != "root" || a.Port != 22 || a.AcceptNew || a.DialTimeout != 30*time.Second {
		t.Fatalf("got: default access %+v want: root, 22, strict, 30s", a)
	}
}

// A cluster's hosts are its masters then its workers, each with its
// name, address, port, labels and taints; the resource's ssh block is
// merged over the provider's, and a host's own ssh over that.
func TestClusterHostsAndTheirAccess(t *testing.T) {
	str := types.StringValue
	data, diags := providerModel{SSH: &sshModel{User: str("root"), PrivateKeyFile: str("/provider/key")}}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	m := &clusterModel{
		SSH: &resourceSSHModel{User: str("ops"), Port: types.Int64Value(2022), PrivateKeyFile: str("/resource/key"), KnownHostsFile: str("/resource/known_hosts")},
		Masters: []nodeModel{{Name: str("master-1"), Address: str("10.0.0.10"), Port: types.Int64Value(2201),
			Labels: map[string]string{"tier": "cp"}, Taints: []string{"dedicated=cp:NoSchedule"}}},
		Workers: []nodeModel{{Name: str("worker-1"), Address: str("10.0.0.20"),
			SSH: &hostSSHModel{User: str("w1"), PrivateKeyFile: str("/host/key")}}},
	}
	hosts, access := clusterHosts(m, data, &diag.Diagnostics{})
	if len(hosts) != 2 || hosts[0].Name != "master-1" || hosts[0].Role != protocol.RoleMaster || hosts[1].Name != "worker-1" || hosts[1].Role != protocol.RoleWorker {
		t.Fatalf("got: hosts %+v want: master-1 (master), worker-1 (worker)", hosts)
	}
	if h := hosts[0]; h.Address != "10.0.0.10" || h.Port != 2201 || h.Labels["tier"] != "cp" || !slices.Equal(h.Taints, []string{"dedicated=cp:NoSchedule"}) {
		t.Fatalf("got: master %+v want: its address, port, labels and taints", h)
	}
	if a := access[0].Access; a.User != "ops" || a.Port != 2022 || a.PrivateKeyFile != "/resource/key" || a.KnownHostsFile != "/resource/known_hosts" {
		t.Fatalf("got: master access %+v want: the resource's ssh over the provider's", a)
	}
	if a := access[1].Access; a.User != "w1" || a.PrivateKeyFile != "/host/key" || a.Port != 2022 {
		t.Fatalf("got: worker access %+v want: the host's ssh over the resource's", a)
	}
}

// The cluster's own attributes are the kubernetes pack's parameters and
// constraints the plan and the scripts read.
func TestClusterAttributesReachThePackParameters(t *testing.T) {
	str := types.StringValue
	m := &clusterModel{
		Name: str("prod"), KubernetesVersion: str("1.34.2"), CNI: str("cilium"), ContainerRuntime: str("containerd"),
		Storage: str("none"), PodCIDR: str("10.50.0.0/16"), ServiceCIDR: str("10.60.0.0/16"),
		RegistryMirrors: []string{"https://m1.internal:5000", "https://m2.internal:5000"},
		Region:          str("eu-central"), RequireHAControlPlane: types.BoolValue(true),
		Parameters: map[string]string{"control_plane_endpoint": "lb.internal:6443"},
		Proxy:      &proxyModel{HTTP: str("http://proxy.internal:3128"), HTTPS: str("http://proxy.internal:3129"), NoProxy: []string{".corp.internal", "10.0.0.0/8"}},
		Masters: []nodeModel{{Name: str("master-1"), Address: str("203.0.113.10"), NodeAddress: str("10.0.0.10"), WireGuardEndpoint: str("198.51.100.10")},
			{Name: str("master-2"), Address: str("10.0.0.11")}},
	}
	p := clusterParams(m)
	want := map[string]string{
		"cluster_name": "prod", "kubernetes_version": "1.34.2", "cni": "cilium", "container_runtime": "containerd",
		"storage": "none", "pod_cidr": "10.50.0.0/16", "service_cidr": "10.60.0.0/16",
		"registry_mirrors":       "https://m1.internal:5000,https://m2.internal:5000",
		"control_plane_endpoint": "lb.internal:6443",
		"node_addresses":         "master-1=10.0.0.10", "wireguard_endpoints": "master-1=198.51.100.10",
		"http_proxy": "http://proxy.internal:3128", "https_proxy": "http://proxy.internal:3129", "no_proxy": ".corp.internal,10.0.0.0/8",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("parameter %s got: %q want: %q", k, p[k], v)
		}
	}
	c := clusterConstraints(m, "prod")
	if c["region"] != "eu-central" || c["require_ha_control_plane"] != "true" || c["environment"] != "prod" {
		t.Fatalf("got: constraints %v want: region eu-central, require_ha_control_plane true, environment prod", c)
	}
}

// deletion_protection = true refuses the destroy on its attribute; false
// lets it go on.
func TestDeletionProtectionRefusesDestroy(t *testing.T) {
	var diags diag.Diagnostics
	m := &clusterModel{Name: types.StringValue("prod"), DeletionProtection: types.BoolValue(true)}
	if !refuseDeletion(m, &diags) {
		t.Fatal("got: destroy allowed want: refused while deletion_protection is true")
	}
	wantOneError(t, diags, "deletion_protection", "set it to false and apply before destroying", "")
	diags = nil
	m.DeletionProtection = types.BoolValue(false)
	if refuseDeletion(m, &diags) || diags.HasError() {
		t.Fatalf("got: refused (%q) want: destroy allowed when deletion_protection is false", errorsAt(diags))
	}
}

// A host's own ssh block (cp_scenario hosts, cp_node node) is merged over
// the resource's access: its user and key file win, the rest stays.
func TestHostAccessOf(t *testing.T) {
	base := operation.Access{User: "root", Port: 2022, PrivateKeyFile: "/resource/key", KnownHostsFile: "/kh"}
	if got := hostAccessOf(base, nil); got.User != "root" || got.PrivateKeyFile != "/resource/key" {
		t.Fatalf("got: %+v want: the resource's access unchanged", got)
	}
	got := hostAccessOf(base, &hostSSHModel{User: types.StringValue("deploy"), PrivateKeyFile: types.StringValue("/host/key")})
	if got.User != "deploy" || got.PrivateKeyFile != "/host/key" || got.Port != 2022 || got.KnownHostsFile != "/kh" {
		t.Fatalf("got: %+v want: deploy with /host/key, port and known_hosts kept", got)
	}
}

// The diagnosis block becomes the analyzers asked when a job fails: the
// command's path, args and timeout, the HTTP server's endpoint, model,
// key variable and timeout.
func TestDiagnosisSettingsReachTheAnalyzers(t *testing.T) {
	str := types.StringValue
	t.Setenv("CP_TEST_DIAG_KEY", "k")
	var m providerModel
	m.Diagnosis = &diagnosisModel{}
	m.Diagnosis.Command = &struct {
		Path    types.String   `tfsdk:"path"`
		Args    []types.String `tfsdk:"args"`
		Timeout types.String   `tfsdk:"timeout"`
	}{Path: str("/bin/sh"), Args: []types.String{str("-c"), str("cat")}, Timeout: str("5s")}
	m.Diagnosis.HTTP = &struct {
		Endpoint  types.String `tfsdk:"endpoint"`
		Model     types.String `tfsdk:"model"`
		APIKeyEnv types.String `tfsdk:"api_key_env"`
		Timeout   types.String `tfsdk:"timeout"`
	}{Endpoint: str("http://127.0.0.1:8080/v1"), Model: str("m1"), APIKeyEnv: str("CP_TEST_DIAG_KEY"), Timeout: str("9s")}
	var diags diag.Diagnostics
	as := m.analyzers(&diags)
	if diags.HasError() || len(as) != 2 {
		t.Fatalf("got: %d analyzers, %q want: 2, no error", len(as), errorsAt(diags))
	}
	c, ok := as[0].(*diagnose.CommandAnalyzer)
	if !ok || c.Path != "/bin/sh" || !slices.Equal(c.Args, []string{"-c", "cat"}) || c.Timeout != 5*time.Second {
		t.Fatalf("got: %+v want: the command analyzer /bin/sh -c cat, 5s", as[0])
	}
	h, ok := as[1].(*diagnose.HTTPAnalyzer)
	if !ok || h.Endpoint != "http://127.0.0.1:8080/v1" || h.Model != "m1" || h.APIKeyEnv != "CP_TEST_DIAG_KEY" || h.Timeout != 9*time.Second {
		t.Fatalf("got: %+v want: the HTTP analyzer with its endpoint, model, key variable and 9s", as[1])
	}
}

// A plan patch from HCL is recorded in the operation's timeline by its
// id, author, approver and reason.
func TestPlanPatchRecordedInTheTimeline(t *testing.T) {
	str := types.StringValue
	patches := toPatches([]planPatchModel{{
		ID: str("mirror-1"), Author: str("diagnose:rule/image-pull"), Reason: str("pull through the mirror"),
		Changes:  []patchChangeModel{{Retry: str("init-control-plane")}},
		Approval: &patchApprovalModel{Required: types.BoolValue(true), ApprovedBy: str("ci")},
	}}, nil)
	if len(patches) != 1 || patches[0].Changes[0].Retry == nil || patches[0].Changes[0].Retry.Job != "init-control-plane" {
		t.Fatalf("got: %+v want: one patch retrying init-control-plane", patches)
	}
	plan := &protocol.Plan{ID: "p1", Template: "kubernetes.create@1.0.0", Patches: patches}
	obj := operationObject("create", &protocol.Operation{ID: "op-1", Status: protocol.StatusCompleted}, plan, &engine.Result{})
	tl, ok := obj.Attributes()["timeline"].(types.List)
	if !ok {
		t.Fatalf("got: timeline %T want: a list", obj.Attributes()["timeline"])
	}
	want := types.StringValue("plan patch mirror-1 by diagnose:rule/image-pull, approved by ci: pull through the mirror")
	if len(tl.Elements()) == 0 || !tl.Elements()[0].Equal(want) {
		t.Fatalf("got: timeline %v want: first %s", tl.Elements(), want)
	}
}

// A cp_scenario's arguments are its intent: pack, version, name,
// environment, parameters and constraints as given; hosts with their
// role (node by default), labels and taints; a target not among them is
// refused on its element of targets.
func TestScenarioModelIsTheIntentSpec(t *testing.T) {
	str := types.StringValue
	data, diags := providerModel{Environment: str("dev")}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	m := &scenarioModel{
		Pack: str("postgresql-host"), Version: str(">= 1.0.0"), Name: str("db"), Environment: str("qa"),
		Parameters:  map[string]string{"postgresql_version": "15"},
		Constraints: map[string]string{"region": "eu-central"},
		Hosts: []hostResModel{
			{Name: str("db-1"), Address: str("10.0.0.5"), Role: str("master"), Labels: map[string]string{"tier": "db"}, Taints: []string{"db=only:NoSchedule"}},
			{Name: str("db-2"), Address: str("10.0.0.6")},
		},
		Targets: []string{"db-2", "db-9"},
	}
	ip := scenarioPlanOf(data, m, &diags)
	s := ip.spec
	if s.Pack != "postgresql-host" || s.Version != ">= 1.0.0" || s.Name != "db" || s.Environment != "qa" ||
		s.Params["postgresql_version"] != "15" || s.Constraints["region"] != "eu-central" {
		t.Fatalf("got: spec %s %q %s %s %v %v want: the model's pack, version, name, environment, parameters and constraints",
			s.Pack, s.Version, s.Name, s.Environment, s.Params, s.Constraints)
	}
	if len(s.Hosts) != 2 {
		t.Fatalf("got: %d hosts want: 2", len(s.Hosts))
	}
	if h := s.Hosts[0].Host; h.Role != "master" || h.Labels["tier"] != "db" || !slices.Equal(h.Taints, []string{"db=only:NoSchedule"}) {
		t.Fatalf("got: host %+v want: role master with its labels and taints", h)
	}
	if h := s.Hosts[1].Host; h.Role != "node" {
		t.Fatalf("got: role %q want: node by default", h.Role)
	}
	wantOneError(t, diags, "targets[1]", `target "db-9" is not a host of the intent`, "")
	m.Environment = types.StringNull()
	diags = nil
	if ip := scenarioPlanOf(data, m, &diags); ip.spec.Environment != "dev" {
		t.Fatalf("got: environment %q want: the provider's, dev", ip.spec.Environment)
	}
}

// Each of the four intent resources carries its own approvals,
// interventions and plan patches (and customizations, where it has them)
// into the intent the shared skeleton plans and runs: none is accepted
// and dropped by one resource's conversion.
func TestEveryIntentResourceCarriesItsDecisions(t *testing.T) {
	str := types.StringValue
	data, diags := providerModel{}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	approvals := []approvalModel{{Gate: str("confirm-x"), Option: str("proceed")}}
	interventions := []interventionModel{{Job: str("join-workers"), Node: str("worker-1")}}
	patches := []planPatchModel{{ID: str("p-1"), Author: str("ana"), Reason: str("why"), Changes: []patchChangeModel{{Remove: str("install-storage")}}}}
	custom := &customizationModel{BaseTemplate: str("kubernetes.create@1.0.0")}
	cluster := &clusterModel{Name: str("prod"), Environment: str("qa"), Masters: []nodeModel{{Name: str("master-1"), Address: str("10.0.0.1")}},
		Approvals: approvals, Interventions: interventions, PlanPatches: patches, Customizations: custom}
	kpack, _ := data.Catalog.Get("kubernetes", "")
	handle := clusterHandle(cluster, kpack).Encode()
	storage := &boundCandidateModel{Name: str("shared-s3"), Provider: str("aws_s3"), Attributes: map[string]string{"bucket": "traces"}}
	var d diag.Diagnostics
	cases := map[string]struct {
		ip     intentPlan
		custom bool
	}{
		"cp_kubernetes_cluster": {clusterHooks{}.spec(cluster, nil, data, &d), true},
		"cp_node": {nodeHooks{}.spec(&nodeResModel{ClusterHandle: str(handle), Node: &hostResModel{Name: str("worker-9"), Address: str("10.0.0.9")},
			Approvals: approvals, Interventions: interventions, PlanPatches: patches}, nil, data, &d), false},
		"cp_scenario": {scenarioHooks{}.spec(&scenarioModel{Pack: str("postgresql-host"), Name: str("db"), ClusterHandle: str(handle),
			Approvals: approvals, Interventions: interventions, PlanPatches: patches, Customizations: custom}, nil, data, &d), true},
		"cp_tempo": {tempoHooks{}.spec(&tempoModel{Name: str("tracing"), Environment: str("qa"), ClusterHandle: str(handle), ObjectStorage: storage,
			Approvals: approvals, Interventions: interventions, PlanPatches: patches, Customizations: custom}, nil, data, &d), true},
	}
	for name, c := range cases {
		if len(c.ip.inputs.Approvals) != 1 || c.ip.inputs.Approvals[0].Option.ValueString() != "proceed" {
			t.Errorf("%s: approvals got: %v want: the resource's one approval", name, c.ip.inputs.Approvals)
		}
		if len(c.ip.inputs.Interventions) != 1 || c.ip.inputs.Interventions[0].Job.ValueString() != "join-workers" {
			t.Errorf("%s: interventions got: %v want: the resource's one intervention", name, c.ip.inputs.Interventions)
		}
		if len(c.ip.spec.Patches) != 1 || c.ip.spec.Patches[0].ID != "p-1" || c.ip.spec.Patches[0].Changes[0].Remove != "install-storage" {
			t.Errorf("%s: patches got: %+v want: the resource's one patch", name, c.ip.spec.Patches)
		}
		if c.custom && (c.ip.spec.Customization == nil || c.ip.spec.Customization.BaseTemplate != "kubernetes.create@1.0.0") {
			t.Errorf("%s: customization got: %+v want: the resource's", name, c.ip.spec.Customization)
		}
	}
	for _, name := range []string{"cp_kubernetes_cluster", "cp_tempo"} {
		if env := cases[name].ip.spec.Environment; env != "qa" {
			t.Errorf("%s: environment got: %q want: its own, qa", name, env)
		}
	}
	// cp_node takes the cluster's environment from the handle.
	if env := cases["cp_node"].ip.spec.Environment; env != "qa" {
		t.Errorf("cp_node: environment got: %q want: the cluster's, qa", env)
	}
	// cp_tempo's object_storage is the first candidate, of object_storage.s3
	// by default, and its bucket is Tempo's bucket parameter.
	tempo := cases["cp_tempo"].ip.spec
	if len(tempo.Candidates) == 0 || tempo.Candidates[0].Name != "shared-s3" || tempo.Candidates[0].Provider != "aws_s3" ||
		tempo.Candidates[0].Capability.Key != "object_storage.s3" || tempo.Params["bucket"] != "traces" {
		t.Fatalf("got: candidates %+v, bucket %q want: shared-s3 (aws_s3, object_storage.s3), bucket traces", tempo.Candidates, tempo.Params["bucket"])
	}
}

// cp_node's node is the host added to the cluster handle's hosts, with
// its name, address, port, role (worker by default), labels and taints.
func TestNodeModelIsTheAddedHost(t *testing.T) {
	str := types.StringValue
	data, _ := providerModel{}.settings("test")
	kpack, _ := data.Catalog.Get("kubernetes", "")
	cluster := &clusterModel{Name: str("prod"), Masters: []nodeModel{{Name: str("master-1"), Address: str("10.0.0.1")}}}
	handle := clusterHandle(cluster, kpack).Encode()
	var diags diag.Diagnostics
	ip := nodePlanOf(data, &nodeResModel{ClusterHandle: str(handle), Node: &hostResModel{Name: str("worker-9"), Address: str("10.0.0.9"),
		Port: types.Int64Value(2209), Labels: map[string]string{"pool": "gpu"}, Taints: []string{"gpu=yes:NoSchedule"}}}, &diags)
	if diags.HasError() || len(ip.spec.Hosts) != 2 {
		t.Fatalf("got: %d hosts, %q want: the cluster's master and the node", len(ip.spec.Hosts), errorsAt(diags))
	}
	h := ip.spec.Hosts[1].Host
	if h.Name != "worker-9" || h.Address != "10.0.0.9" || h.Port != 2209 || h.Role != protocol.RoleWorker || h.Labels["pool"] != "gpu" || !slices.Equal(h.Taints, []string{"gpu=yes:NoSchedule"}) {
		t.Fatalf("got: host %+v want: worker-9 at 10.0.0.9:2209, worker, its labels and taints", h)
	}
	ip = nodePlanOf(data, &nodeResModel{ClusterHandle: str(handle), Node: &hostResModel{Name: str("master-2"), Address: str("10.0.0.2"), Role: str("master")}}, &diags)
	if h := ip.spec.Hosts[len(ip.spec.Hosts)-1].Host; h.Role != protocol.RoleMaster {
		t.Fatalf("got: role %q want: master", h.Role)
	}
}

// cp_plan's state_artifacts and state_capabilities are the planner's
// state: each artifact with its expiry (which makes an expired one be
// produced again), each capability by key.
func TestPlanStateFromHCL(t *testing.T) {
	var diags diag.Diagnostics
	s := toState([]stateArtifactModel{{ID: types.StringValue("kubeadm.join_token"), ExpiresAt: types.StringValue("2026-11-30T12:00:00Z")}},
		[]string{"kubernetes.api"}, path.Root("state_artifacts"), &diags)
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	want := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if len(s.Artifacts) != 1 || s.Artifacts[0].ID != "kubeadm.join_token" || !s.Artifacts[0].ExpiresAt.Equal(want) {
		t.Fatalf("got: artifacts %+v want: kubeadm.join_token expiring %s", s.Artifacts, want)
	}
	if len(s.Capabilities) != 1 || s.Capabilities[0].Key != "kubernetes.api" {
		t.Fatalf("got: capabilities %+v want: kubernetes.api", s.Capabilities)
	}
}

// cp_scenario_pack shows a pack's descriptive fields: title,
// description, risk level, advanced mode, parameter descriptions, stage
// titles and contracts, a job's type and description, its parameters'
// descriptions, an artifact's type and description, an evidence's source.
func TestScenarioPackShowsItsFields(t *testing.T) {
	p := &protocol.ScenarioPack{ID: "demo", Version: "1.0.0", Title: "Demo", Description: "A demo pack.",
		Risk: protocol.Risk{DefaultLevel: "high"}, Editable: protocol.Editable{AdvancedMode: new(true)},
		Parameters: map[string]protocol.ParamSpec{"greeting": {Description: "What to say."}}}
	m := flattenPack(p)
	if m.Title.ValueString() != "Demo" || m.Description.ValueString() != "A demo pack." || m.RiskLevel.ValueString() != "high" || !m.AdvancedMode.ValueBool() {
		t.Fatalf("got: %s %q %s %v want: Demo, its description, high, advanced mode", m.Title, m.Description, m.RiskLevel, m.AdvancedMode)
	}
	if len(m.Parameters) != 1 || m.Parameters[0].Description != "What to say." {
		t.Fatalf("got: parameters %+v want: greeting with its description", m.Parameters)
	}
	tm := flattenTemplate(protocol.TemplateRef{ID: "demo.install", Action: "install"}, &protocol.PlanTemplate{ID: "demo.install", Title: "Install demo",
		Stages: []protocol.Stage{{ID: "s", Title: "Stage one", Jobs: []string{"j"}, Requires: []string{"demo.ready"}, Produces: []string{"demo.done"}}}})
	if s := tm.Stages[0]; tm.Title != "Install demo" || s.Title != "Stage one" || !slices.Equal(s.Requires, []string{"demo.ready"}) || !slices.Equal(s.Produces, []string{"demo.done"}) {
		t.Fatalf("got: template %+v want: its title, the stage's title, requires and produces", tm)
	}
	jm := flattenJob(&protocol.Job{ID: "j", Title: "J", Type: "verification", Description: "Checks the demo.",
		Inputs: protocol.Inputs{Parameters: map[string]protocol.ParamSpec{"greeting": {Description: "Said on start."}, "colour": {}}},
		Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{{ID: "a", Type: "kubeadm.token", Description: "A join token.", Sensitivity: protocol.SensitivitySecret}},
			Evidence: []protocol.Evidence{{ID: "e", Source: "systemd", Command: "true"}}}})
	if jm.Type != "verification" || jm.Artifacts[0].Sensitivity != "secret" || jm.Evidence[0].Source != "systemd" {
		t.Fatalf("got: job %+v want: type, sensitivity and source shown", jm)
	}
	if jm.Description != "Checks the demo." || !maps.Equal(jm.ParameterDescriptions, map[string]string{"greeting": "Said on start."}) {
		t.Fatalf("got: job description %q, parameter descriptions %v want: the job's description and greeting's", jm.Description, jm.ParameterDescriptions)
	}
	if a := jm.Artifacts[0]; a.Type != "kubeadm.token" || a.Description != "A join token." {
		t.Fatalf("got: artifact %+v want: its type and description", a)
	}
}

// A state artifact's expiry that is not an RFC 3339 time is refused on
// its own element of state_artifacts.
func TestPlanStateBadExpiryOnItsPath(t *testing.T) {
	var diags diag.Diagnostics
	toState([]stateArtifactModel{{ID: types.StringValue("kubeadm.join_token"), ExpiresAt: types.StringValue("soon")}}, nil, path.Root("state_artifacts"), &diags)
	wantOneError(t, diags, "state_artifacts[0].expires_at", "is not an RFC 3339 time", "")
}

// Each intent resource's timeouts reach the context its operation runs
// under: create, update and delete each stop the operation at their own
// limit, which the timeout names.
func TestEveryIntentResourceTimesOutAtItsLimits(t *testing.T) {
	limits := func() timeouts.Value {
		return timeouts.Value{Object: types.ObjectValueMust(
			map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
			map[string]attr.Value{"create": types.StringValue("20ms"), "update": types.StringValue("30ms"), "delete": types.StringValue("40ms")})}
	}
	models := map[string]interface{ timeoutsValue() timeouts.Value }{
		"cp_kubernetes_cluster": &clusterModel{Timeouts: limits()},
		"cp_node":               &nodeResModel{Timeouts: limits()},
		"cp_scenario":           &scenarioModel{Timeouts: limits()},
		"cp_tempo":              &tempoModel{Timeouts: limits()},
	}
	for name, m := range models {
		tv := m.timeoutsValue()
		for _, c := range []struct {
			kind string
			get  func(context.Context, time.Duration) (time.Duration, diag.Diagnostics)
			want time.Duration
		}{{"create", tv.Create, 20 * time.Millisecond}, {"update", tv.Update, 30 * time.Millisecond}, {"delete", tv.Delete, 40 * time.Millisecond}} {
			var diags diag.Diagnostics
			ctx, cancel := withTimeout(context.Background(), c.kind, c.get, time.Hour, &diags)
			<-ctx.Done()
			var te *engine.TimeoutError
			if !errors.As(context.Cause(ctx), &te) || te.After != c.want || te.Limit != "timeouts."+c.kind {
				t.Errorf("%s %s: cause got: %v want: a TimeoutError of %s, timeouts.%s", name, c.kind, context.Cause(ctx), c.want, c.kind)
			}
			cancel()
		}
	}
}
