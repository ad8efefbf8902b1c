package packs

import (
	"strings"
	"testing"
)

const (
	minioEndpoint = "http://minio.minio.svc:9000\n"
	// minioCreds is what install-minio publishes: the root keys, and where
	// the admin API and the root Secret are.
	minioCreds = "AWS_ACCESS_KEY_ID=cp-rootuser\nAWS_SECRET_ACCESS_KEY=rootsecret0123456789\n" +
		"S3_ADMIN_API=minio\nS3_ADMIN_NAMESPACE=minio\nS3_ADMIN_SECRET=minio-root\n"
)

func storageArts(creds string) map[string]string {
	return map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": minioEndpoint,
		"object_storage.s3.credentials": creds}
}

// TestCreateBucketAndCredentialsScoped: with a MinIO admin API the script
// creates Tempo's own user from a Job in MinIO's namespace that reads the
// root Secret there; no manifest and no command line holds the root keys,
// and mc gets every key from MC_HOST_<alias> or a mounted file.
func TestCreateBucketAndCredentialsScoped(t *testing.T) {
	const script = "tempo/scripts/create-bucket-and-credentials.sh"
	h := newScriptHost(t)
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "tempo", nil), storageArts(minioCreds))))
	applied, calls := h.log(h.stdin), h.log(h.calls)
	for _, secret := range []string{"cp-rootuser", "rootsecret0123456789"} {
		if strings.Contains(applied, secret) || strings.Contains(calls, secret) {
			t.Errorf("a manifest or command line holds the root credential %q", secret)
		}
	}
	docs := yamlDocs(t, applied)
	if len(docs) != 2 {
		t.Fatalf("applied %d documents, want the user Job and the bucket Job:\n%s", len(docs), applied)
	}
	user, bucket := docs[0], docs[1]
	if dig(user, "metadata", "namespace") != "minio" || dig(bucket, "metadata", "namespace") != "tempo" {
		t.Errorf("user Job in %v, bucket Job in %v; want minio and tempo", dig(user, "metadata", "namespace"), dig(bucket, "metadata", "namespace"))
	}
	env := func(doc map[string]any) map[string]any {
		out := map[string]any{}
		for _, e := range dig(doc, "spec", "template", "spec", "containers", 0, "env").([]any) {
			m := e.(map[string]any)
			if v, ok := m["value"]; ok {
				out[m["name"].(string)] = v
			} else {
				out[m["name"].(string)] = dig(m, "valueFrom", "secretKeyRef", "name")
			}
		}
		return out
	}
	ue, be := env(user), env(bucket)
	if ue["MC_HOST_admin"] != "http://$(ADMIN_USER):$(ADMIN_PASSWORD)@minio.minio.svc:9000" || ue["ADMIN_PASSWORD"] != "minio-root" {
		t.Errorf("user Job env %v; want MC_HOST_admin composed from the Secret minio-root", ue)
	}
	if be["MC_HOST_s3"] != "http://$(AWS_ACCESS_KEY_ID):$(AWS_SECRET_ACCESS_KEY)@minio.minio.svc:9000" || be["AWS_SECRET_ACCESS_KEY"] != "tempo-s3" {
		t.Errorf("bucket Job env %v; want MC_HOST_s3 composed from the Secret tempo-s3", be)
	}
	args := dig(user, "spec", "template", "spec", "containers", 0, "args", 0).(string)
	if !strings.Contains(args, `mc admin user add admin "$USER_NAME" </run/cp/user/secret_key`) || strings.Contains(args, "mc alias") {
		t.Errorf("user Job args %q; want the secret key on stdin from the mounted Secret", args)
	}
	for _, want := range []string{"create secret generic s3-user-", "create configmap s3-user-", "create secret generic tempo-s3",
		"-n minio delete secret s3-user-"} {
		if !strings.Contains(calls, want) {
			t.Errorf("no call %q:\n%s", want, calls)
		}
	}
}

// TestCreateBucketAndCredentialsRefusals: credential lines, admin
// coordinates and the endpoint reach the manifests only when they are of
// their form.
func TestCreateBucketAndCredentialsRefusals(t *testing.T) {
	const script = "tempo/scripts/create-bucket-and-credentials.sh"
	cases := []struct{ name, creds, endpoint, want string }{
		{"unknown line", minioCreds + "EXTRA=1\n", minioEndpoint, "may hold only"},
		{"admin API", strings.Replace(minioCreds, "S3_ADMIN_API=minio", "S3_ADMIN_API=ceph", 1), minioEndpoint, "S3_ADMIN_API"},
		{"admin namespace", strings.Replace(minioCreds, "S3_ADMIN_NAMESPACE=minio", `S3_ADMIN_NAMESPACE=minio"\n  x: y`, 1), minioEndpoint, "S3_ADMIN_NAMESPACE"},
		{"admin secret", strings.Replace(minioCreds, "S3_ADMIN_SECRET=minio-root", "S3_ADMIN_SECRET=Root Secret", 1), minioEndpoint, "S3_ADMIN_SECRET"},
		{"key with @", "AWS_ACCESS_KEY_ID=k@evil\nAWS_SECRET_ACCESS_KEY=secret123\n", minioEndpoint, "AWS_ACCESS_KEY_ID in object_storage.s3.credentials"},
		{"no secret", "AWS_ACCESS_KEY_ID=key\n", minioEndpoint, "AWS_SECRET_ACCESS_KEY in object_storage.s3.credentials"},
		{"endpoint path", minioCreds, "http://minio.minio.svc:9000/x\n", "object_storage.s3.endpoint"},
		{"endpoint quote", minioCreds, "http://minio\"evil:9000\n", "object_storage.s3.endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			arts := storageArts(c.creds)
			arts["object_storage.s3.endpoint"] = c.endpoint
			refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "tempo", nil), arts)), c.want)
			if applied := h.log(h.stdin); applied != "" {
				t.Errorf("applied manifests:\n%s", applied)
			}
		})
	}
	// Credentials without an admin API are Tempo's as issued, once proved
	// against the storage: TestCreateBucketAndCredentialsBoundS3.
}

// TestMinioJobsKeepCredentialsOffCommandLines: the MinIO bucket and
// verify Jobs compose MC_HOST_s3 from the root Secret; mc is never given
// keys as arguments.
func TestMinioJobsKeepCredentialsOffCommandLines(t *testing.T) {
	for _, script := range []string{"minio/scripts/create-bucket.sh", "minio/scripts/verify-minio.sh"} {
		t.Run(script, func(t *testing.T) {
			h := newScriptHost(t)
			succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "minio", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})))
			docs := yamlDocs(t, h.log(h.stdin))
			if len(docs) == 0 {
				t.Fatalf("applied no document, want the Jobs")
			}
			for _, doc := range docs {
				c := dig(doc, "spec", "template", "spec", "containers", 0).(map[string]any)
				args := strings.Join(strList(c["args"]), " ")
				if strings.Contains(args, "alias set") || strings.Contains(args, "ROOT_") {
					t.Errorf("mc is given credentials on its command line: %s", args)
				}
				found := false
				for _, e := range c["env"].([]any) {
					m := e.(map[string]any)
					found = found || m["name"] == "MC_HOST_s3" && m["value"] == "http://$(ROOT_USER):$(ROOT_PASSWORD)@minio.minio.svc:9000"
				}
				if !found {
					t.Errorf("no MC_HOST_s3 composed from the root Secret: %v", c["env"])
				}
			}
		})
	}
}

func strList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
