package provider

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// composedHCL is a module of a cluster with Tempo and a PostgreSQL
// scenario on it, both given the cluster's handle and binding the S3
// server at endpoint (its keys named by environment variables).
func composedHCL(masters, workers, endpoint string) string {
	return smallCluster(masters, workers) + fmt.Sprintf(`
resource "cp_tempo" "traces" {
  name           = "tracing"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "tracing" }
  approvals      = [{ gate = "confirm-tempo-uninstall", option = "uninstall" }]
  object_storage = {
    name           = "weed"
    provider       = "aws_s3"
    attributes     = { endpoint = %q, bucket = "traces" }
    access_key_env = "CP_COMPOSED_S3_AK"
    secret_key_env = "CP_COMPOSED_S3_SK"
  }
}

resource "cp_scenario" "db" {
  pack           = "postgresql"
  name           = "orders"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "orders" }
  candidates = [{
    name           = "weed"
    provider       = "aws_s3"
    capability     = "object_storage.s3"
    attributes     = { endpoint = %q, bucket = "orders-backups" }
    access_key_env = "CP_COMPOSED_S3_AK"
    secret_key_env = "CP_COMPOSED_S3_SK"
  }]
}
`, endpoint, endpoint)
}

// composedProvider is planViewProvider: key files that exist, no SSH at
// plan.
func composedProvider(t *testing.T) string { return planViewProvider(t) }

// changeOf is the change of resource addr in the output of `tofu plan`.
func changeOf(t *testing.T, out, addr string) string {
	t.Helper()
	i := strings.Index(out, "# "+addr+" ")
	if i < 0 {
		t.Fatalf("tofu plan shows no change of %s:\n%s", addr, out)
	}
	rest := out[i:]
	if j := strings.Index(rest[1:], "\n  # "); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

// attrOf is the change of addr from attribute name's line on.
func attrOf(t *testing.T, out, addr, name string) string {
	t.Helper()
	c := changeOf(t, out, addr)
	loc := regexp.MustCompile(`\n\s*[+~] ` + name + ` += `).FindStringIndex(c)
	if loc == nil {
		t.Fatalf("no attribute %s in the change of %s:\n%s", name, addr, c)
	}
	return c[loc[1]:]
}

// firstLine is the first line of s with the quotes inside strings
// unescaped (a handle as `tofu plan` prints it).
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.ReplaceAll(l, `\"`, `"`)
}

// planOf is the `plan` attribute of resource addr as `tofu plan` prints
// it: its heredoc, or what stands in its place ("(known after apply)").
func planOf(t *testing.T, out, addr string) string {
	t.Helper()
	rest := changeOf(t, out, addr)
	m := regexp.MustCompile(`(?s)\n\s*[+~] plan += (<<-EOT\n.*?\n\s*EOT|\(known after apply\)|"[^"]*")`).FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("no plan attribute in the change of %s:\n%s", addr, rest)
	}
	return m[1]
}

// The first plan of a module with a cluster, Tempo and a scenario on it
// shows Tempo's and the scenario's DAGs: the cluster's handle is known at
// plan (hosts, endpoint, exports and artifact ids from configuration), so
// they plan and validate in full before the cluster exists.
func TestAccComposed_firstPlanShowsDAGs(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	const endpoint = "http://10.0.9.1:8333"
	r := newTofuRun(t, composedProvider(t)+composedHCL(planHostsHCL("master", 1, 0), planHostsHCL("worker", 2, 1), endpoint))
	r.env = append(r.env, "CP_COMPOSED_S3_AK=plan-only-key", "CP_COMPOSED_S3_SK=plan-only-secret")
	got := tofuPlan(t, r)
	t.Logf("first tofu plan of the composed module: %d lines", lineCount(got))
	if h := firstLine(attrOf(t, got, "cp_kubernetes_cluster.small", "handle")); !strings.HasPrefix(h, `"cp.handle.v1 {`) || !strings.Contains(h, `{"id":"kubeconfig.admin"}`) ||
		!strings.Contains(h, `"name":"worker-2","address":"10.1.0.2","role":"worker"`) {
		t.Errorf("the cluster's handle is not known at plan, with its hosts and artifact ids, on one line: %s", h)
	}
	tempo := planOf(t, got, "cp_tempo.traces")
	for _, want := range []string{"Install Tempo", "create-bucket-and-credentials", "deploy-tempo", "object_storage.s3: bind weed", "hosts (3): master-1, worker-1, worker-2"} {
		if !strings.Contains(tempo, want) {
			t.Errorf("Tempo's first plan lacks %q:\n%s", want, tempo)
		}
	}
	db := planOf(t, got, "cp_scenario.db")
	for _, want := range []string{"deploy-postgresql", "verify-postgresql"} {
		if !strings.Contains(db, want) {
			t.Errorf("the scenario's first plan lacks %q:\n%s", want, db)
		}
	}
	// A parameter of a composed resource is checked at the first plan.
	r.write(composedProvider(t) + strings.Replace(composedHCL(planHostsHCL("master", 1, 0), planHostsHCL("worker", 2, 1), endpoint),
		`parameters     = { namespace = "orders" }`, `parameters     = { namespace = "Orders!" }`, 1))
	out, code := r.tofu("plan")
	if code == 0 || !regexp.MustCompile(`(?s)parameters\["namespace"\]`).MatchString(out) {
		t.Errorf("a bad parameter of the scenario is not refused on its path at the first plan (exit %d):\n%s", code, out)
	}
}

// hostAddrs replaces the test hosts' addresses and ports in a plan by
// their names, and digests by a placeholder, so a golden holds across
// runs.
func hostAddrs(c *testhosts.Cluster, out string) string {
	for _, h := range c.Hosts() {
		out = strings.ReplaceAll(out, h.Addr, "<addr-"+h.Name+">")
	}
	return regexp.MustCompile(`sha256:[0-9a-f]{12,64}`).ReplaceAllString(out, "sha256:<digest>")
}

// sortWarnings puts the diagnostics that follow the plan's summary line
// in order of their text: OpenTofu collects them from resources planned in
// parallel.
func sortWarnings(out string) string {
	i := strings.Index(out, "\nPlan: ")
	if i < 0 {
		return out
	}
	i += strings.Index(out[i+1:], "\n") + 1
	blocks := regexp.MustCompile(`\n(?:Warning|Error): `).FindAllStringIndex(out[i:], -1)
	if len(blocks) == 0 {
		return out
	}
	head := out[:i+blocks[0][0]]
	var parts []string
	for k, b := range blocks {
		end := len(out) - i
		if k+1 < len(blocks) {
			end = blocks[k+1][0]
		}
		parts = append(parts, out[i+b[0]:i+end])
	}
	sort.Strings(parts)
	return head + strings.Join(parts, "")
}

// attrBlockRE is the first line of an attribute change: its indent and
// name.
var attrBlockRE = regexp.MustCompile(`^( +)[~+-] ([a-z_]+) += `)

// planParts is what a golden of a plan keeps: the resource headers, the
// changes of the attributes named for each resource address (each in
// full: a heredoc, a jsonencode, a list), and everything from the summary
// line on. The other attributes
// are the prior state's recorded values (evidence with its times,
// artifacts), which vary from run to run.
func planParts(out string, attrs map[string][]string) string {
	var b strings.Builder
	lines := strings.Split(out, "\n")
	addr := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "Plan: ") {
			b.WriteString(strings.Join(lines[i:], "\n"))
			break
		}
		if strings.HasPrefix(l, "  # ") {
			addr, _, _ = strings.Cut(strings.TrimPrefix(l, "  # "), " ")
			b.WriteString(l + "\n")
			continue
		}
		m := attrBlockRE.FindStringSubmatch(l)
		if m == nil || !slices.Contains(attrs[addr], m[2]) {
			continue
		}
		b.WriteString(l + "\n")
		if !strings.HasSuffix(l, "<<-EOT") && !strings.HasSuffix(l, "(") && !strings.HasSuffix(l, "[") && !strings.HasSuffix(l, "{") {
			continue
		}
		end := m[1] + "  "
		for i++; i < len(lines); i++ {
			b.WriteString(lines[i] + "\n")
			rest := strings.TrimPrefix(lines[i], end)
			if rest != lines[i] && rest != "" && rest[0] != ' ' && (rest == "EOT" || strings.ContainsAny(rest[:1], ")]}")) {
				break
			}
		}
	}
	return b.String()
}

// removeWorkerMaxLines bounds the whole output of TestAccComposed_removeWorker's
// `tofu plan` (the goal; 346 lines when the composed resources
// ran again on the new handle and the state kept the create's full plan,
// 1,916 before the plan kept known what apply leaves as it is).
const removeWorkerMaxLines = 200

// Removing a worker from a module with a cluster, Tempo and a scenario
// on it: the cluster plans remove_node, and the new handle (one host
// fewer, one line) changes the composed resources' cluster_handle alone:
// every job of Tempo and of the scenario runs at cluster scope on the
// first master, which the handle keeps, so they have nothing new to run
// and plan no action. The cluster's plan and plan_summary diff against
// the one line per operation the state keeps of the completed create.
// The golden keeps the plans, the handle changes and the diagnostics.
// What apply leaves as it is stays out of the diff: the cluster's
// artifacts show only the one remove_node adds (its value known after
// apply) with the others hidden, its capabilities do not change, nor its
// kubeconfig (not exposed), its evidence is one line, and the operation
// shows what changes, its timeline one line. The whole output is bounded
// by removeWorkerMaxLines.
func TestAccComposed_removeWorker(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1", "worker-2")
	s3 := testhosts.RequireS3(t, testhosts.S3Options{})
	// Evidence is not checked again on refresh: this test is about the
	// handle, and each plan then shows the same.
	prov := accProvider(c, "refresh_evidence = false")
	r := newTofuRun(t, prov+composedHCL(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1", "worker-2"), s3.Endpoint))
	r.env = append(r.env, "CP_COMPOSED_S3_AK="+s3.AccessKey, "CP_COMPOSED_S3_SK="+s3.SecretKey)
	r.mustTofu(0, "apply", "-auto-approve")
	r.setConfig(prov + composedHCL(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"), s3.Endpoint))
	got := sortWarnings(hostAddrs(c, normalizePlan(strings.ReplaceAll(r.mustTofu(0, "plan"), s3.Endpoint, "<s3-endpoint>"), r.dir)))
	parts := planParts(got, map[string][]string{
		"cp_kubernetes_cluster.small": {"handle", "plan", "workers"},
		"cp_tempo.traces":             {"cluster_handle"},
		"cp_scenario.db":              {"cluster_handle"},
	})
	checkGolden(t, "plan_remove_worker.golden", parts)
	t.Logf("tofu plan of removing one worker: %d lines, %d of them the plans, handles and diagnostics", lineCount(got), lineCount(parts))
	if n := lineCount(got); n > removeWorkerMaxLines {
		t.Errorf("tofu plan of removing one worker is %d lines, more than %d:\n%s", n, removeWorkerMaxLines, got)
	}
	cluster := changeOf(t, got, "cp_kubernetes_cluster.small")
	arts := attrOf(t, got, "cp_kubernetes_cluster.small", "artifacts")
	arts = arts[:strings.Index(arts, "\n        ]")]
	if !regexp.MustCompile(`# \(\d+ unchanged elements hidden\)`).MatchString(arts) ||
		!regexp.MustCompile(`(?s)\+ \{\n[^}]*\+ id += "etcd\.snapshot"\n[^}]*\+ value += \(known after apply\)`).MatchString(arts) ||
		!regexp.MustCompile(`(?s)\+ \{\n[^}]*\+ id += "wireguard\.left"\n[^}]*\+ value += \(known after apply\)`).MatchString(arts) ||
		strings.Count(arts, "+ id ") != 2 || strings.Contains(arts, "- id ") || strings.Contains(arts, "->") {
		t.Errorf("the cluster's artifacts do not diff as the two remove_node adds (the etcd snapshot, the leaving node's WireGuard key), the others hidden:\n%s", arts)
	}
	for _, bulk := range []string{"disabled_plugins", "deployment/coredns", "apiVersion: kubeadm.k8s.io"} {
		if strings.Contains(got, bulk) {
			t.Errorf("the plan shows a prior artifact's value (%q), which remove_node leaves as it is", bulk)
		}
	}
	if strings.Contains(cluster, " kubeconfig ") {
		t.Errorf("the kubeconfig of a cluster that does not expose it is in the diff (it stays null):\n%s", cluster)
	}
	if regexp.MustCompile(`\n +~ capabilities += `).MatchString(cluster) {
		t.Errorf("the cluster's capabilities, which remove_node leaves as they are, are in the diff:\n%s", cluster)
	}
	if l := firstLine(attrOf(t, got, "cp_kubernetes_cluster.small", "evidence")); l != "(sensitive value)" {
		t.Errorf("the evidence of the cluster is not one line: %s", l)
	}
	if !regexp.MustCompile(`\n +~ timeline += \(sensitive value\)\n`).MatchString(attrOf(t, got, "cp_kubernetes_cluster.small", "operation")) {
		t.Errorf("the operation timeline of the cluster is not one line:\n%s", attrOf(t, got, "cp_kubernetes_cluster.small", "operation"))
	}
	// The state keeps one line of the completed create: the plan's diff
	// removes that line, and plan_summary's too.
	removed := regexp.MustCompile(`(?m)^ +- .*$`)
	if rm := removed.FindAllString(planOf(t, got, "cp_kubernetes_cluster.small"), -1); len(rm) != 1 ||
		!regexp.MustCompile(`- Create Kubernetes cluster \(kubernetes\.create@1\.0\.0\): completed, 43 job instances, 0 gates, per-instance DAG sha256:`).MatchString(rm[0]) {
		t.Errorf("the cluster's plan does not diff against the one line the state keeps of the completed create: %q", rm)
	}
	sum := attrOf(t, got, "cp_kubernetes_cluster.small", "plan_summary")
	if m := regexp.MustCompile(`(?s)^<<-EOT\n(.*?)\n +EOT\n`).FindStringSubmatch(sum); m != nil {
		sum = m[1]
	}
	if rm := removed.FindAllString(sum, -1); len(rm) != 1 || !strings.Contains(rm[0], "- Create Kubernetes cluster (kubernetes.create@1.0.0): completed") {
		t.Errorf("the cluster's plan_summary does not diff against the one line the state keeps of the completed create: %q\n%s", rm, sum)
	}
	op := attrOf(t, got, "cp_kubernetes_cluster.small", "operation")
	op = op[:strings.Index(op, "\n        }")]
	for _, want := range []string{`~ action         = "create" -> "remove_node"`, `~ template       = "kubernetes.create@1.0.0" -> "kubernetes.remove_node@1.0.0"`,
		`~ phases_total   = 9 -> 6`} {
		if !strings.Contains(op, want) {
			t.Errorf("the cluster's operation change lacks %q:\n%s", want, op)
		}
	}
	for _, counted := range []string{"jobs_run", "jobs_satisfied", "phases_done", "started_at", "finished_at"} {
		if !regexp.MustCompile(`~ ` + counted + ` += \S+ -> \(known after apply\)`).MatchString(op) {
			t.Errorf("the cluster's operation does not leave %s to apply:\n%s", counted, op)
		}
	}
	if !regexp.MustCompile(`~ id += "small\.create\.[0-9a-f]{8}" -> "small\.remove_node\.[0-9a-f]{8}"`).MatchString(op) || strings.Contains(op, "status") {
		t.Errorf("the cluster's operation does not plan its id, and Completed as before:\n%s", op)
	}
	if !strings.Contains(planOf(t, got, "cp_kubernetes_cluster.small"), "worker-2") {
		t.Errorf("the cluster's plan does not name the removed worker:\n%s", parts)
	}
	// The handle, and the cluster_handle given it, change by one line:
	// the same handle without worker-2.
	for _, addr := range []string{"cp_kubernetes_cluster.small", "cp_tempo.traces", "cp_scenario.db"} {
		attr := "handle"
		if addr != "cp_kubernetes_cluster.small" {
			attr = "cluster_handle"
		}
		h := firstLine(attrOf(t, got, addr, attr))
		from, to, ok := strings.Cut(h, `" -> "`)
		if !ok || !strings.Contains(from, `"name":"worker-2"`) || strings.Contains(to, `"name":"worker-2"`) || !strings.Contains(to, `"name":"worker-1"`) {
			t.Errorf("the %s change of %s is not the handle without worker-2 on one line:\n%s", attr, addr, h)
		}
	}
	// Tempo and the scenario plan no action: their cluster_handle is the
	// only change.
	for _, addr := range []string{"cp_tempo.traces", "cp_scenario.db"} {
		ch := changeOf(t, got, addr)
		if n := len(regexp.MustCompile(`(?m)^ +[~+-] `).FindAllString(ch, -1)); n != 2 || !strings.Contains(ch, "~ cluster_handle ") {
			t.Errorf("%s plans more than its new cluster_handle (%d changed lines):\n%s", addr, n, ch)
		}
	}
	// Approved, apply removes worker-2 and records the new handle of Tempo
	// and the scenario, running nothing of theirs: what the plan knew is what apply leaves (OpenTofu compares
	// every known planned value with the applied one and fails on a
	// difference), and the next plan has nothing to do.
	approved := strings.Replace(composedHCL(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"), s3.Endpoint),
		`approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]`,
		`approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }, { gate = "confirm-node-removal", option = "remove node" }]`, 1)
	// ran is when the operations of addr's state started.
	ran := func(addr string) string {
		return strings.Join(regexp.MustCompile(`started_at += "[^"]+"`).FindAllString(r.mustTofu(0, "state", "show", addr), -1), ",")
	}
	before := map[string]string{"cp_tempo.traces": ran("cp_tempo.traces"), "cp_scenario.db": ran("cp_scenario.db")}
	r.setConfig(prov + approved)
	if out := r.mustTofu(0, "apply", "-auto-approve"); strings.Contains(out, "inconsistent") {
		t.Errorf("apply of the removal:\n%s", out)
	}
	for addr, was := range before {
		if now := ran(addr); now != was || was == "" {
			t.Errorf("apply ran %s again (its operation was %s, now %s)", addr, was, now)
		}
	}
	if out, code := r.tofu("plan", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the removal is not empty (exit %d):\n%s", code, out)
	}
}
