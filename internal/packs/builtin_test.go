package packs

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func builtin(t *testing.T) *Catalog {
	t.Helper()
	cat, err := LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestBuiltinPacks(t *testing.T) {
	cat := builtin(t)
	want := map[string][]string{
		"kubernetes": {"add_master", "add_node", "check_certificates", "cordon", "create", "delete", "drain", "relabel", "remove_node",
			"renew_certificates", "repair", "restore", "snapshot", "uncordon", "upgrade"},
		"minio":           {"install"},
		"postgresql":      {"install"},
		"postgresql-host": {"install", "uninstall"},
		"tempo":           {"install", "uninstall", "upgrade"},
	}
	for id, actions := range want {
		p, err := cat.Get(id, "=1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		if got := protocol.SortedKeys(p.Templates); !slices.Equal(got, actions) {
			t.Errorf("%s: got: templates %v want: %v", id, got, actions)
		}
		if p.Source != "builtin/"+id {
			t.Errorf("%s: got: source %q want: builtin/%s", id, p.Source, id)
		}
		for action, tpl := range p.Templates {
			if tpl.Version != p.Version || tpl.Action != action {
				t.Errorf("%s: template %s has version %q action %q", id, tpl.ID, tpl.Version, tpl.Action)
			}
			for _, j := range tpl.JobIDs() {
				if p.Jobs[j] == nil {
					t.Errorf("%s: template %s names job %s, not in the library", id, tpl.ID, j)
				}
			}
		}
	}
	if len(cat.List()) != len(want) {
		t.Errorf("got: %d builtin packs want: %d", len(cat.List()), len(want))
	}
}

// TestBuiltinJobContracts checks what the validator leaves to taste: every
// builtin job carries evidence, retries, an idempotency key and a timeout.
func TestBuiltinJobContracts(t *testing.T) {
	for _, p := range builtin(t).List() {
		for _, id := range protocol.SortedKeys(p.Jobs) {
			j := p.Jobs[id]
			where := p.Ref() + " job " + id
			if errs := j.Validate(); len(errs) > 0 {
				t.Errorf("%s: %v", where, errs)
			}
			if len(j.Outputs.Evidence) == 0 {
				t.Errorf("%s: no evidence", where)
			}
			if j.Controls.RetryPolicy.MaxAttempts < 1 {
				t.Errorf("%s: retry_policy.max_attempts not set", where)
			}
			if j.Controls.Idempotency.Key == "" || !strings.Contains(j.Controls.Idempotency.Key, "{") {
				t.Errorf("%s: idempotency key %q has no parameters", where, j.Controls.Idempotency.Key)
			}
			if j.Controls.Timeout == 0 {
				t.Errorf("%s: no timeout", where)
			}
			if len(j.Outputs.Provides.Capabilities) == 0 && len(j.Outputs.Artifacts) == 0 {
				t.Errorf("%s: provides nothing", where)
			}
			for _, name := range protocol.SortedKeys(j.Inputs.Parameters) {
				spec := j.Inputs.Parameters[name]
				if _, ok := p.Parameters[name]; !ok && spec.Default == "" && !spec.Required {
					t.Errorf("%s: parameter %s not declared by the pack", where, name)
				}
			}
		}
	}
}

// boundArtifacts are artifacts that come with a bound capability rather than
// from a job of the pack.
var boundArtifacts = map[string]string{
	"kubeconfig.admin":              "kubernetes.cluster",
	"object_storage.s3.endpoint":    "object_storage.s3",
	"object_storage.s3.credentials": "object_storage.s3",
}

// TestBuiltinTemplatesClosed checks that every requirement of a template
// job can be met: capabilities by a job of the template or the pack's own
// requires, artifacts by a job of the template or of the library (which the
// planner inserts when the artifact is missing).
func TestBuiltinTemplatesClosed(t *testing.T) {
	for _, p := range builtin(t).List() {
		external := map[string]bool{}
		for _, r := range p.Requires {
			external[r.Capability] = true
		}
		for _, action := range protocol.SortedKeys(p.Templates) {
			tpl := p.Templates[action]
			caps, arts := map[string]bool{}, map[string]bool{}
			for _, id := range tpl.JobIDs() {
				for _, c := range p.Jobs[id].Outputs.Provides.Capabilities {
					caps[c.Key] = true
				}
				for _, a := range p.Jobs[id].Outputs.Artifacts {
					arts[a.ID] = true
				}
			}
			library := map[string]bool{}
			for _, j := range p.Jobs {
				for _, a := range j.Outputs.Artifacts {
					library[a.ID] = true
				}
			}
			for _, id := range tpl.JobIDs() {
				j := p.Jobs[id]
				for _, r := range j.Inputs.Requires.Capabilities {
					if !r.Optional && !caps[r.Key] && !external[r.Key] {
						t.Errorf("%s: job %s requires capability %s, which no job of the template provides and the pack does not require", tpl.Ref(), id, r.Key)
					}
				}
				for _, a := range j.Inputs.Requires.Artifacts {
					if !a.Optional && !arts[a.ID] && !library[a.ID] && !external[boundArtifacts[a.ID]] {
						t.Errorf("%s: job %s requires artifact %s, which nothing produces", tpl.ID, id, a.ID)
					}
				}
			}
		}
	}
}

func TestKubernetesCreateStages(t *testing.T) {
	p, err := builtin(t).Get("kubernetes", "^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	tpl, _ := p.Template("create")
	var ids []string
	for i, s := range tpl.Stages {
		ids = append(ids, s.ID)
		// The first stage requires nothing an earlier stage, its jobs'
		// inputs or the pack could name; every other one does.
		if i > 0 && len(s.Requires) == 0 || len(s.Produces) == 0 {
			t.Errorf("stage %s: contract requires/produces is empty", s.ID)
		}
	}
	want := []string{"validate-inputs", "validate-nodes", "validate-credentials", "prepare-network", "install-runtime",
		"init-control-plane", "install-cni", "join-masters", "join-workers", "verify-cluster"}
	if !slices.Equal(ids, want) {
		t.Fatalf("got: %v want: %v", ids, want)
	}
	if got := tpl.StageOf("install-storage"); got != "verify-cluster" {
		t.Errorf("got: install-storage in %q want: verify-cluster", got)
	}
	// Library-only jobs the planner and plan patches insert.
	for _, id := range []string{"generate-join-token", "configure-containerd-registry-mirror", "restart-containerd",
		"pre-pull-kubernetes-images", "configure-registry-mirror", "pre-pull-images", "fetch-admin-kubeconfig"} {
		if p.Jobs[id] == nil {
			t.Errorf("library job %s missing", id)
		}
		if tpl.StageOf(id) != "" {
			t.Errorf("library job %s is in the create template", id)
		}
	}
	add, _ := p.Template("add_node")
	if add.StageOf("generate-join-token") != "" {
		t.Error("add_node template holds generate-join-token; the planner inserts it when the token is missing")
	}
	if _, ok := p.Jobs["generate-join-token"].ProducesArtifact("kubeadm.join_token"); !ok {
		t.Error("generate-join-token does not produce kubeadm.join_token")
	}
	tok, _ := p.Jobs["init-control-plane"].ProducesArtifact("kubeadm.join_token")
	if tok.Sensitivity != protocol.SensitivitySecret || tok.TTL.D().Hours() != 24 {
		t.Errorf("got: join token %+v want: secret with ttl 24h", tok)
	}
}

// instance is a job expanded onto a host, for deriving edges in tests.
type instance struct{ job, host string }

// expandHosts returns the hosts a job runs on for the given masters and workers.
func expandHosts(e protocol.Expansion, masters, workers []string) []string {
	switch e {
	case protocol.ExpandOnce, protocol.ExpandFirstMaster:
		return masters[:1]
	case protocol.ExpandOtherMasters:
		return masters[1:]
	case protocol.ExpandEachMaster:
		return masters
	case protocol.ExpandEachWorker:
		return workers
	default:
		return append(append([]string{}, masters...), workers...)
	}
}

// deriveStageEdges derives the stage graph of a template purely from the
// job contracts, matched per scope: a node-scoped requirement depends on the
// provider instance on the same host, a cluster-scoped one on every provider
// instance. It returns the transitive reduction, rendered sorted.
func deriveStageEdges(t *testing.T, p *protocol.ScenarioPack, tpl *protocol.PlanTemplate, masters, workers []string) []string {
	t.Helper()
	var insts []instance
	for _, id := range tpl.JobIDs() {
		for _, h := range expandHosts(p.Jobs[id].Scope.Expand, masters, workers) {
			insts = append(insts, instance{id, h})
		}
	}
	providers := func(key string, artifact bool) []instance {
		var out []instance
		for _, in := range insts {
			j := p.Jobs[in.job]
			if _, ok := j.Provided(key); ok && !artifact {
				out = append(out, in)
			}
			if _, ok := j.ProducesArtifact(key); ok && artifact {
				out = append(out, in)
			}
		}
		return out
	}
	edges := map[[2]string]bool{}
	link := func(from instance, req string, scope protocol.Scope, artifact bool, to instance) {
		for _, pr := range providers(req, artifact) {
			if pr.job == to.job || (scope == protocol.ScopeNode && pr.host != to.host) {
				continue
			}
			a, b := tpl.StageOf(pr.job), tpl.StageOf(to.job)
			if a != b {
				edges[[2]string{a, b}] = true
			}
		}
	}
	for _, in := range insts {
		j := p.Jobs[in.job]
		for _, r := range j.Inputs.Requires.Capabilities {
			link(in, r.Key, r.Scope, false, in)
		}
		for _, a := range j.Inputs.Requires.Artifacts {
			link(in, a.ID, a.Scope, true, in)
		}
	}
	reach := func(from, to string, skip [2]string) bool {
		seen := map[string]bool{from: true}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for e := range edges {
				if e[0] == n && e != skip && !seen[e[1]] {
					if e[1] == to {
						return true
					}
					seen[e[1]] = true
					stack = append(stack, e[1])
				}
			}
		}
		return false
	}
	var out []string
	for e := range edges {
		if reach(e[1], e[0], [2]string{}) {
			t.Fatalf("cycle between stages %s and %s", e[0], e[1])
		}
		if !reach(e[0], e[1], e) {
			out = append(out, e[0]+" -> "+e[1])
		}
	}
	sort.Strings(out)
	return out
}

// TestKubernetesCreateDAGFromContracts derives the seed's DAG of stages
// from the job contracts alone (seed 000 §1, with install-addons folded
// into verify-cluster).
func TestKubernetesCreateDAGFromContracts(t *testing.T) {
	p, _ := builtin(t).Get("kubernetes", "")
	tpl, _ := p.Template("create")
	got := deriveStageEdges(t, p, tpl, []string{"m1", "m2", "m3"}, []string{"w1", "w2"})
	want := []string{
		"init-control-plane -> install-cni",
		"init-control-plane -> join-masters",
		"install-cni -> join-workers",
		"install-runtime -> init-control-plane",
		"join-masters -> join-workers",
		"join-workers -> verify-cluster",
		"prepare-network -> install-runtime",
		"validate-credentials -> prepare-network",
		"validate-inputs -> validate-credentials",
		"validate-inputs -> validate-nodes",
		"validate-nodes -> prepare-network",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestKubernetesAddNodeDAGFromContracts(t *testing.T) {
	p, _ := builtin(t).Get("kubernetes", "")
	tpl, _ := p.Template("add_node")
	got := deriveStageEdges(t, p, tpl, []string{"m1"}, []string{"w6"})
	want := []string{
		"join-node -> label-node",
		"label-node -> verify-node",
		"prepare-host -> join-node",
		"prepare-network -> prepare-host",
		"validate-node -> prepare-network",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBuiltinScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, p := range builtin(t).List() {
		used := map[string]bool{}
		for _, id := range protocol.SortedKeys(p.Jobs) {
			s := p.Jobs[id].Script
			if _, ok := p.Scripts[s]; !ok {
				t.Errorf("%s job %s: script %s missing", p.Ref(), id, s)
			}
			used[s] = true
		}
		for _, name := range protocol.SortedKeys(p.Scripts) {
			where := p.Ref() + " " + name
			body := p.Scripts[name]
			if !used[name] {
				t.Errorf("%s: no job runs this script", where)
			}
			lines := strings.SplitN(string(body), "\n", 12)
			if lines[0] != "#!/usr/bin/env bash" && lines[0] != "#!/bin/bash" {
				t.Errorf("%s: first line %q is not a bash shebang", where, lines[0])
			}
			if !slices.Contains(lines, "set -euo pipefail") {
				t.Errorf("%s: no `set -euo pipefail` near the top", where)
			}
			if bytes.Contains(body, []byte("{{")) {
				t.Errorf("%s: holds template markers; parameters come from CP_* variables only", where)
			}
			cmd := exec.Command(bash, "-n")
			cmd.Stdin = bytes.NewReader(body)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: bash -n: %v\n%s", where, err, out)
			}
		}
	}
}

// TestBuiltinScriptsReadDeclaredParameters checks that every CP_PARAM_ a
// script or evidence reads is a parameter of the job that runs it.
func TestBuiltinScriptsReadDeclaredParameters(t *testing.T) {
	for _, p := range builtin(t).List() {
		for _, id := range protocol.SortedKeys(p.Jobs) {
			j := p.Jobs[id]
			text := string(p.Scripts[j.Script])
			for _, e := range j.Outputs.Evidence {
				text += "\n" + e.Command
			}
			for _, name := range envParams(text) {
				if _, ok := j.Inputs.Parameters[name]; !ok {
					t.Errorf("%s job %s: reads CP_PARAM_%s but inputs.parameters has no %s", p.Ref(), id, strings.ToUpper(name), name)
				}
			}
		}
	}
}

// envParams returns the lower-cased parameter names of CP_PARAM_ variables in text.
func envParams(text string) []string {
	seen := map[string]bool{}
	for _, part := range strings.Split(text, "CP_PARAM_")[1:] {
		end := strings.IndexFunc(part, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') })
		if end < 0 {
			end = len(part)
		}
		if end > 0 {
			seen[strings.ToLower(part[:end])] = true
		}
	}
	return protocol.SortedKeys(seen)
}

func TestCommandsDocumented(t *testing.T) {
	doc, err := filepath.Glob("COMMANDS.md")
	if err != nil || len(doc) == 0 {
		t.Fatal("COMMANDS.md missing")
	}
	body := readFile(t, "COMMANDS.md")
	for _, cmd := range []string{"apt-get", "systemctl", "kubeadm", "kubectl", "helm", "crictl", "modprobe", "sysctl", "swapoff", "wg", "getent", "curl", "gpg", "apt-mark", "containerd", "nproc", "free", "df"} {
		if !strings.Contains(body, fmt.Sprintf("`%s", cmd)) {
			t.Errorf("COMMANDS.md does not list %s", cmd)
		}
	}
}
