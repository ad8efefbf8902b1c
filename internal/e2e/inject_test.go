package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The injection fuzz test (issue: no input can change what runs on a
// host). Every parameter of every built-in pack gets every payload of
// testdata/payloads.txt. A payload passes when plan refuses it, naming
// the parameter and quoting at most 200 characters of it, or when the
// apply takes it literally: no canary file appears on any host and no
// file written on a host gains a line or key the payload smuggled in.
//
// `go test` runs the plan stage in full and applies a sample of the
// payloads plan accepts (CP_INJECT_SAMPLE, default 2); CP_INJECT_FULL=1
// applies every one (internal/e2e/bench/inject.sh).

const canaryDir = "/tmp"

type payload struct {
	raw  string // as in the corpus, with {canary}
	line int
}

func (p payload) value(canary string) string { return strings.ReplaceAll(p.raw, "{canary}", canary) }

func loadPayloads(t testing.TB) []payload {
	t.Helper()
	f, err := os.Open("testdata/payloads.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []payload
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("testdata/payloads.txt:%d: %v", n, err)
		}
		out = append(out, payload{raw: s, line: n})
	}
	if len(out) < 40 {
		t.Fatalf("only %d payloads in the corpus", len(out))
	}
	return out
}

// canaryPath is the file a payload's command would create: unique per
// parameter and payload, so a hit names both.
func canaryPath(target string, p payload) string {
	sum := sha256.Sum256([]byte(target + "\x00" + p.raw))
	return canaryDir + "/cpcanary" + hex.EncodeToString(sum[:6])
}

// injectTarget is one place a payload goes: a parameter of a pack action.
type injectTarget struct {
	pack, action, param string
}

func (it injectTarget) String() string { return it.pack + "." + it.action + ":" + it.param }

// injectHosts are the hosts of plan-stage requests; nothing connects.
func injectHosts() []protocol.Host {
	return []protocol.Host{
		{Name: "master-1", Address: "127.0.0.2", Role: protocol.RoleMaster},
		{Name: "worker-1", Address: "127.0.0.3", Role: protocol.RoleWorker},
	}
}

// baseRequest is a valid request of a pack's action that the payload
// then spoils.
func baseRequest(pack, action string, hosts []protocol.Host) planner.Request {
	if pack == "kubernetes" {
		name := "inject-k8s"
		return planner.Request{
			PlanID: name + "." + action, PackID: pack, Environment: "dev",
			State: func() planner.State {
				if action == "create" {
					return planner.State{}
				}
				return clusterState(nil)
			}(),
			Intent: protocol.Intent{
				ID: name, Action: action, TargetResource: name, TargetResourceType: "kubernetes.cluster",
				Parameters: kubernetesBase(name, action), Hosts: hosts,
				Targets:     targetsFor(action, hosts),
				Constraints: map[string]string{"environment": "dev", "require_ha_control_plane": "false"},
			},
		}
	}
	kc := []protocol.Artifact{{ID: "kubeconfig.admin", Type: "kubeconfig", Sensitivity: protocol.SensitivitySecret,
		Host: hosts[0].Name, Ref: protocol.HostRef(hosts[0].Name, "/etc/kubernetes/admin.conf")}}
	req := scenarioRequest(pack, "inject-"+pack, "stage", hosts, map[string]string{}, nil, kc)
	req.Intent.Action, req.PlanID = action, "inject-"+pack+"."+action
	return req
}

// kubernetesBase are valid values of what an action requires.
func kubernetesBase(name, action string) map[string]string {
	p := map[string]string{"cluster_name": name, "storage": "none"}
	if action == "relabel" {
		p["node_changes"] = "worker-1/tier=app"
	}
	return p
}

func targetsFor(action string, hosts []protocol.Host) []string {
	switch action {
	case "add_node", "remove_node":
		return []string{hosts[len(hosts)-1].Name}
	}
	return nil
}

// injectTargets lists every parameter of every built-in pack action,
// sorted: the pack's own and those its jobs declare.
func injectTargets(t testing.TB, cat *packs.Catalog) []injectTarget {
	t.Helper()
	var out []injectTarget
	for _, p := range cat.List() {
		names := map[string]bool{}
		for k := range p.Parameters {
			names[k] = true
		}
		for _, j := range p.Jobs {
			for k := range j.Inputs.Parameters {
				names[k] = true
			}
		}
		for _, a := range p.Actions {
			for _, k := range protocol.SortedKeys(names) {
				out = append(out, injectTarget{pack: p.ID, action: a, param: k})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// accepted is a payload that plan took: the apply stage must show it
// harmless.
type accepted struct {
	target injectTarget
	p      payload
	req    planner.Request
}

// planStage plants every payload in every target and returns what plan
// accepted. Refusals must name the parameter and keep the value short.
func planStage(t *testing.T, cat *packs.Catalog, hosts []protocol.Host) []accepted {
	payloads := loadPayloads(t)
	var out []accepted
	refused, total := 0, 0
	for _, it := range injectTargets(t, cat) {
		base := baseRequest(it.pack, it.action, hosts)
		base.Catalog, base.Now = cat, time.Now()
		if _, err := planner.Compose(base); err != nil {
			t.Fatalf("%s: the base request does not plan: %v", it, err)
		}
		for _, p := range payloads {
			total++
			req := base
			req.Intent.Parameters = map[string]string{}
			for k, v := range base.Intent.Parameters {
				req.Intent.Parameters[k] = v
			}
			v := p.value(canaryPath(it.String(), p))
			req.Intent.Parameters[it.param] = v
			_, err := planner.Compose(req)
			if err == nil {
				out = append(out, accepted{target: it, p: p, req: req})
				continue
			}
			refused++
			checkRefusal(t, it, v, err)
		}
	}
	t.Logf("plan stage: %d of %d payload placements refused, %d accepted", refused, total, len(out))
	return out
}

func checkRefusal(t *testing.T, it injectTarget, v string, err error) {
	t.Helper()
	msg := err.Error()
	if !errors.Is(err, planner.ErrParams) {
		t.Errorf("%s = %q: plan failed, but not as a parameter error: %v", it, v, err)
		return
	}
	pes, ok := planner.AsParamErrors(err)
	named := false
	for _, pe := range pes {
		named = named || pe.Name == it.param
	}
	if !ok || !named {
		t.Errorf("%s = %q: the refusal does not name parameter %q: %v", it, v, it.param, err)
	}
	if strings.ContainsAny(msg, "\n\r\x00") {
		t.Errorf("%s = %q: the refusal prints a control character raw: %q", it, v, msg)
	}
	if len(msg) > 4000 {
		t.Errorf("%s: the refusal is %d bytes long", it, len(msg))
	}
}

// TestInjectionPlanStage needs no hosts: every payload in every
// parameter plans or is refused as a parameter error.
func TestInjectionPlanStage(t *testing.T) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	acc := planStage(t, cat, injectHosts())
	for _, a := range acc {
		t.Logf("accepted at plan: %s = %q", a.target, a.p.raw)
	}
}

// TestInjectionApplyStage applies payloads plan accepted, on test hosts,
// and looks for their effects.
func TestInjectionApplyStage(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC unset: the apply stage needs root and test hosts")
	}
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	acc := applicable(t, cat, planStage(t, cat, injectHosts()))
	sample := len(acc)
	if os.Getenv("CP_INJECT_FULL") != "1" {
		sample = 3
		if s, err := strconv.Atoi(os.Getenv("CP_INJECT_SAMPLE")); err == nil {
			sample = s
		}
	}
	acc = pick(acc, sample)
	if len(acc) == 0 {
		t.Fatal("no accepted payload reaches a host; the apply stage would prove nothing: add a payload that is valid for a parameter a create job reads")
	}
	for _, a := range acc {
		t.Run(fmt.Sprintf("%s/line%d", a.target, a.p.line), func(t *testing.T) {
			// Fresh hosts for every placement: nothing is satisfied from an
			// earlier run, so every job that reads the value runs.
			e := startHosts(t, "inject-k8s", "master-1", "worker-1")
			a.req.Intent.Hosts = e.intentHosts([]string{"master-1"}, []string{"worker-1"})
			canary := canaryPath(a.target.String(), a.p)
			c := e.compose(a.req)
			res := e.run(c.Plan, engine.RunInput{})
			t.Logf("%s = %q: %s", a.target, a.p.value(canary), res.Operation.Status)
			ran := 0
			for _, in := range res.Instances {
				if readsParam(e.cat, in.Job, a.target.param) && (in.Status == engine.StatusDone || in.Status == engine.StatusFailed) {
					ran++
				}
			}
			if ran == 0 {
				t.Errorf("no job that reads %s ran, so the payload never reached a host:\n%s", a.target.param, describe(res))
			}
			e.checkNoInjection(t, canary)
		})
	}
}

// readsParam reports whether the kubernetes pack's job reads param.
func readsParam(cat *packs.Catalog, job, param string) bool {
	p, err := cat.Get("kubernetes", "")
	if err != nil {
		return false
	}
	j, ok := p.Jobs[job]
	if !ok {
		return false
	}
	_, ok = j.Inputs.Parameters[param]
	return ok
}

// applicable keeps the accepted placements whose parameter a job of a
// kubernetes create reads, and makes that job part of the plan with a
// patch when only the job library has it (the registry mirror jobs):
// those reach a host on the apply stage's one cluster.
func applicable(t *testing.T, cat *packs.Catalog, acc []accepted) []accepted {
	p, err := cat.Get("kubernetes", "")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := p.Template("create")
	if err != nil {
		t.Fatal(err)
	}
	inTemplate := map[string]bool{}
	for _, st := range tpl.Stages {
		for _, j := range st.Jobs {
			inTemplate[j] = true
		}
	}
	var out []accepted
	for _, a := range acc {
		if a.target.pack != "kubernetes" || a.target.action != "create" || a.target.param == "cluster_name" {
			continue
		}
		var insert []protocol.PatchJob
		read := false
		for _, id := range protocol.SortedKeys(p.Jobs) {
			if _, ok := p.Jobs[id].Inputs.Parameters[a.target.param]; !ok {
				continue
			}
			read = read || inTemplate[id]
			if !inTemplate[id] && id != "configure-registry-mirror" {
				insert = append(insert, protocol.PatchJob{ID: id, Parameters: benignRequired(p, p.Jobs[id], a.target.param)})
			}
		}
		if !read && len(insert) > 0 {
			a.req.Patches = []protocol.PlanPatch{{ID: "inject-insert", Author: "inject-test", Reason: "run the jobs that read " + a.target.param,
				Changes:  []protocol.PatchChange{{InsertAfter: "install-container-runtime", Jobs: insert}},
				Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}, ApprovedBy: "inject-test"}}}
			read = true
		}
		if read {
			out = append(out, a)
		}
	}
	return out
}

// benignRequired gives the parameters a patched-in job requires, other
// than the one under test, a valid value of their type.
func benignRequired(p *protocol.ScenarioPack, j *protocol.Job, except string) map[string]string {
	samples := map[string]string{paramtype.URL: "https://mirror.internal", paramtype.DNSSubdomain: "registry.internal"}
	out := map[string]string{}
	for k, spec := range j.Inputs.Parameters {
		if k == except || !spec.Required {
			continue
		}
		if ps, ok := p.Parameters[k]; ok && spec.Type == "" {
			spec = ps
		}
		if spec.Default != "" {
			continue
		}
		t := spec.Type
		if (t == paramtype.List || t == paramtype.Map) && spec.Items != nil {
			t = spec.Items.Type
		}
		if v, ok := samples[t]; ok {
			out[k] = v
		}
	}
	return out
}

// pick takes n placements spread over parameters: one per parameter in
// turn, in a stable order, payloads that would run a command first.
func pick(acc []accepted, n int) []accepted {
	byParam := map[string][]accepted{}
	for _, a := range acc {
		byParam[a.target.param] = append(byParam[a.target.param], a)
	}
	for _, l := range byParam {
		sort.SliceStable(l, func(i, j int) bool {
			return strings.Contains(l[i].p.raw, "{canary}") && !strings.Contains(l[j].p.raw, "{canary}")
		})
	}
	params := protocol.SortedKeys(byParam)
	sort.SliceStable(params, func(i, j int) bool {
		return strings.Contains(byParam[params[i]][0].p.raw, "{canary}") && !strings.Contains(byParam[params[j]][0].p.raw, "{canary}")
	})
	var out []accepted
	for round := 0; len(out) < n; round++ {
		added := false
		for _, p := range params {
			if round < len(byParam[p]) && len(out) < n {
				out = append(out, byParam[p][round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}

// smuggled are line starts that only an injection writes.
var smuggled = []string{"cpinj", `"cpinj`, "[cpinj", "- cpinj", "postup", "preup", "postdown", "predown", "node-role.kubernetes.io/control-plane=yes"}

// checkNoInjection fails when the canary exists on the machine or on any
// host, or when a file written on a host has a line starting with what
// only a payload brings.
func (e *env) checkNoInjection(t *testing.T, canary string) {
	t.Helper()
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("canary %s created on the machine", canary)
	}
	roots := []string{e.c.SimulatorStateDir()}
	for name, h := range e.hosts {
		if _, err := os.Stat(filepath.Join(h.Upper, canary)); err == nil {
			t.Errorf("canary %s created on host %s", canary, name)
		}
		roots = append(roots, h.Upper)
	}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for i, line := range strings.Split(string(b), "\n") {
				l := strings.ToLower(strings.TrimSpace(line))
				for _, s := range smuggled {
					if strings.HasPrefix(l, s) {
						t.Errorf("%s:%d: a payload added a line: %q", p, i+1, line)
					}
				}
			}
			return nil
		})
	}
}
