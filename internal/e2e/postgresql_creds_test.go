package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestPostgresScopedBackupCredentials installs PostgreSQL in stage, whose
// policy creates a dedicated MinIO for its backups (a sub-operation):
//   - MinIO's credentials artifact names the admin API and the root
//     Secret and holds no key;
//   - the backups' Secret holds a MinIO user of their own, created by a
//     Job in MinIO's namespace with a policy that reaches only the backup
//     bucket (list it, read and write its objects), and the copy of its
//     secret key in MinIO's namespace is gone;
//   - nothing in the postgresql namespace, no manifest anywhere, no
//     artifact, log tail or evidence of the run, and no file on any host
//     holds a root credential;
//   - no mc command line holds a Secret value once Kubernetes and the
//     shell expand its variables;
//   - a second run keeps the user and its secret key.
func TestPostgresScopedBackupCredentials(t *testing.T) {
	e := startHosts(t, clusterName, "master-1", "worker-1")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	kc := clusterArtifacts(e.runCompleted(create.Plan, engine.RunInput{}).Artifacts)
	c := e.compose(scenarioRequest("postgresql", "pg-stage", "stage", hosts, nil, nil, kc))
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
	roots := map[string]string{"MinIO's root user": rootUser, "MinIO's root password": rootPass}

	// The credentials artifact says where the admin API is, and no more.
	cred, ok := res.SecretValue("object_storage.s3.credentials", "")
	if !ok {
		t.Fatal("no object_storage.s3.credentials value in the run")
	}
	lines := strings.Split(strings.TrimSpace(cred), "\n")
	slices.Sort(lines)
	if want := []string{"S3_ADMIN_API=minio", "S3_ADMIN_NAMESPACE=minio", "S3_ADMIN_SECRET=minio-root"}; !slices.Equal(lines, want) {
		t.Errorf("object_storage.s3.credentials lines %q, want only %q", lines, want)
	}

	// The backups' own user.
	backup := secretData(t, st, "postgresql", "postgresql-backup-s3")
	ak, sk := backup["AWS_ACCESS_KEY_ID"], backup["AWS_SECRET_ACCESS_KEY"]
	if ak == rootUser || sk == rootPass || !regexp.MustCompile(`^postgresql-backup-[0-9a-f]{12}$`).MatchString(ak) || len(sk) != 48 {
		t.Errorf("postgresql-backup-s3 holds %q and a %d-character secret; want a user of the backups' own, not MinIO's root %q", ak, len(sk), rootUser)
	}
	if len(backup) != 2 {
		t.Errorf("postgresql-backup-s3 keys %v, want AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY only", protocol.SortedKeys(backup))
	}

	checkNoRootCredentials(t, st, res, roots)
	for name, h := range e.hosts {
		for p, b := range filesIn(t, h.Upper, "") {
			for what, v := range roots {
				if bytes.Contains(b, []byte(v)) {
					t.Errorf("%s of %s holds %s", p, name, what)
				}
			}
		}
	}

	user := checkBackupUserJob(t, st, ak, "postgresql-backups")

	// The CronJob and the bucket check reach S3 as the backup user only.
	for _, kn := range [][2]string{{"CronJob", "postgresql-backup"}, {"Job", "postgresql-backup-bucket"}} {
		key := kn[0] + " postgresql/" + kn[1]
		i := slices.IndexFunc(findObjects(st, kn[0], "postgresql", kn[1]), func(o *hostsim.Object) bool { return o.Name == kn[1] })
		if i < 0 {
			t.Fatalf("no %s in the simulated cluster", key)
		}
		o := findObjects(st, kn[0], "postgresql", kn[1])[i]
		cs := containers(o)
		up := cs[len(cs)-1]
		if len(asList(up["envFrom"])) != 0 {
			t.Errorf("%s: the mc container takes a whole Secret as its environment: %v", key, up["envFrom"])
		}
		env := containerEnv(st, "postgresql", up)
		if want := "http://" + ak + ":" + sk + "@minio.minio.svc:9000"; env["MC_HOST_s3"] != want {
			t.Errorf("%s: MC_HOST_s3 resolves to %q, want the backup user's %q", key, env["MC_HOST_s3"], want)
		}
	}

	// A later run keeps the user and its key.
	req := scenarioRequest("postgresql", "pg-stage", "stage", hosts, nil, nil, kc)
	req.PlanID = "pg-stage.install-again"
	res = e.runCompleted(e.compose(req).Plan, engine.RunInput{Artifacts: inputArtifacts(kc)})
	if in := instance(t, res, "configure-backups"); in.Status != engine.StatusDone {
		t.Fatalf("configure-backups on the second run: %s (%s), want it run again", in.Status, in.Reason)
	}
	st = e.simState()
	if got := secretData(t, st, "postgresql", "postgresql-backup-s3"); got["AWS_ACCESS_KEY_ID"] != ak || got["AWS_SECRET_ACCESS_KEY"] != sk {
		t.Errorf("the second run changed the backup user to %q or its secret key", got["AWS_ACCESS_KEY_ID"])
	}
	if again := findObjects(st, "Job", "minio", "s3-user-postgresql-backup-"); len(again) != 1 || again[0].Name != user {
		t.Errorf("after the second run, user Jobs %v, want %s only", names(again), user)
	}
	checkNoRootCredentials(t, st, res, roots)
}

// checkNoRootCredentials fails when a root credential is in a Secret or
// object of the postgresql namespace, in any manifest, or in an artifact,
// log tail or observed evidence of the run.
func checkNoRootCredentials(t *testing.T, st *hostsim.State, res *engine.Result, roots map[string]string) {
	t.Helper()
	holds := func(s string) string {
		for what, v := range roots {
			if strings.Contains(s, v) {
				return what
			}
		}
		return ""
	}
	for _, key := range protocol.SortedKeys(st.Objects) {
		o := st.Objects[key]
		if o.Kind == "Secret" && o.Namespace == "postgresql" {
			for k, v := range decodeData(t, o) {
				if what := holds(v); what != "" {
					t.Errorf("%s key %s holds %s", key, k, what)
				}
			}
		}
		if o.Kind == "Secret" {
			continue
		}
		body, _ := json.Marshal(o.Body)
		if what := holds(string(body)); what != "" {
			t.Errorf("%s holds %s", key, what)
		}
	}
	for _, a := range res.Artifacts {
		v := a.Value
		if s, ok := res.SecretValue(a.ID, a.Producer); ok {
			v = s
		}
		if what := holds(v); what != "" {
			t.Errorf("artifact %s of %s holds %s", a.ID, a.Producer, what)
		}
	}
	for _, in := range res.Instances {
		if what := holds(strings.Join(in.LogTail, "\n")); what != "" {
			t.Errorf("the log of %s holds %s", in.ID, what)
		}
		for _, ev := range in.Evidence {
			if what := holds(ev.Observed + " " + ev.Detail); what != "" {
				t.Errorf("evidence %s of %s holds %s", ev.ID, in.ID, what)
			}
		}
	}
}

// checkBackupUserJob checks the Job that created the backup user in
// MinIO's namespace and the policy it attached, and returns its name.
func checkBackupUserJob(t *testing.T, st *hostsim.State, user, bucket string) string {
	t.Helper()
	jobs := findObjects(st, "Job", "minio", "s3-user-postgresql-backup-")
	if len(jobs) != 1 || jobs[0].Name != "s3-user-"+user {
		t.Fatalf("user Jobs in namespace minio: %v, want s3-user-%s", names(jobs), user)
	}
	args := strings.Join(containerArgs(jobs[0]), " ")
	for _, want := range []string{`mc mb --ignore-existing "admin/$BUCKET"`, `mc admin user add admin "$USER_NAME" </run/cp/user/secret_key`,
		`mc admin policy create admin "$POLICY" /run/cp/policy/policy.json`, `mc admin policy attach admin "$POLICY" --user "$USER_NAME"`} {
		if !strings.Contains(args, want) {
			t.Errorf("user Job command %q lacks %q", args, want)
		}
	}
	env := containerEnv(st, "minio", containers(jobs[0])[0])
	if env["USER_NAME"] != user || env["BUCKET"] != bucket {
		t.Errorf("user Job creates user %q for bucket %q, want %q and %q", env["USER_NAME"], env["BUCKET"], user, bucket)
	}
	if len(findObjects(st, "Secret", "minio", "s3-user-postgresql-backup-")) != 0 {
		t.Errorf("the copy of the backup user's secret key is still in namespace minio")
	}
	pols := findObjects(st, "ConfigMap", "minio", "s3-user-postgresql-backup-")
	if len(pols) != 1 {
		t.Fatalf("policy ConfigMaps in namespace minio: %d, want 1", len(pols))
	}
	var pol struct {
		Statement []struct {
			Effect   string
			Action   []string
			Resource []string
		}
	}
	if err := json.Unmarshal([]byte(fmt.Sprint(dataMap(pols[0])["policy.json"])), &pol); err != nil || len(pol.Statement) == 0 {
		t.Fatalf("policy.json: %v %+v", err, pol)
	}
	allowed := map[string][]string{
		"arn:aws:s3:::" + bucket:        {"s3:GetBucketLocation", "s3:ListBucket"},
		"arn:aws:s3:::" + bucket + "/*": {"s3:GetObject", "s3:PutObject"},
	}
	granted := map[string]bool{}
	for _, s := range pol.Statement {
		for _, r := range s.Resource {
			for _, a := range s.Action {
				if s.Effect != "Allow" || !slices.Contains(allowed[r], a) {
					t.Errorf("policy statement %s %s on %s reaches beyond listing, reading and writing bucket %s", s.Effect, a, r, bucket)
				}
				granted[a+" "+r] = true
			}
		}
	}
	for _, want := range []string{"s3:ListBucket arn:aws:s3:::" + bucket, "s3:PutObject arn:aws:s3:::" + bucket + "/*", "s3:GetObject arn:aws:s3:::" + bucket + "/*"} {
		if !granted[want] {
			t.Errorf("the policy does not grant %s", want)
		}
	}
	return jobs[0].Name
}

func names(objs []*hostsim.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}
