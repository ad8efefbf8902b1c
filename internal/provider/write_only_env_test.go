package provider

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func s3EnvBinding(accessEnv, secretEnv string) boundCandidateModel {
	c := s3Binding("", "")
	c.AccessKeyEnv, c.SecretKeyEnv = types.StringValue(accessEnv), types.StringValue(secretEnv)
	return c
}

// Keys named by environment variables: checked at the binding's path
// (the variable set, its value a key, never shown), read from the
// provider's environment into the credentials the engine gets, with the
// bucket as an artifact of its own.
func TestStorageCredentialsFromEnv(t *testing.T) {
	t.Setenv("CP_TEST_S3_AK", "AKIAENVKEY01")
	t.Setenv("CP_TEST_S3_SK", "env-secret/key+1")
	t.Setenv("CP_TEST_S3_BAD", "not a key\nAWS_X=1")
	p := path.Root("object_storage")
	check := func(c boundCandidateModel) diag.Diagnostics {
		var diags diag.Diagnostics
		checkStorageCredentials(c, p, os.LookupEnv, &diags)
		return diags
	}
	if d := check(s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_SK")); d.HasError() {
		t.Fatalf("got: %q want: accepted", errorsAt(d))
	}
	wantOneError(t, check(s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_UNSET")), "object_storage.secret_key_env", "is not set", "")
	wantOneError(t, check(s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_BAD")), "object_storage.secret_key_env", "is not an S3 key", "not a key")
	both := s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_SK")
	both.AccessKeyWO, both.SecretKeyWO = types.StringValue("AKIAWOKEY01"), types.StringValue("wo-secret")
	wantOneError(t, check(both), "object_storage.access_key_env", "keep one of the two", "wo-secret")
	badBucket := s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_SK")
	badBucket.Attributes = map[string]string{"endpoint": "http://127.0.0.1:8333", "bucket": "Bad_Bucket"}
	wantOneError(t, check(badBucket), `object_storage.attributes["bucket"]`, "is not an S3 bucket name", "")

	b := s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_SK")
	b.Attributes = map[string]string{"endpoint": "http://127.0.0.1:8333", "bucket": "traces"}
	state, secrets := storageInputs([]boundCandidateModel{b}, os.LookupEnv)
	if len(state) != 3 || state[2].ID != s3BucketArt || state[2].Value != "traces" || state[1].Value != "" {
		t.Fatalf("got: state artifacts %+v want: endpoint, credentials without value, bucket", state)
	}
	if secrets[1].SecretValue != "AWS_ACCESS_KEY_ID=AKIAENVKEY01\nAWS_SECRET_ACCESS_KEY=env-secret/key+1\n" {
		t.Fatalf("got: credentials %q want: the variables' keys", secrets[1].SecretValue)
	}
	if s, e := storageInputs([]boundCandidateModel{s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_UNSET")}, os.LookupEnv); s != nil || e != nil {
		t.Fatalf("got: %+v %+v want: nothing while a variable is unset", s, e)
	}
}

// cp_tempo's object_storage bucket is Tempo's bucket parameter; a
// different parameters.bucket is refused at the binding's bucket.
func TestTempoBindingBucket(t *testing.T) {
	t.Setenv("CP_TEST_S3_AK", "AKIAENVKEY01")
	t.Setenv("CP_TEST_S3_SK", "env-secret")
	b := s3EnvBinding("CP_TEST_S3_AK", "CP_TEST_S3_SK")
	b.Attributes = map[string]string{"endpoint": "http://127.0.0.1:8333", "bucket": "bound-traces"}
	m := tempoModel{ObjectStorage: &b, Parameters: map[string]string{"retention": "24h"}}
	s := m.scenario()
	if s.Parameters["bucket"] != "bound-traces" || s.Parameters["retention"] != "24h" || m.Parameters["bucket"] != "" {
		t.Fatalf("got: scenario parameters %v (model %v) want: bucket from object_storage, the model unchanged", s.Parameters, m.Parameters)
	}
	var diags diag.Diagnostics
	m.checkCredentials(os.LookupEnv, &diags)
	if diags.HasError() {
		t.Fatalf("got: %q want: accepted", errorsAt(diags))
	}
	m.Parameters["bucket"] = "other-traces"
	diags = nil
	m.checkCredentials(os.LookupEnv, &diags)
	wantOneError(t, diags, `object_storage.attributes["bucket"]`, `object_storage names bucket "bound-traces" and parameters.bucket "other-traces"`, "")
	if got := m.scenario().Parameters["bucket"]; got != "other-traces" {
		t.Fatalf("got: bucket %q want: the parameter kept (the plan is refused anyway)", got)
	}
}

// A static validation (no provider data) does not read the named
// variables; the plan does.
func TestTempoValidateEnvAtPlanOnly(t *testing.T) {
	b := s3EnvBinding("CP_TEST_S3_UNSET_AK", "CP_TEST_S3_UNSET_SK")
	m := tempoModel{ObjectStorage: &b}
	var diags diag.Diagnostics
	m.checkCredentials(planEnv(nil), &diags)
	if diags.HasError() {
		t.Fatalf("got: %q want: nothing read in a static validation", errorsAt(diags))
	}
	m.checkCredentials(planEnv(&providerData{}), &diags)
	if errs := errorsAt(diags); len(errs) != 2 || !strings.Contains(errs[0], "is not set") {
		t.Fatalf("got: %q want: both unset variables refused at plan", errs)
	}
}
