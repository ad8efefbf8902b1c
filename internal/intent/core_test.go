package intent

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func builtinCat(t *testing.T) *packs.Catalog {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func pack(t *testing.T, id string) *protocol.ScenarioPack {
	t.Helper()
	p, err := builtinCat(t).Get(id, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hostAccess(name, role string, labels map[string]string) operation.HostAccess {
	n := 10
	if role == protocol.RoleWorker {
		n = 20
	}
	return operation.HostAccess{Host: protocol.Host{Name: name, Address: fmt.Sprintf("10.0.0.%d", n+int(name[len(name)-1]-'0')), Role: role, Labels: labels}}
}

func TestOpIDNamesTheChange(t *testing.T) {
	a := OpID("prod", "add_node", "worker-3")
	if !strings.HasPrefix(a, "prod.add_node.") || len(a) != len("prod.add_node.")+8 {
		t.Fatalf("got: %s want: prod.add_node.<8 hex>", a)
	}
	if b := OpID("prod", "add_node", "worker-3"); b != a {
		t.Errorf("got: %s then %s want: the same id for the same change", a, b)
	}
	for _, other := range []string{OpID("prod", "add_node", "worker-4"), OpID("prod", "remove_node", "worker-3"), OpID("stage", "add_node", "worker-3"),
		OpID("prod", "add_node", "worker-3", "x")} {
		if other[len(other)-8:] == a[len(a)-8:] {
			t.Errorf("got: %s and %s share a digest want: different changes named differently", a, other)
		}
	}
}

func TestTemplateKindsDecideLifecycle(t *testing.T) {
	k, tempo := pack(t, "kubernetes"), pack(t, "tempo")
	for _, c := range []struct {
		pack   *protocol.ScenarioPack
		action string
		create bool
	}{
		{k, "create", true}, {k, "add_node", false}, {k, "remove_node", false}, {k, "relabel", false}, {k, "upgrade", false}, {k, "delete", false},
		{tempo, "install", true}, {tempo, "upgrade", false}, {tempo, "uninstall", false},
		{tempo, "no-such-action", true}, {nil, "anything", true},
	} {
		if got := IsCreate(c.pack, c.action); got != c.create {
			t.Errorf("IsCreate(%s) got: %v want: %v", c.action, got, c.create)
		}
	}
	if got := DestroyAction(k); got != "delete" {
		t.Errorf("kubernetes destroy got: %q want: delete", got)
	}
	if got := DestroyAction(tempo); got != "uninstall" {
		t.Errorf("tempo destroy got: %q want: uninstall", got)
	}
	// The kind field, not the action's name, decides.
	p := &protocol.ScenarioPack{PlanTemplates: []protocol.TemplateRef{{Action: "install", Kind: protocol.KindDay2}, {Action: "provision", Kind: protocol.KindCreate},
		{Action: "teardown", Kind: protocol.KindDestroy}, {Action: "uninstall", Kind: protocol.KindDay2}}}
	if IsCreate(p, "install") || !IsCreate(p, "provision") || DestroyAction(p) != "teardown" {
		t.Errorf("kinds ignored: IsCreate(install)=%v IsCreate(provision)=%v destroy=%q", IsCreate(p, "install"), IsCreate(p, "provision"), DestroyAction(p))
	}
	if DestroyAction(&protocol.ScenarioPack{PlanTemplates: []protocol.TemplateRef{{Action: "install"}}}) != "" || DestroyAction(nil) != "" {
		t.Error("a pack without a destroy template has a destroy action")
	}
	got := Bound(tempo, []protocol.Capability{{Key: "secret.store"}, {Key: "x"}})
	var keys []string
	for _, c := range got {
		keys = append(keys, c.Key)
	}
	if want := []string{"secret.store", "x", "kubernetes.cluster", "object_storage.s3", "observability.tracing"}; !slices.Equal(keys, want) {
		t.Errorf("Bound got: %v want: %v", keys, want)
	}
}

func TestPatchesForRoutesByJob(t *testing.T) {
	k := pack(t, "kubernetes")
	retry := protocol.PlanPatch{ID: "retry-join", Changes: []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "join-worker"}}}}
	insert := protocol.PlanPatch{ID: "after-prereqs", Changes: []protocol.PatchChange{{InsertAfter: "prepare-kubernetes-prerequisites"}}}
	remove := protocol.PlanPatch{ID: "no-drain", Changes: []protocol.PatchChange{{Remove: "drain-node"}}}
	unknown := protocol.PlanPatch{ID: "nowhere", Changes: []protocol.PatchChange{{InsertAfter: "make-coffee"}}}
	all := []protocol.PlanPatch{retry, insert, remove, unknown}
	ids := func(ps []protocol.PlanPatch) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	for action, want := range map[string][]string{
		"add_node":    {"retry-join", "after-prereqs"},
		"remove_node": {"no-drain"},
		"relabel":     nil,
		"no-such":     nil,
	} {
		if got := ids(PatchesFor(k, action, all)); !slices.Equal(got, want) {
			t.Errorf("%s got: %v want: %v", action, got, want)
		}
	}
	if PatchesFor(nil, "add_node", all) != nil {
		t.Error("patches routed without a pack")
	}
}

func TestJobParamsKeepsWhatTheJobReads(t *testing.T) {
	k := pack(t, "kubernetes")
	params := map[string]string{"registry_mirrors": "https://m.example", "colour": "blue"}
	if got := JobParams(k, "configure-registry-mirror", params); !reflect.DeepEqual(got, map[string]string{"registry_mirrors": "https://m.example"}) {
		t.Errorf("known job got: %v", got)
	}
	if got := JobParams(k, "make-coffee", params); !reflect.DeepEqual(got, params) {
		t.Errorf("unknown job got: %v want: all (the planner reports the job)", got)
	}
	if JobParams(k, "configure-registry-mirror", nil) != nil {
		t.Error("no parameters give some")
	}
}

func TestClusterChangesInOrder(t *testing.T) {
	m1 := hostAccess("master-1", protocol.RoleMaster, nil)
	w := func(n string, labels map[string]string) operation.HostAccess {
		return hostAccess(n, protocol.RoleWorker, labels)
	}
	prior := &Cluster{Version: "1.31.2", Hosts: []operation.HostAccess{m1, w("worker-1", map[string]string{"tier": "app"}), w("worker-2", nil)}}
	type want struct {
		action  string
		targets []string
		hosts   []string
		params  map[string]string
		parts   []string
	}
	for _, c := range []struct {
		name  string
		prior *Cluster
		next  Cluster
		want  []want
	}{
		{"create", nil, Cluster{Version: "1.31.2", Hosts: []operation.HostAccess{w("worker-1", nil), m1}},
			[]want{{action: "create", parts: []string{"master-1", "worker-1"}}}},
		{"nothing", prior, *prior, nil},
		{"everything", prior, Cluster{Version: "1.32.0", Hosts: []operation.HostAccess{m1, w("worker-1", map[string]string{"tier": "db"}), w("worker-3", nil)}},
			[]want{
				{action: "remove_node", targets: []string{"worker-2"}, hosts: []string{"master-1", "worker-1", "worker-2", "worker-3"}, parts: []string{"worker-2"}},
				{action: "add_node", targets: []string{"worker-3"}, parts: []string{"worker-3"}},
				{action: "relabel", targets: []string{"worker-1"}, params: map[string]string{RelabelParam: "worker-1/tier=db"}, parts: []string{"worker-1/tier=db"}},
				{action: "upgrade", parts: []string{"1.32.0"}},
			}},
		{"a master's labels", prior, Cluster{Version: "1.31.2", Hosts: []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, map[string]string{"a": "b"}),
			w("worker-1", map[string]string{"tier": "app"}), w("worker-2", nil)}},
			[]want{{action: "relabel", targets: []string{"master-1"}, params: map[string]string{RelabelParam: "master-1/a=b"}, parts: []string{"master-1/a=b"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ClusterChanges(c.prior, c.next)
			if len(got) != len(c.want) {
				t.Fatalf("got: %+v want: %d changes", got, len(c.want))
			}
			for i, g := range got {
				w := c.want[i]
				var hosts []string
				for _, h := range g.Hosts {
					hosts = append(hosts, h.Host.Name)
				}
				if g.Action != w.action || !slices.Equal(g.Targets, w.targets) || !slices.Equal(hosts, w.hosts) ||
					!reflect.DeepEqual(g.Params, w.params) || !slices.Equal(g.IDParts, w.parts) {
					t.Errorf("change %d got: %s %v hosts %v params %v parts %v want: %+v", i, g.Action, g.Targets, hosts, g.Params, g.IDParts, w)
				}
			}
		})
	}
	if ps := CheckComputedParams(map[string]string{RelabelParam: "x"}); len(ps) != 1 || ps[0].Path.String() != `parameters["node_changes"]` {
		t.Errorf("got: %v want: node_changes refused at parameters[\"node_changes\"]", ps)
	}
	if ps := CheckComputedParams(map[string]string{"cni": "calico"}); len(ps) != 0 {
		t.Errorf("got: %v want: nothing refused", ps)
	}
}

func TestSpecRequestByTemplateKind(t *testing.T) {
	cat := builtinCat(t)
	custom := &protocol.Customization{Changes: []protocol.CustomizationChange{{Inserted: "configure-registry-mirror", After: "install-container-runtime"}}}
	patches := []protocol.PlanPatch{
		{ID: "p-create", Author: "ops", Reason: "no storage", Changes: []protocol.PatchChange{{Remove: "install-storage"}}},
		{ID: "p-add", Author: "ops", Reason: "flaky join", Changes: []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "join-worker"}}}},
	}
	s := Spec{Pack: "kubernetes", Name: "prod", ResourceType: ClusterKind, Environment: "prod",
		Hosts:  []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, nil), hostAccess("worker-1", protocol.RoleWorker, nil)},
		Params: map[string]string{"cluster_name": "prod"}, Constraints: map[string]string{"environment": "prod"},
		State: planner0(), Customization: custom, Patches: patches}
	env := Planning{Catalog: cat, Now: time.Unix(0, 0)}

	create := s.Request(env, Change{Action: "create", IDParts: []string{"master-1", "worker-1"}})
	if create.Customization != custom || len(create.Patches) != 2 || len(create.State.Capabilities) != 0 {
		t.Errorf("create got: customization %v, %d patches, state %v want: the customization, every patch, no capability", create.Customization, len(create.Patches), create.State.Capabilities)
	}
	if create.PlanID != OpID("prod", "create", "master-1", "worker-1") || create.Intent.TargetResourceType != ClusterKind || len(create.Intent.Hosts) != 2 {
		t.Errorf("create got: id %s type %s hosts %v", create.PlanID, create.Intent.TargetResourceType, create.Intent.Hosts)
	}
	add := s.Request(env, Change{Action: "add_node", Targets: []string{"worker-1"}, Params: map[string]string{"x": "y"}, IDParts: []string{"worker-1"}})
	if add.Customization != nil || len(add.Patches) != 1 || add.Patches[0].ID != "p-add" {
		t.Errorf("add_node got: customization %v patches %v want: none, p-add", add.Customization, add.Patches)
	}
	var keys []string
	for _, c := range add.State.Capabilities {
		keys = append(keys, c.Key)
	}
	if want := []string{"kubernetes.cluster", "kubernetes.api", "workload.runtime", "secret.store"}; !slices.Equal(keys, want) {
		t.Errorf("add_node state got: %v want: %v", keys, want)
	}
	if add.Intent.Parameters["x"] != "y" || add.Intent.Parameters["cluster_name"] != "prod" || s.Params["x"] != "" {
		t.Errorf("change params got: %v (spec %v) want: set over the spec's for this change only", add.Intent.Parameters, s.Params)
	}
	op, err := s.Compose(env, Change{Action: "add_node", Targets: []string{"worker-1"}, IDParts: []string{"worker-1"}})
	if err != nil || op.Composed == nil || op.ID != OpID("prod", "add_node", "worker-1") || len(op.Hosts) != 2 {
		t.Fatalf("Compose got: %+v, %v", op, err)
	}
	ops, failed, err := s.ComposeAll(env, []Change{{Action: "upgrade", IDParts: []string{"1.31.2"}}, {Action: "no-such-action"}, {Action: "delete"}})
	if err == nil || len(ops) != 1 || failed == nil || failed.Action != "no-such-action" || failed.Req.Intent.Action != "no-such-action" {
		t.Errorf("ComposeAll got: %d ops, failed %v, %v want: upgrade planned, stopped at no-such-action with its request", len(ops), failed, err)
	}
}

func planner0() (s planner.State) { return s }

func TestExportsSubstitutePlaceholders(t *testing.T) {
	k := pack(t, "kubernetes")
	values := ExportValues(k, map[string]string{"cluster_name": "prod", "cni": ""}, map[string]string{
		"name": "prod", "environment": "prod", "api_endpoint": "https://10.0.0.11:6443", "region": "", "colour": "blue"})
	def := k.Parameters["kubernetes_version"].Default
	if values["cni"] != "calico" || values["kubernetes_version"] != def || def == "" || values["colour"] != "" || values["region"] != "" {
		t.Errorf("values got: %v want: defaults for unset parameters, only the known own values", values)
	}
	got := Exports(k, values)
	want := []protocol.Capability{
		{Key: "kubernetes.api", Scope: protocol.ScopeCluster, Attributes: map[string]string{"endpoint": "https://10.0.0.11:6443"}},
		{Key: "kubernetes.cluster", Scope: protocol.ScopeCluster, Attributes: map[string]string{"name": "prod", "api_endpoint": "https://10.0.0.11:6443",
			"environment": "prod", "version": def, "cni": "calico"}},
		{Key: "secret.store", Scope: protocol.ScopeCluster, Attributes: map[string]string{"cluster": "prod"}},
		{Key: "workload.runtime", Scope: protocol.ScopeCluster, Attributes: map[string]string{"api_endpoint": "https://10.0.0.11:6443"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%+v\nwant:\n%+v", got, want)
	}
	if s := Substitute("{a}-{b}-{a}", map[string]string{"a": "x"}); s != "x--x" {
		t.Errorf("Substitute got: %q want: x--x", s)
	}
}

func TestProvidedMergesReportedAttributes(t *testing.T) {
	m := pack(t, "minio")
	reported := []engine.ProvidedCapability{{Key: "object_storage.s3", Attributes: map[string]string{"region": "{region}", "api": "s3"}},
		{Key: "other", Attributes: map[string]string{"x": "y"}}}
	arts := []protocol.Artifact{{ID: "minio.endpoint", Value: "http://minio:9000", Sensitivity: protocol.SensitivityInternal},
		{ID: "minio.credentials", Value: "secret!", Sensitivity: protocol.SensitivitySecret}}
	got := Provided(m, reported, arts, ExportValues(m, map[string]string{"region": "eu-1"}, nil))
	if len(got) != 1 || got[0].Key != "object_storage.s3" {
		t.Fatalf("got: %+v want: the pack's one provision", got)
	}
	if a := got[0].Attributes; a["region"] != "eu-1" || a["api"] != "s3" || a["artifact.minio.endpoint"] != "http://minio:9000" || a["artifact.minio.credentials"] != "" {
		t.Errorf("attributes got: %v want: region substituted, reported api, the endpoint's value, no secret", a)
	}
	if Provided(nil, reported, arts, nil) != nil {
		t.Error("capabilities provided without a pack")
	}
}

func TestCandidatesNameTheResourceAndItsProviderKind(t *testing.T) {
	k := pack(t, "kubernetes")
	got := Candidates(k, "prod", "cp_kubernetes_cluster", []protocol.Capability{{Key: "kubernetes.cluster"}, {Key: "secret.store"}})
	if len(got) != 2 || got[0].Provider != "cp_kubernetes_cluster" || got[1].Provider != "kubernetes_secrets" ||
		got[0].Name != "prod" || got[1].Name != "prod" || got[0].Source != "resource" {
		t.Errorf("got: %+v", got)
	}
	if p := PackOfKind(builtinCat(t), ClusterKind); p == nil || p.ID != "kubernetes" {
		t.Errorf("PackOfKind(kubernetes.cluster) got: %v", p)
	}
	if p := PackOfKind(builtinCat(t), "no.such"); p != nil {
		t.Errorf("PackOfKind(no.such) got: %s", p.Ref())
	}
}

func TestHandleEncodeDecode(t *testing.T) {
	exp := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := NewHandle(ClusterKind, "prod", []protocol.Host{{Name: "master-1", Address: "10.0.0.11", Role: protocol.RoleMaster, Port: 2222}},
		[]protocol.Artifact{{ID: "kubeconfig.admin", Ref: "master-1:/etc/kubernetes/admin.conf", Sensitivity: protocol.SensitivitySecret, Value: "SECRET"},
			{ID: "kubeadm.join_token", Ref: "master-1:/var/lib/cp/token", Sensitivity: protocol.SensitivitySecret, ExpiresAt: exp},
			{ID: "ca.hash", Value: "sha256:ab", Sensitivity: protocol.SensitivityPublic}})
	h.Environment, h.Version, h.APIEndpoint = "prod", "1.31.2", "https://10.0.0.11:6443"
	s := h.Encode()
	if strings.Contains(s, "SECRET") {
		t.Fatalf("got: %s want: no secret value in a handle", s)
	}
	back, err := DecodeClusterHandle(s)
	if err != nil || !reflect.DeepEqual(back, h) {
		t.Fatalf("round trip got: %+v, %v want: %+v", back, err, h)
	}
	arts := back.ProtocolArtifacts()
	if arts[0].Sensitivity != protocol.SensitivitySecret || arts[0].Host != "master-1" || !arts[1].ExpiresAt.Equal(exp) || arts[2].Value != "sha256:ab" {
		t.Errorf("artifacts got: %+v", arts)
	}
	if hs := back.ProtocolHosts(); len(hs) != 1 || hs[0].Port != 2222 || hs[0].Role != protocol.RoleMaster {
		t.Errorf("hosts got: %+v", hs)
	}
	// A handle written by hand lists no capabilities: they come from the
	// pack of its kind.
	k := pack(t, "kubernetes")
	caps := back.Exports(k)
	if len(caps) != 4 || caps[1].Key != "kubernetes.cluster" || caps[1].Attributes["name"] != "prod" || caps[1].Attributes["version"] != "1.31.2" ||
		caps[1].Attributes["api_endpoint"] != "https://10.0.0.11:6443" {
		t.Errorf("exports of a handle without capabilities got: %+v", caps)
	}
	back.Capabilities = []protocol.Capability{{Key: "only.this"}}
	if caps := back.Exports(k); len(caps) != 1 || caps[0].Key != "only.this" {
		t.Errorf("listed capabilities got: %+v want: those", caps)
	}
	for in, want := range map[string]string{
		"not json":                                 "not a cluster handle",
		`{"kind":"tempo","name":"t"}`:              `not a cluster handle: kind "tempo"`,
		`{"kind":"kubernetes.cluster"}`:            `name ""`,
		`{"kind":"kubernetes.cluster","name":"p"}`: "lists no hosts",
	} {
		if _, err := DecodeClusterHandle(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cp_kubernetes_cluster.<name>.handle") {
			t.Errorf("DecodeClusterHandle(%s) got: %v want: %q and what to pass", in, err, want)
		}
	}
	if _, err := DecodeHandle(`{"kind":"tempo","name":"t","artifacts":[]}`, ""); err != nil {
		t.Errorf("any kind got: %v", err)
	}
}
