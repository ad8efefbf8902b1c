package packs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// TestVerifyTempoBlocksRealS3: against the harness's real S3 server with
// the real aws client. The kubectl stub stands for Tempo: applying the Job
// tempo-verify writes a block of single-tenant into the bucket (with the
// real aws, as Tempo's flush would). The script finds that new block and
// reads its meta.json back; s3cmd, an independent client, lists it; the
// evidence blocks_in_object_storage holds with the bound keys and fails on
// a bucket Tempo never wrote to and with a wrong secret key.
func TestVerifyTempoBlocksRealS3(t *testing.T) {
	const script, file = "tempo/scripts/verify-ingestion-and-query.sh", "tempo/jobs/verify-ingestion-and-query.yaml"
	const block = "3c1f6a52-8d0e-4b7a-9f21-0c5d2e7b4a90"
	s := testhosts.RequireS3(t, testhosts.S3Options{})
	b := boundS3{t: t, s: s}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, bucket := range []string{"real-traces", "empty-traces"} {
		if out, err := s.S3cmd(ctx, "mb", "s3://"+bucket); err != nil {
			t.Fatalf("s3cmd mb %s: %v\n%s", bucket, err, out)
		}
	}

	h := b.host()
	meta := `{"format":"vParquet4","blockID":"` + block + `","tenantID":"single-tenant","totalObjects":1}`
	h.write("/.tempo/meta.json", meta)
	h.stub("sleep", ``)
	h.stub("kubectl", tempoQuerier(true, 0, false, `  *" -f - "*) cat >>"$CP_TEST_STDIN"
    if grep -q 'kind: Job' "$CP_TEST_STDIN"; then
      AWS_ACCESS_KEY_ID='`+s.AccessKey+`' AWS_SECRET_ACCESS_KEY='`+s.SecretKey+`' AWS_DEFAULT_REGION=us-east-1 \
        /usr/bin/aws --endpoint-url '`+s.Endpoint+`' s3api put-object --bucket real-traces \
        --key single-tenant/`+block+`/meta.json --body "`+h.path("/.tempo/meta.json")+`" >/dev/null
    fi ;;`))
	env := b.env(h, s.Endpoint, s.AccessKey, s.SecretKey, map[string]string{"bucket": "real-traces"})
	if ok, got := h.evidence(file, "blocks_in_object_storage", env); ok {
		t.Fatalf("blocks_in_object_storage holds (%q) before Tempo wrote a block", got)
	}
	res := h.run(script, env)
	succeeded(t, res)
	if !strings.Contains(res.stdout, "block single-tenant/"+block+" stored in s3://real-traces") {
		t.Errorf("stdout %q does not name the new block", res.stdout)
	}
	if out, err := s.S3cmd(ctx, "ls", "s3://real-traces/single-tenant/"+block+"/"); err != nil || !strings.Contains(out, "meta.json") {
		t.Fatalf("s3cmd lists %q (%v), want the block's meta.json", out, err)
	}
	if calls := h.log(h.calls); strings.Contains(calls, s.SecretKey) {
		t.Errorf("the secret key is on a command line:\n%s", calls)
	}
	if ok, got := h.evidence(file, "blocks_in_object_storage", env); !ok {
		t.Errorf("blocks_in_object_storage fails (%q) with the block in the bucket", got)
	}
	wrong := b.env(h, s.Endpoint, s.AccessKey, "wrong-"+s.SecretKey, map[string]string{"bucket": "real-traces"})
	if ok, got := h.evidence(file, "blocks_in_object_storage", wrong); ok {
		t.Errorf("blocks_in_object_storage holds (%q) with a wrong secret key", got)
	}
	empty := b.env(h, s.Endpoint, s.AccessKey, s.SecretKey, map[string]string{"bucket": "empty-traces"})
	if ok, got := h.evidence(file, "blocks_in_object_storage", empty); ok {
		t.Errorf("blocks_in_object_storage holds (%q) on a bucket Tempo never wrote to", got)
	}
}
