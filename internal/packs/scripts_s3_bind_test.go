package packs

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// boundS3 is a tempo create-bucket-and-credentials run against a bound
// existing S3 provider: the real S3 server of the harness, reached with
// the real aws CLI (behind a stub that logs its command line and runs
// /usr/bin/aws).
type boundS3 struct {
	t *testing.T
	s *testhosts.S3Server
}

func (b boundS3) host() *scriptHost {
	h := newScriptHost(b.t)
	h.stub("aws", `exec /usr/bin/aws "$@"`)
	return h
}

func (b boundS3) env(h *scriptHost, endpoint, access, secret string, params map[string]string) map[string]string {
	return h.artifactEnv(packEnv(b.t, "tempo", params), map[string]string{
		"kubeconfig.admin":              "apiVersion: v1\n",
		"object_storage.s3.endpoint":    endpoint + "\n",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=" + access + "\nAWS_SECRET_ACCESS_KEY=" + secret + "\n",
	})
}

// TestCreateBucketAndCredentialsBoundS3: with a bound S3 provider the job
// proves the keys from the host with the real aws client: it creates the
// absent bucket, writes the evidence object and reads it back (s3cmd, an
// independent client, reads it too), stores the keys as issued in
// tempo-s3 and applies no bucket Job; a second run finds the bucket. The
// keys are on no command line. Its bucket_created evidence holds only
// with the right endpoint and keys. A wrong secret key, an unknown access
// key and an unreachable endpoint fail the job with what to check, before
// anything changes in the cluster.
func TestCreateBucketAndCredentialsBoundS3(t *testing.T) {
	const script, job = "tempo/scripts/create-bucket-and-credentials.sh", "tempo/jobs/create-bucket-and-credentials.yaml"
	s := testhosts.RequireS3(t, testhosts.S3Options{})
	b := boundS3{t: t, s: s}
	params := map[string]string{"bucket": "bound-traces", "namespace": "tracing"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	h := b.host()
	env := b.env(h, s.Endpoint, s.AccessKey, s.SecretKey, params)
	if ok, got := h.evidence(job, "bucket_created", env); ok {
		t.Fatalf("got: bucket_created holds (%q) before the job ran want: it fails", got)
	}
	res := h.run(script, env)
	succeeded(t, res)
	if !strings.Contains(res.stdout, "bucket created, cp-evidence/tempo/tracing written and read back") {
		t.Errorf("got: %q want: the bucket created and the object read back", res.stdout)
	}
	got, err := s.S3cmd(ctx, "get", "s3://bound-traces/cp-evidence/tempo/tracing", "-")
	if err != nil || got != "tempo storage check: bucket bound-traces, namespace tracing\n" {
		t.Fatalf("got: s3cmd reads %q (%v) want: the evidence object in the bucket", got, err)
	}
	calls := h.log(h.calls)
	for _, want := range []string{"aws --endpoint-url " + s.Endpoint + " s3api head-bucket --bucket bound-traces",
		"s3api create-bucket --bucket bound-traces", "s3api put-object --bucket bound-traces --key cp-evidence/tempo/tracing",
		"create secret generic tempo-s3"} {
		if !strings.Contains(calls, want) {
			t.Errorf("got: calls\n%s\nwant: %q", calls, want)
		}
	}
	if strings.Contains(calls, s.SecretKey) || strings.Contains(calls, s.AccessKey) {
		t.Errorf("got: a key on a command line:\n%s", calls)
	}
	if applied := h.log(h.stdin); strings.Contains(applied, "tempo-create-bucket") {
		t.Errorf("got: a bucket Job applied for a bound storage want: the bucket made from the host\n%s", applied)
	}
	if ok, got := h.evidence(job, "bucket_created", env); !ok {
		t.Errorf("got: bucket_created fails (%q) after the job want: it holds", got)
	}

	// A second run finds the bucket.
	h = b.host()
	res = h.run(script, b.env(h, s.Endpoint, s.AccessKey, s.SecretKey, params))
	succeeded(t, res)
	if !strings.Contains(res.stdout, "bucket existed") {
		t.Errorf("got: %q want: the bucket found", res.stdout)
	}

	wrong := []struct{ name, endpoint, access, secret, says string }{
		{"wrong secret key", s.Endpoint, s.AccessKey, "wrong-secret-key-0123456789", "refused the bound credentials for bucket bound-traces"},
		{"unknown access key", s.Endpoint, "CPUNKNOWNKEY01", s.SecretKey, "refused the bound credentials for bucket bound-traces"},
		{"unreachable endpoint", "http://127.0.0.1:1", s.AccessKey, s.SecretKey, "cannot reach bucket bound-traces at http://127.0.0.1:1"},
	}
	for _, tc := range wrong {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			b := boundS3{t: t, s: s}
			h := b.host()
			env := b.env(h, tc.endpoint, tc.access, tc.secret, params)
			if ok, got := h.evidence(job, "bucket_created", env); ok {
				t.Errorf("got: bucket_created holds (%q) want: it fails", got)
			}
			refused(t, h, h.run(script, env), tc.says)
			if calls := h.log(h.calls); strings.Contains(calls, "kubectl") {
				t.Errorf("got: the cluster changed before the storage was proved:\n%s", calls)
			}
		})
	}
}

// TestTempoCredentialsStoredBound: for a bound S3 provider the
// credentials_stored evidence holds only while tempo-s3 holds exactly the
// bound keys, so new keys make the job run again and store them; the keys
// are on no command line.
func TestTempoCredentialsStoredBound(t *testing.T) {
	const job = "tempo/jobs/create-bucket-and-credentials.yaml"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name, stored string
		holds        bool
	}{
		{"same keys", "AKIASTORED01/stored-secret-01", true},
		{"other secret key", "AKIASTORED01/rotated-secret-02", false},
		{"other access key", "AKIAOTHER001/stored-secret-01", false},
		{"no Secret", "", false},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			h := newScriptHost(t)
			body := `echo 'Error from server (NotFound): secrets "tempo-s3" not found' >&2; exit 1`
			if tc.stored != "" {
				ak, sk, _ := strings.Cut(tc.stored, "/")
				body = `case " $* " in
  *"{.data.AWS_ACCESS_KEY_ID}"*) printf '%s' ` + b64(ak) + ` ;;
  *"{.data.AWS_SECRET_ACCESS_KEY}"*) printf '%s' ` + b64(sk) + ` ;;
esac`
			}
			h.stub("kubectl", body)
			env := h.artifactEnv(packEnv(t, "tempo", nil), map[string]string{
				"kubeconfig.admin":              "apiVersion: v1\n",
				"object_storage.s3.endpoint":    "http://127.0.0.1:8333\n",
				"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=AKIASTORED01\nAWS_SECRET_ACCESS_KEY=stored-secret-01\n",
			})
			if ok, got := h.evidence(job, "credentials_stored", env); ok != tc.holds {
				t.Errorf("got: credentials_stored holds %v (%q) want: %v", ok, got, tc.holds)
			}
			if calls := h.log(h.calls); strings.Contains(calls, "stored-secret-01") || strings.Contains(calls, "AKIASTORED01") {
				t.Errorf("got: a key on a command line:\n%s", calls)
			}
		})
	}
	// A created MinIO's Secret holds keys of Tempo's own user: its
	// existence is the evidence.
	h := newScriptHost(t)
	env := h.artifactEnv(packEnv(t, "tempo", nil), storageArts(minioCreds))
	h.stub("kubectl", `case " $* " in *" -o name "*) echo secret/tempo-s3 ;; esac`)
	if ok, got := h.evidence(job, "credentials_stored", env); !ok {
		t.Errorf("got: credentials_stored fails (%q) for a MinIO user's Secret want: it holds", got)
	}
}

// TestBoundS3Region: requests to an AWS endpoint are signed for its
// region (s3.REGION.amazonaws.com), by the script and the evidence alike;
// any other endpoint gets us-east-1.
func TestBoundS3Region(t *testing.T) {
	const script, job = "tempo/scripts/create-bucket-and-credentials.sh", "tempo/jobs/create-bucket-and-credentials.yaml"
	for _, tc := range []struct{ endpoint, region string }{
		{"https://s3.eu-central-1.amazonaws.com", "eu-central-1"},
		{"https://s3-us-west-2.amazonaws.com/", "us-west-2"},
		{"https://s3.amazonaws.com", "us-east-1"},
		{"http://127.0.0.1:8333", "us-east-1"},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			h := newScriptHost(t)
			regions := h.path("/.regions")
			h.stub("aws", `echo "$AWS_DEFAULT_REGION" >>`+regions+`; echo 'An error occurred (403) when calling the HeadBucket operation: Forbidden' >&2; exit 254`)
			env := h.artifactEnv(packEnv(t, "tempo", nil), map[string]string{
				"kubeconfig.admin":              "apiVersion: v1\n",
				"object_storage.s3.endpoint":    tc.endpoint + "\n",
				"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=AKIAREGION01\nAWS_SECRET_ACCESS_KEY=region-secret-01\n",
			})
			refused(t, h, h.run(script, env), "refused the bound credentials")
			if ok, got := h.evidence(job, "bucket_created", env); ok {
				t.Errorf("got: bucket_created holds (%q) with aws refusing want: it fails", got)
			}
			if got := h.read("/.regions"); got != tc.region+"\n"+tc.region+"\n" {
				t.Errorf("got: regions %q want: %s for the script and the evidence", got, tc.region)
			}
		})
	}
}
