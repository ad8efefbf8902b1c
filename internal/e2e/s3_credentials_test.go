package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// TestTempoScopedS3Credentials installs Tempo with a MinIO sub-operation:
// Tempo's Secret holds a user of its own, not MinIO's root credentials,
// created by a Job that gives it a policy allowing only Tempo's bucket;
// no Secret of Tempo's namespace, artifact or manifest holds the root
// credentials; and no mc command line in any manifest holds a secret
// value, even after the shell and Kubernetes expand its variables.
func TestTempoScopedS3Credentials(t *testing.T) {
	e := startHosts(t, clusterName, "master-1", "worker-1")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	kc := clusterArtifacts(e.runCompleted(create.Plan, engine.RunInput{}).Artifacts)
	c := e.compose(scenarioRequest("tempo", "tempo-stage", "stage", hosts, nil, nil, kc))
	if len(c.Plan.SubOps) != 1 || c.Plan.SubOps[0].ID != "minio" {
		t.Fatalf("sub-operations = %+v, want minio", c.Plan.SubOps)
	}
	res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(kc)})
	st := e.simState()
	e.checkMcCommandLines(t, st)

	root := secretData(t, st, "minio", "minio-root")
	rootUser, rootPass := root["rootUser"], root["rootPassword"]
	if len(rootUser) < 8 || len(rootPass) < 16 {
		t.Fatalf("minio-root = %d, %d characters; want generated root credentials", len(rootUser), len(rootPass))
	}
	tempo := secretData(t, st, "tempo", "tempo-s3")
	ak, sk := tempo["AWS_ACCESS_KEY_ID"], tempo["AWS_SECRET_ACCESS_KEY"]
	if ak == rootUser || sk == rootPass || !regexp.MustCompile(`^tempo-[0-9a-f]{12}$`).MatchString(ak) || len(sk) < 32 {
		t.Errorf("tempo-s3 holds %q and a %d-character secret; want a user of Tempo's own, not MinIO's root %q", ak, len(sk), rootUser)
	}

	// Nothing in Tempo's namespace, no artifact value and no manifest
	// holds a root credential.
	for key, o := range st.Objects {
		if o.Kind == "Secret" && o.Namespace == "tempo" {
			for k, v := range decodeData(t, o) {
				if v == rootPass || v == rootUser || strings.Contains(v, rootPass) {
					t.Errorf("%s key %s holds a MinIO root credential", key, k)
				}
			}
		}
		if o.Kind == "Secret" {
			continue
		}
		body, _ := json.Marshal(o.Body)
		if strings.Contains(string(body), rootPass) {
			t.Errorf("%s holds MinIO's root password", key)
		}
	}
	for _, a := range res.Artifacts {
		if strings.Contains(a.Value, rootPass) || strings.Contains(a.Value, sk) {
			t.Errorf("artifact %s (%s) holds a secret key in its value", a.ID, a.Sensitivity)
		}
	}

	// The user Job ran in MinIO's namespace with a policy limited to the
	// bucket, and the copy of the user's secret key there is gone.
	user := findObjects(st, "Job", "minio", "s3-user-")
	if len(user) != 1 {
		t.Fatalf("Jobs s3-user-* in namespace minio: %d, want 1", len(user))
	}
	args := strings.Join(containerArgs(user[0]), " ")
	for _, want := range []string{"mc admin user add admin", "</run/cp/user/secret_key", "mc admin policy create admin", "mc admin policy attach admin"} {
		if !strings.Contains(args, want) {
			t.Errorf("user Job command %q lacks %q", args, want)
		}
	}
	if len(findObjects(st, "Secret", "minio", "s3-user-")) != 0 {
		t.Errorf("the copy of Tempo's secret key is still in namespace minio")
	}
	pols := findObjects(st, "ConfigMap", "minio", "s3-user-")
	if len(pols) != 1 {
		t.Fatalf("policy ConfigMaps in namespace minio: %d, want 1", len(pols))
	}
	var pol struct {
		Statement []struct {
			Effect   string
			Resource []string
		}
	}
	if err := json.Unmarshal([]byte(fmt.Sprint(dataMap(pols[0])["policy.json"])), &pol); err != nil || len(pol.Statement) == 0 {
		t.Fatalf("policy.json: %v %+v", err, pol)
	}
	for _, s := range pol.Statement {
		for _, r := range s.Resource {
			if s.Effect != "Allow" || (r != "arn:aws:s3:::tempo-traces" && r != "arn:aws:s3:::tempo-traces/*") {
				t.Errorf("policy statement %s %s reaches beyond bucket tempo-traces", s.Effect, r)
			}
		}
	}
}

// checkMcCommandLines expands, for every container that runs mc, the
// variables of its command and arguments as Kubernetes ($(VAR)) and the
// shell ($VAR, ${VAR}) would, from its env and the Secrets it reads, and
// fails when a Secret value (other than an access key id) appears in the
// result or in the manifest.
func (e *env) checkMcCommandLines(t *testing.T, st *hostsim.State) {
	t.Helper()
	var secrets []string
	for _, o := range st.Objects {
		if o.Kind == "Secret" {
			for k, v := range decodeData(t, o) {
				// An access key id is the name of a user (mc admin user
				// add and policy attach take it); its secret key is not.
				if len(v) >= 8 && k != "AWS_ACCESS_KEY_ID" {
					secrets = append(secrets, v)
				}
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatal("no Secret values in the simulated cluster")
	}
	checked := 0
	for key, o := range st.Objects {
		for _, c := range containers(o) {
			cmd := strings.Join(append(strList(c["command"]), strList(c["args"])...), " ")
			if !regexp.MustCompile(`(^|[^A-Za-z0-9_-])mc `).MatchString(cmd) {
				continue
			}
			checked++
			env := containerEnv(st, o.Namespace, c)
			expanded := expandVars(cmd, env)
			raw, _ := json.Marshal(o.Body)
			for _, s := range secrets {
				if strings.Contains(expanded, s) {
					t.Errorf("%s: the mc command line holds a Secret value once its variables are expanded: %s", key, cmd)
				}
				if strings.Contains(string(raw), s) {
					t.Errorf("%s: the manifest holds a Secret value", key)
				}
			}
		}
	}
	if checked < 3 {
		t.Errorf("%d containers running mc found, want at least 3 (MinIO bucket and verify, Tempo user and bucket)", checked)
	}
}

var (
	kubeVarRE  = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	shellVarRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)
)

// expandVars expands $(VAR) as Kubernetes does, then $VAR and ${VAR} as
// the shell does; unknown variables stay.
func expandVars(s string, env map[string]string) string {
	sub := func(re *regexp.Regexp, s string) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			if v, ok := env[re.FindStringSubmatch(m)[1]]; ok {
				return v
			}
			return m
		})
	}
	return sub(shellVarRE, sub(kubeVarRE, s))
}

// containerEnv resolves a container's environment: literal values (with
// $(VAR) expanded from earlier entries), secretKeyRef and envFrom Secrets.
func containerEnv(st *hostsim.State, ns string, c map[string]any) map[string]string {
	env := map[string]string{}
	secret := func(name string) map[string]string {
		if o := st.Objects["secrets/"+ns+"/"+name]; o != nil {
			return decodeData(nil, o)
		}
		return nil
	}
	for _, f := range asList(c["envFrom"]) {
		if ref, _ := asMapAny(f)["secretRef"].(map[string]any); ref != nil {
			for k, v := range secret(fmt.Sprint(ref["name"])) {
				env[k] = v
			}
		}
	}
	for _, ev := range asList(c["env"]) {
		m := asMapAny(ev)
		name := fmt.Sprint(m["name"])
		if v, ok := m["value"].(string); ok {
			env[name] = kubeVarRE.ReplaceAllStringFunc(v, func(x string) string {
				if r, ok := env[kubeVarRE.FindStringSubmatch(x)[1]]; ok {
					return r
				}
				return x
			})
			continue
		}
		if ref := asMapAny(asMapAny(m["valueFrom"])["secretKeyRef"]); ref != nil {
			env[name] = secret(fmt.Sprint(ref["name"]))[fmt.Sprint(ref["key"])]
		}
	}
	return env
}

// containers lists the containers and init containers of a workload.
func containers(o *hostsim.Object) []map[string]any {
	spec := asMapAny(o.Body["spec"])
	var pod map[string]any
	switch o.Kind {
	case "CronJob":
		pod = asMapAny(asMapAny(asMapAny(asMapAny(asMapAny(spec["jobTemplate"])["spec"])["template"])["spec"]))
	case "Pod":
		pod = spec
	default:
		pod = asMapAny(asMapAny(spec["template"])["spec"])
	}
	var out []map[string]any
	for _, k := range []string{"initContainers", "containers"} {
		for _, c := range asList(pod[k]) {
			out = append(out, asMapAny(c))
		}
	}
	return out
}

func containerArgs(o *hostsim.Object) []string {
	var out []string
	for _, c := range containers(o) {
		out = append(out, strList(c["command"])...)
		out = append(out, strList(c["args"])...)
	}
	return out
}

func findObjects(st *hostsim.State, kind, ns, prefix string) []*hostsim.Object {
	var out []*hostsim.Object
	for _, o := range st.Objects {
		if o.Kind == kind && o.Namespace == ns && strings.HasPrefix(o.Name, prefix) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *hostsim.Object) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func secretData(t *testing.T, st *hostsim.State, ns, name string) map[string]string {
	t.Helper()
	o := st.Objects["secrets/"+ns+"/"+name]
	if o == nil {
		t.Fatalf("no Secret %s/%s in the simulated cluster", ns, name)
	}
	return decodeData(t, o)
}

// decodeData returns a Secret's data decoded (t may be nil: undecodable
// values are then skipped).
func decodeData(t *testing.T, o *hostsim.Object) map[string]string {
	out := map[string]string{}
	for k, v := range dataMap(o) {
		b, err := base64.StdEncoding.DecodeString(fmt.Sprint(v))
		if err != nil {
			if t != nil {
				t.Errorf("%s/%s key %s: %v", o.Namespace, o.Name, k, err)
			}
			continue
		}
		out[k] = string(b)
	}
	return out
}

func dataMap(o *hostsim.Object) map[string]any { return asMapAny(o.Body["data"]) }

func asMapAny(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func strList(v any) []string {
	var out []string
	for _, x := range asList(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}
