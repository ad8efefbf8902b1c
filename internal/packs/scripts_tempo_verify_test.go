package packs

import (
	"strings"
	"testing"
)

// tempoAWS is an aws stub standing for a bound S3 bucket that Tempo
// writes to: before the Job tempo-verify is applied (on kubectl's stdin)
// the tenant's prefix holds BEFORE; after it, AFTER (keys separated by
// tabs, "None" for none, as aws --output text prints them). s3 cp prints
// META; LIST_FAILS refuses every listing.
func tempoAWS(before, after, meta string, listFails bool) string {
	refuse := ""
	if listFails {
		refuse = `echo 'An error occurred (InvalidAccessKeyId) when calling the ListObjectsV2 operation: The AWS Access Key Id you provided does not exist in our records.' >&2; exit 254`
	}
	return `case " $* " in
  *" list-objects-v2 "*) ` + refuse + `
    if grep -q 'kind: Job' "$CP_TEST_STDIN" 2>/dev/null; then printf '%s\n' '` + after + `'; else printf '%s\n' '` + before + `'; fi ;;
  *" s3 cp "*) printf '%s\n' '` + meta + `' ;;
esac`
}

// TestVerifyTempoBlocksInObjectStorage: a trace the query API returns is
// not enough, since the ingester answers from memory before anything
// reaches S3. With a bound S3 provider the script needs a block that was
// not in the bucket before the span was sent, read back with aws and the
// bound keys, and the evidence a block of the tenant under its prefix; an
// empty bucket, an old block only, a block of another tenant and a refused
// key fail them.
func TestVerifyTempoBlocksInObjectStorage(t *testing.T) {
	const script, file = "tempo/scripts/verify-ingestion-and-query.sh", "tempo/jobs/verify-ingestion-and-query.yaml"
	const old, fresh = "single-tenant/0b5e1c2a-0000-4000-8000-000000000001/meta.json", "single-tenant/7f3d9a10-0000-4000-8000-000000000002/meta.json"
	const meta = `{"format":"vParquet4","blockID":"7f3d9a10-0000-4000-8000-000000000002","tenantID":"single-tenant","totalObjects":1}`
	bound := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://127.0.0.1:8333",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=tempo-key\nAWS_SECRET_ACCESS_KEY=tempo-secret-key\n"}
	for _, c := range []struct {
		name, aws          string
		scriptOK, evidence bool
		refusal            string
	}{
		{"new block stored", tempoAWS("None", old+"\t"+fresh, meta, false), true, true, ""},
		{"first block stored", tempoAWS("None", fresh, meta, false), true, true, ""},
		{"nothing reaches the bucket", tempoAWS("None", "None", meta, false), false, false, "no new block of tenant single-tenant reached s3://tempo-traces/single-tenant/"},
		{"only an old block", tempoAWS(old, old, meta, false), false, true, "no new block of tenant single-tenant reached"},
		{"another tenant's block", tempoAWS("None", fresh, strings.Replace(meta, "single-tenant", "team-a", 1), false), false, false, "no new block"},
		{"key refused", tempoAWS("None", fresh, meta, true), false, false, "cannot list s3://tempo-traces/single-tenant/ at http://127.0.0.1:8333 with the bound keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("sleep", ``)
			h.stub("aws", c.aws)
			h.stub("kubectl", tempoQuerier(true, 0, false, ""))
			env := h.artifactEnv(packEnv(t, "tempo", nil), bound)
			res := h.run(script, env)
			if c.scriptOK {
				succeeded(t, res)
			} else {
				refused(t, h, res, c.refusal)
			}
			if ok, got := h.evidence(file, "blocks_in_object_storage", env); ok != c.evidence {
				t.Errorf("blocks_in_object_storage = %v (%q), want %v", ok, got, c.evidence)
			}
			calls := h.log(h.calls)
			if strings.Contains(calls, "tempo-secret-key") || strings.Contains(h.log(h.stdin), "tempo-secret-key") {
				t.Errorf("the bound secret key is on a command line or in a manifest:\n%s", calls)
			}
			if !strings.Contains(calls, "aws --endpoint-url http://127.0.0.1:8333 s3api list-objects-v2 --bucket tempo-traces --prefix single-tenant/") {
				t.Errorf("the tenant's prefix was not listed with aws:\n%s", calls)
			}
			if c.scriptOK && !strings.Contains(calls, "s3 cp s3://tempo-traces/"+fresh+" -") {
				t.Errorf("the new block's meta.json was not read back:\n%s", calls)
			}
		})
	}

	// The Job asks Tempo to flush after the query answered; with a bound
	// provider it runs no mc.
	h := newScriptHost(t)
	h.stub("sleep", ``)
	h.stub("aws", tempoAWS("None", fresh, meta, false))
	h.stub("kubectl", tempoQuerier(true, 0, false, ""))
	env := h.artifactEnv(packEnv(t, "tempo", nil), bound)
	succeeded(t, h.run(script, env))
	job := tempoVerifyJob(t, h)
	if cs := dig(job, "spec", "template", "spec", "initContainers"); cs != nil {
		t.Errorf("bound storage: init containers %v, want none", cs)
	}
	if n := len(dig(job, "spec", "template", "spec", "containers").([]any)); n != 1 {
		t.Errorf("bound storage: %d containers, want the verify one", n)
	}
}

// tempoVerifyJob is the Job tempo-verify the script applied.
func tempoVerifyJob(t *testing.T, h *scriptHost) map[string]any {
	t.Helper()
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		if d["kind"] == "Job" {
			return d
		}
	}
	t.Fatalf("no Job applied:\n%s", h.log(h.stdin))
	return nil
}

// TestVerifyTempoBlocksInMinio: a MinIO created for Tempo is read in the
// cluster: the Job lists the blocks before the span is sent (an init
// container), sends and queries it, and its last container waits for a new
// block with mc, its keys from tempo-s3 through MC_HOST_s3 only; the
// evidence is that Job's success, and aws is never called.
func TestVerifyTempoBlocksInMinio(t *testing.T) {
	const script, file = "tempo/scripts/verify-ingestion-and-query.sh", "tempo/jobs/verify-ingestion-and-query.yaml"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://minio.minio.svc:9000",
		"object_storage.s3.credentials": "S3_ADMIN_API=minio\nS3_ADMIN_NAMESPACE=minio\nS3_ADMIN_SECRET=minio-root\n"}
	h := newScriptHost(t)
	h.stub("aws", `exit 99`)
	h.stub("kubectl", tempoQuerier(true, 0, false, ""))
	env := h.artifactEnv(packEnv(t, "tempo", nil), arts)
	succeeded(t, h.run(script, env))
	if calls := h.log(h.calls); strings.Contains(calls, "aws ") {
		t.Errorf("aws called for an in-cluster MinIO:\n%s", calls)
	}
	job := tempoVerifyJob(t, h)
	names := func(path ...any) (out []string) {
		cs, _ := dig(job, path...).([]any)
		for _, c := range cs {
			out = append(out, c.(map[string]any)["name"].(string))
		}
		return out
	}
	if got := strings.Join(names("spec", "template", "spec", "initContainers"), ","); got != "blocks-before,verify" {
		t.Errorf("init containers %s, want blocks-before,verify", got)
	}
	if got := strings.Join(names("spec", "template", "spec", "containers"), ","); got != "block-stored" {
		t.Errorf("containers %s, want block-stored", got)
	}
	last := dig(job, "spec", "template", "spec", "containers", 0).(map[string]any)
	env2 := containerEnv(last)
	if last["image"] != "minio/mc:RELEASE.2024-10-08T09-37-26Z" || env2["BUCKET"] != "tempo-traces" || env2["TENANT"] != "single-tenant" ||
		env2["MC_HOST_s3"] != "http://$(AWS_ACCESS_KEY_ID):$(AWS_SECRET_ACCESS_KEY)@minio.minio.svc:9000" {
		t.Errorf("block-stored container = %v", last)
	}
	for _, c := range []struct {
		succeeded string
		ok        bool
	}{{"1", true}, {"", false}} {
		h.stub("kubectl", `case " $* " in *" get job tempo-verify "*) printf '`+c.succeeded+`' ;; esac`)
		if ok, got := h.evidence(file, "blocks_in_object_storage", env); ok != c.ok {
			t.Errorf("blocks_in_object_storage with succeeded=%q: %v (%q), want %v", c.succeeded, ok, got, c.ok)
		}
	}
	// The Job failing (no new block in MinIO) fails the script.
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *" wait "*) echo 'error: timed out waiting for the condition on jobs/tempo-verify' >&2; exit 1 ;; *" -f - "*) cat >>"$CP_TEST_STDIN" ;; esac`)
	env = h.artifactEnv(packEnv(t, "tempo", nil), arts)
	refused(t, h, h.run(script, env), "or no new block of tenant single-tenant reached s3://tempo-traces/single-tenant/")
}
