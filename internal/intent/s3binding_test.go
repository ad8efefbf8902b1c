package intent

import (
	"strings"
	"testing"
)

// Every form of an S3 binding's keys, endpoint and bucket: accepted, or
// refused at its attribute with what to do, never quoting a key.
func TestCheckS3Binding(t *testing.T) {
	env := func(vars map[string]string) Env {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	vars := env(map[string]string{"S3_AK": "AKIAENV0001", "S3_SK": "env/secret+key=", "S3_EMPTY": "", "S3_BAD": "bad key; rm -rf /"})
	base := Root("object_storage")
	ok := S3Binding{Path: base, Endpoint: "http://127.0.0.1:8333"}
	with := func(f func(*S3Binding)) S3Binding { b := ok; f(&b); return b }
	cases := []struct {
		name     string
		b        S3Binding
		at, says string
	}{
		{"no keys", ok, "", ""},
		{"written keys", with(func(b *S3Binding) { b.AccessKey, b.SecretKey = "AKIAWO0001", "wo-secret" }), "", ""},
		{"named keys", with(func(b *S3Binding) { b.AccessKeyEnv, b.SecretKeyEnv = "S3_AK", "S3_SK" }), "", ""},
		{"unknown written keys", with(func(b *S3Binding) { b.KeysUnknown = true }), "", ""},
		{"bucket", with(func(b *S3Binding) { b.Bucket, b.HasBucket = "traces.bucket-1", true }), "", ""},
		{"bad bucket", with(func(b *S3Binding) { b.Bucket, b.HasBucket = "Traces_1", true }), `object_storage.attributes["bucket"]`, "is not an S3 bucket name"},
		{"one written key", with(func(b *S3Binding) { b.AccessKey = "AKIAWO0001" }), "object_storage.secret_key_wo", "access_key_wo is set but secret_key_wo is not"},
		{"bad written key", with(func(b *S3Binding) { b.AccessKey, b.SecretKey = "AKIAWO0001", "bad key; rm -rf /" }), "object_storage.secret_key_wo", "is not an S3 key"},
		{"one named key", with(func(b *S3Binding) { b.SecretKeyEnv = "S3_SK" }), "object_storage.access_key_env", "secret_key_env is set but access_key_env is not"},
		{"unset variable", with(func(b *S3Binding) { b.AccessKeyEnv, b.SecretKeyEnv = "S3_AK", "S3_UNSET" }), "object_storage.secret_key_env", "it is not set"},
		{"empty variable", with(func(b *S3Binding) { b.AccessKeyEnv, b.SecretKeyEnv = "S3_EMPTY", "S3_SK" }), "object_storage.access_key_env", "it is empty"},
		{"variable not a key", with(func(b *S3Binding) { b.AccessKeyEnv, b.SecretKeyEnv = "S3_AK", "S3_BAD" }), "object_storage.secret_key_env", "the value of S3_BAD (not shown, 17 characters) is not an S3 key"},
		{"not a variable name", with(func(b *S3Binding) { b.AccessKeyEnv, b.SecretKeyEnv = "S3 AK", "S3_SK" }), "object_storage.access_key_env", "is not an environment variable name"},
		{"both forms", with(func(b *S3Binding) {
			b.AccessKey, b.SecretKey, b.AccessKeyEnv, b.SecretKeyEnv = "AKIAWO0001", "wo-secret", "S3_AK", "S3_SK"
		}), "object_storage.access_key_env", "keep one of the two"},
		{"version alone", with(func(b *S3Binding) { b.VersionSet = true }), "object_storage.credentials_wo_version", "access_key_wo and secret_key_wo are not"},
		{"version with named keys", with(func(b *S3Binding) { b.VersionSet, b.AccessKeyEnv, b.SecretKeyEnv = true, "S3_AK", "S3_SK" }), "", ""},
		{"keys without endpoint", with(func(b *S3Binding) { b.Endpoint, b.AccessKeyEnv, b.SecretKeyEnv = "", "S3_AK", "S3_SK" }), "object_storage.attributes", "attributes has no endpoint"},
		{"endpoint not a URL", with(func(b *S3Binding) { b.Endpoint, b.AccessKeyEnv, b.SecretKeyEnv = "s3.example.test", "S3_AK", "S3_SK" }), `object_storage.attributes["endpoint"]`, "http(s) URL"},
		{"keys on another capability", with(func(b *S3Binding) { b.Capability, b.AccessKeyEnv, b.SecretKeyEnv = "secret.store", "S3_AK", "S3_SK" }), "object_storage.access_key_env", "credentials come with object_storage.s3 only"},
	}
	secrets := []string{"AKIAENV0001", "env/secret+key=", "bad key; rm -rf /", "AKIAWO0001", "wo-secret"}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			ps := CheckS3Binding(tc.b, vars)
			if tc.at == "" {
				if len(ps) != 0 {
					t.Fatalf("got: %v want: accepted", ps)
				}
				return
			}
			if len(ps) != 1 || ps[0].Path.String() != tc.at || !strings.Contains(ps[0].Detail, tc.says) {
				t.Fatalf("got: %v want: one problem at %s saying %q", ps, tc.at, tc.says)
			}
			for _, s := range secrets {
				if strings.Contains(ps[0].String(), s) {
					t.Fatalf("got: %q want: no key value in the message", ps[0])
				}
			}
		})
	}
}

// Keys come from the write-only values, else from the named variables;
// the inputs carry the endpoint and bucket with their values and the
// credentials only in the value for the engine.
func TestS3BindingKeysAndInputs(t *testing.T) {
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"S3_AK": "AKIAENV0001", "S3_SK": "env-secret"}[k]
		return v, ok
	}
	b := S3Binding{Endpoint: "http://127.0.0.1:8333", Bucket: "traces", HasBucket: true, AccessKeyEnv: "S3_AK", SecretKeyEnv: "S3_SK"}
	if a, s, ok := b.Keys(env); !ok || a != "AKIAENV0001" || s != "env-secret" {
		t.Fatalf("got: %q %q %v want: the variables' keys", a, s, ok)
	}
	w := S3Binding{AccessKey: "AKIAWO0001", SecretKey: "wo-secret"}
	if a, s, ok := w.Keys(env); !ok || a != "AKIAWO0001" || s != "wo-secret" {
		t.Fatalf("got: %q %q %v want: the write-only keys", a, s, ok)
	}
	if _, _, ok := (S3Binding{AccessKeyEnv: "S3_AK", SecretKeyEnv: "S3_UNSET"}).Keys(env); ok {
		t.Fatalf("got: keys from an unset variable want: none")
	}
	ep, bucket, cred, value := S3Inputs(b, "AKIAENV0001", "env-secret")
	if ep.ID != S3EndpointArt || ep.Value != "http://127.0.0.1:8333" || bucket.ID != S3BucketArt || bucket.Value != "traces" {
		t.Fatalf("got: %+v %+v want: the endpoint and bucket with their values", ep, bucket)
	}
	if cred.ID != S3CredentialsArt || cred.Value != "" || cred.Sensitivity != "secret" ||
		value != "AWS_ACCESS_KEY_ID=AKIAENV0001\nAWS_SECRET_ACCESS_KEY=env-secret\n" {
		t.Fatalf("got: %+v %q want: a secret without value, the lines for the engine", cred, value)
	}
	if _, bucket, _, _ := S3Inputs(S3Binding{Endpoint: "http://x"}, "a", "b"); bucket.ID != "" {
		t.Fatalf("got: %+v want: no bucket artifact without a bucket", bucket)
	}
}

// Without an environment (a static validation) the named variables are
// not read, so validating needs no secret exported; their names are still
// checked.
func TestCheckS3BindingStatic(t *testing.T) {
	b := S3Binding{Path: Root("object_storage"), Endpoint: "http://127.0.0.1:8333", AccessKeyEnv: "S3_UNSET_AK", SecretKeyEnv: "S3_UNSET_SK"}
	if ps := CheckS3Binding(b, nil); len(ps) != 0 {
		t.Fatalf("got: %v want: accepted without an environment", ps)
	}
	b.SecretKeyEnv = "S3 SK"
	if ps := CheckS3Binding(b, nil); len(ps) != 1 || ps[0].Path.String() != "object_storage.secret_key_env" {
		t.Fatalf("got: %v want: the malformed name refused", ps)
	}
}
