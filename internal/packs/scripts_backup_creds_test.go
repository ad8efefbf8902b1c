package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// minioAdminCreds is what install-minio publishes: where the admin API
// and the root Secret are, and no key.
const minioAdminCreds = "S3_ADMIN_API=minio\nS3_ADMIN_NAMESPACE=minio\nS3_ADMIN_SECRET=minio-root\n"

// fileStub is a kubectl that, besides logging its call and what it reads
// on stdin as the shared stub does, copies every --from-file=KEY=PATH
// into $CP_TEST_FILES/KEY (the script's scratch files are gone when it
// exits) and answers the keys of an existing postgresql-backup-s3 from
// $CP_TEST_AK and $CP_TEST_SK.
const fileStub = `#!/bin/sh
__l=kubectl; for a in "$@"; do __l="$__l $a"; done; printf '%s\n' "$__l" >>"$CP_TEST_CALLS"
for a in "$@"; do
  case $a in
    --from-file=*=*) f=${a#--from-file=}; cp "${f#*=}" "$CP_TEST_FILES/${f%%=*}" ;;
  esac
done
case " $* " in
  *" -f - "*) cat >>"$CP_TEST_STDIN"; echo '---' >>"$CP_TEST_STDIN" ;;
  *"{.data.AWS_ACCESS_KEY_ID}"*) printf '%s' "${CP_TEST_AK:-}" | base64 ;;
  *"{.data.AWS_SECRET_ACCESS_KEY}"*) printf '%s' "${CP_TEST_SK:-}" | base64 ;;
esac
`

// backupHost is a script host whose kubectl keeps the files it is given.
func backupHost(t *testing.T) (*scriptHost, string) {
	t.Helper()
	h := newScriptHost(t)
	if err := os.WriteFile(filepath.Join(h.bin, "kubectl"), []byte(fileStub), 0o755); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(h.root, ".files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	return h, files
}

func backupEnv(t *testing.T, h *scriptHost, files, creds string, extra map[string]string) map[string]string {
	env := h.artifactEnv(packEnv(t, "postgresql", nil), storageArts(creds))
	env["CP_TEST_FILES"] = files
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// backupUser is the MinIO user configure-backups names for the pack's
// default namespace and bucket.
func backupUser() string {
	sum := sha256.Sum256([]byte("postgresql/postgresql/postgresql-backups"))
	return "postgresql-backup-" + hex.EncodeToString(sum[:])[:12]
}

// containerEnv maps a container's env entries to their value, or to the
// name and key of the Secret they read ("secret:NAME/KEY").
func containerEnv(c map[string]any) map[string]string {
	out := map[string]string{}
	for _, e := range c["env"].([]any) {
		m := e.(map[string]any)
		if v, ok := m["value"]; ok {
			out[m["name"].(string)] = v.(string)
			continue
		}
		ref, _ := dig(m, "valueFrom", "secretKeyRef").(map[string]any)
		out[m["name"].(string)] = "secret:" + ref["name"].(string) + "/" + ref["key"].(string)
	}
	return out
}

// TestConfigureBackupsScopedUser: with MinIO's admin API the backups get a
// user of their own, created with its bucket from a Job in MinIO's
// namespace that reads the root Secret there, under a policy that reaches
// only the backup bucket; the bucket check and the CronJob reach S3 as
// that user through MC_HOST_s3; the root keys, even when an older
// artifact still carries them, reach no manifest, Secret or command line.
func TestConfigureBackupsScopedUser(t *testing.T) {
	const script = "postgresql/scripts/configure-backups.sh"
	for name, creds := range map[string]string{"admin pointers": minioAdminCreds, "with root keys": minioCreds} {
		t.Run(name, func(t *testing.T) {
			h, files := backupHost(t)
			succeeded(t, h.run(script, backupEnv(t, h, files, creds, nil)))
			applied, calls := h.log(h.stdin), h.log(h.calls)
			for _, secret := range []string{"cp-rootuser", "rootsecret0123456789"} {
				if strings.Contains(applied, secret) || strings.Contains(calls, secret) {
					t.Errorf("a manifest or command line holds the root credential %q", secret)
				}
			}
			if strings.Contains(calls, "--from-env-file") || strings.Contains(calls, "object_storage.s3.credentials") {
				t.Errorf("the credentials artifact was handed to kubectl:\n%s", calls)
			}
			user := backupUser()
			if got := h.log(filepath.Join(files, "AWS_ACCESS_KEY_ID")); got != user {
				t.Errorf("postgresql-backup-s3 AWS_ACCESS_KEY_ID = %q, want %q", got, user)
			}
			sk := h.log(filepath.Join(files, "AWS_SECRET_ACCESS_KEY"))
			if len(sk) != 48 || sk == "rootsecret0123456789" || h.log(filepath.Join(files, "secret_key")) != sk {
				t.Errorf("the backup user's secret key %q: want 48 new hex characters, the one handed to the user Job", sk)
			}

			docs := yamlDocs(t, applied)
			if len(docs) != 5 {
				t.Fatalf("applied %d documents, want the user Job, the bucket check Job, the CronJob, the backup now and the restore check:\n%s", len(docs), applied)
			}
			userJob, bucketJob, cron := docs[0], docs[1], docs[2]
			if dig(userJob, "metadata", "namespace") != "minio" || dig(userJob, "metadata", "name") != "s3-user-"+user {
				t.Errorf("user Job %v in %v, want s3-user-%s in minio", dig(userJob, "metadata", "name"), dig(userJob, "metadata", "namespace"), user)
			}
			uc := dig(userJob, "spec", "template", "spec", "containers", 0).(map[string]any)
			ue := containerEnv(uc)
			if ue["MC_HOST_admin"] != "http://$(ADMIN_USER):$(ADMIN_PASSWORD)@minio.minio.svc:9000" ||
				ue["ADMIN_USER"] != "secret:minio-root/rootUser" || ue["ADMIN_PASSWORD"] != "secret:minio-root/rootPassword" ||
				ue["USER_NAME"] != user || ue["BUCKET"] != "postgresql-backups" {
				t.Errorf("user Job env %v; want MC_HOST_admin composed from the Secret minio-root, the user and the bucket", ue)
			}
			args := strings.Join(strList(uc["args"]), " ")
			for _, want := range []string{`mc mb --ignore-existing "admin/$BUCKET"`, `mc admin user add admin "$USER_NAME" </run/cp/user/secret_key`,
				`mc admin policy create admin "$POLICY" /run/cp/policy/policy.json`, `mc admin policy attach admin "$POLICY" --user "$USER_NAME"`} {
				if !strings.Contains(args, want) {
					t.Errorf("user Job args %q lack %q", args, want)
				}
			}
			for _, doc := range []map[string]any{bucketJob, cron} {
				spec := dig(doc, "spec", "template", "spec")
				if doc["kind"] == "CronJob" {
					spec = dig(doc, "spec", "jobTemplate", "spec", "template", "spec")
				}
				cs := spec.(map[string]any)["containers"].([]any)
				c := cs[len(cs)-1].(map[string]any)
				e := containerEnv(c)
				if e["MC_HOST_s3"] != "http://$(AWS_ACCESS_KEY_ID):$(AWS_SECRET_ACCESS_KEY)@minio.minio.svc:9000" ||
					e["AWS_ACCESS_KEY_ID"] != "secret:postgresql-backup-s3/AWS_ACCESS_KEY_ID" ||
					e["AWS_SECRET_ACCESS_KEY"] != "secret:postgresql-backup-s3/AWS_SECRET_ACCESS_KEY" || c["envFrom"] != nil {
					t.Errorf("%s %v: env %v envFrom %v; want MC_HOST_s3 composed from postgresql-backup-s3 only", doc["kind"], dig(doc, "metadata", "name"), e, c["envFrom"])
				}
				if a := strings.Join(strList(c["args"]), " "); strings.Contains(a, "alias set") || strings.Contains(a, "AWS_") {
					t.Errorf("%s: mc is given credentials on its command line: %s", doc["kind"], a)
				}
			}
			if dig(cron, "kind") != "CronJob" || dig(bucketJob, "metadata", "namespace") != "postgresql" {
				t.Errorf("documents %v %v, want the bucket Job in postgresql and the CronJob last", bucketJob["metadata"], cron["kind"])
			}

			var pol struct {
				Statement []struct {
					Effect   string
					Action   []string
					Resource []string
				}
			}
			if err := json.Unmarshal([]byte(h.log(filepath.Join(files, "policy.json"))), &pol); err != nil || len(pol.Statement) != 2 {
				t.Fatalf("policy.json: %v %+v", err, pol)
			}
			var got []string
			for _, s := range pol.Statement {
				for _, r := range s.Resource {
					for _, a := range s.Action {
						got = append(got, s.Effect+" "+a+" "+r)
					}
				}
			}
			slices.Sort(got)
			want := []string{
				"Allow s3:GetBucketLocation arn:aws:s3:::postgresql-backups", "Allow s3:GetObject arn:aws:s3:::postgresql-backups/*",
				"Allow s3:ListBucket arn:aws:s3:::postgresql-backups", "Allow s3:PutObject arn:aws:s3:::postgresql-backups/*",
			}
			if !slices.Equal(got, want) {
				t.Errorf("policy grants %q, want %q", got, want)
			}
			for _, want := range []string{"-n minio create secret generic s3-user-" + user, "-n minio create configmap s3-user-" + user,
				"-n minio delete secret s3-user-" + user, "-n postgresql create secret generic postgresql-backup-s3"} {
				if !strings.Contains(calls, want) {
					t.Errorf("no call %q:\n%s", want, calls)
				}
			}
		})
	}
}

// TestConfigureBackupsKeepsUserKey: a later run gives the user the secret
// key postgresql-backup-s3 already holds for it, and a new one when the
// Secret belongs to another user.
func TestConfigureBackupsKeepsUserKey(t *testing.T) {
	const script = "postgresql/scripts/configure-backups.sh"
	kept := strings.Repeat("ab", 24)
	for _, c := range []struct {
		name, ak string
		keep     bool
	}{{"same user", backupUser(), true}, {"other user", "cp-rootuser", false}} {
		t.Run(c.name, func(t *testing.T) {
			h, files := backupHost(t)
			succeeded(t, h.run(script, backupEnv(t, h, files, minioAdminCreds, map[string]string{"CP_TEST_AK": c.ak, "CP_TEST_SK": kept})))
			sk := h.log(filepath.Join(files, "secret_key"))
			if (sk == kept) != c.keep || len(sk) != 48 {
				t.Errorf("secret key %q with postgresql-backup-s3 of %s; kept = %v, want %v", sk, c.ak, sk == kept, c.keep)
			}
		})
	}
}

// TestConfigureBackupsIssuedCredentials: without an admin API the bound
// credentials are the backups' as issued, and no user is created.
func TestConfigureBackupsIssuedCredentials(t *testing.T) {
	const script = "postgresql/scripts/configure-backups.sh"
	h, files := backupHost(t)
	arts := storageArts("AWS_ACCESS_KEY_ID=AKIAEXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n")
	arts["object_storage.s3.endpoint"] = "https://s3.eu-central-1.amazonaws.com\n"
	env := h.artifactEnv(packEnv(t, "postgresql", nil), arts)
	env["CP_TEST_FILES"] = files
	succeeded(t, h.run(script, env))
	if ak, sk := h.log(filepath.Join(files, "AWS_ACCESS_KEY_ID")), h.log(filepath.Join(files, "AWS_SECRET_ACCESS_KEY")); ak != "AKIAEXAMPLE" ||
		sk != "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" {
		t.Errorf("postgresql-backup-s3 = %q, %q; want the issued keys", ak, sk)
	}
	applied, calls := h.log(h.stdin), h.log(h.calls)
	if strings.Contains(calls, "s3-user-") || strings.Contains(applied, "s3-user-") || strings.Contains(applied, "wJalrXUtnFEMI") {
		t.Errorf("without an admin API: calls\n%s\napplied\n%s", calls, applied)
	}
	docs := yamlDocs(t, applied)
	if len(docs) != 4 {
		t.Fatalf("applied %d documents, want the bucket check Job, the CronJob, the backup now and the restore check", len(docs))
	}
	c := dig(docs[0], "spec", "template", "spec", "containers", 0).(map[string]any)
	if e := containerEnv(c); e["MC_HOST_s3"] != "https://$(AWS_ACCESS_KEY_ID):$(AWS_SECRET_ACCESS_KEY)@s3.eu-central-1.amazonaws.com" {
		t.Errorf("bucket Job env %v", e)
	}
	if a := strings.Join(strList(c["args"]), " "); a != `mc ls "s3/$BUCKET" >/dev/null || mc mb "s3/$BUCKET"` {
		t.Errorf("bucket Job args %q", a)
	}
}

// TestConfigureBackupsRefusals: credential lines, admin coordinates and
// the endpoint reach the manifests only when they are of their form;
// nothing is applied otherwise.
func TestConfigureBackupsRefusals(t *testing.T) {
	const script = "postgresql/scripts/configure-backups.sh"
	cases := []struct{ name, creds, endpoint, want string }{
		{"unknown line", minioAdminCreds + "EXTRA=1\n", minioEndpoint, "may hold only"},
		{"admin API", strings.Replace(minioAdminCreds, "S3_ADMIN_API=minio", "S3_ADMIN_API=ceph", 1), minioEndpoint, "S3_ADMIN_API"},
		{"admin namespace", strings.Replace(minioAdminCreds, "S3_ADMIN_NAMESPACE=minio", `S3_ADMIN_NAMESPACE=minio"`, 1), minioEndpoint, "S3_ADMIN_NAMESPACE"},
		{"admin secret", strings.Replace(minioAdminCreds, "S3_ADMIN_SECRET=minio-root", "S3_ADMIN_SECRET=Root Secret", 1), minioEndpoint, "S3_ADMIN_SECRET"},
		{"key with @", "AWS_ACCESS_KEY_ID=k@evil\nAWS_SECRET_ACCESS_KEY=secret123\n", minioEndpoint, "AWS_ACCESS_KEY_ID in object_storage.s3.credentials"},
		{"secret with :", "AWS_ACCESS_KEY_ID=key\nAWS_SECRET_ACCESS_KEY=a:b\n", minioEndpoint, "AWS_SECRET_ACCESS_KEY in object_storage.s3.credentials"},
		{"no secret", "AWS_ACCESS_KEY_ID=key\n", minioEndpoint, "AWS_SECRET_ACCESS_KEY in object_storage.s3.credentials"},
		{"endpoint path", minioAdminCreds, "http://minio.minio.svc:9000/x\n", "object_storage.s3.endpoint"},
		{"endpoint quote", minioAdminCreds, "http://minio\"evil:9000\n", "object_storage.s3.endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, files := backupHost(t)
			env := backupEnv(t, h, files, c.creds, nil)
			h.write("/.in/object_storage.s3.endpoint", c.endpoint)
			refused(t, h, h.run(script, env), c.want)
			if applied := h.log(h.stdin); applied != "" {
				t.Errorf("applied manifests:\n%s", applied)
			}
			if calls := h.log(h.calls); strings.Contains(calls, "create secret") {
				t.Errorf("created a Secret:\n%s", calls)
			}
			if strings.Contains(h.log(h.calls)+h.log(h.stdin), "secret123") {
				t.Error("a refused key reached kubectl")
			}
		})
	}
}

// TestConfigureBackupsDisabled: without object storage the schedule, the
// bucket check and the backup credentials are removed.
func TestConfigureBackupsDisabled(t *testing.T) {
	h := newScriptHost(t)
	succeeded(t, h.run("postgresql/scripts/configure-backups.sh",
		h.artifactEnv(packEnv(t, "postgresql", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})))
	calls := h.log(h.calls)
	for _, want := range []string{"delete cronjob postgresql-backup --ignore-not-found", "delete job postgresql-backup-bucket --ignore-not-found",
		"delete secret postgresql-backup-s3 --ignore-not-found"} {
		if !strings.Contains(calls, "-n postgresql "+want) {
			t.Errorf("no call %q:\n%s", want, calls)
		}
	}
	if h.log(h.stdin) != "" {
		t.Errorf("applied manifests without object storage:\n%s", h.log(h.stdin))
	}
}

// TestInstallMinioPublishesNoRootKeys: MinIO's credentials artifact holds
// only the admin pointers, and the script never reads the root keys back.
func TestInstallMinioPublishesNoRootKeys(t *testing.T) {
	h := newScriptHost(t)
	succeeded(t, h.run("minio/scripts/install-minio.sh",
		h.artifactEnv(packEnv(t, "minio", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})))
	if got := h.read("/.out/object_storage.s3.credentials"); got != minioAdminCreds {
		t.Errorf("object_storage.s3.credentials = %q, want %q", got, minioAdminCreds)
	}
	if calls := h.log(h.calls); strings.Contains(calls, "{.data.rootUser}") || strings.Contains(calls, "{.data.rootPassword}") {
		t.Errorf("install-minio reads the root keys back:\n%s", calls)
	}
}

// TestTempoCredentialsFromAdminPointers: Tempo's script works from the
// artifact install-minio publishes now: its user Job reads the root
// Secret in MinIO's namespace.
func TestTempoCredentialsFromAdminPointers(t *testing.T) {
	h := newScriptHost(t)
	succeeded(t, h.run("tempo/scripts/create-bucket-and-credentials.sh",
		h.artifactEnv(packEnv(t, "tempo", nil), storageArts(minioAdminCreds))))
	docs := yamlDocs(t, h.log(h.stdin))
	if len(docs) != 2 || dig(docs[0], "metadata", "namespace") != "minio" {
		t.Fatalf("applied %v, want the user Job in minio and the bucket Job", docs)
	}
	e := containerEnv(dig(docs[0], "spec", "template", "spec", "containers", 0).(map[string]any))
	if e["ADMIN_PASSWORD"] != "secret:minio-root/rootPassword" || !strings.HasPrefix(e["USER_NAME"], "tempo-") {
		t.Errorf("user Job env %v", e)
	}
	if !strings.Contains(h.log(h.calls), "create secret generic tempo-s3") {
		t.Errorf("no tempo-s3 Secret created:\n%s", h.log(h.calls))
	}
}
