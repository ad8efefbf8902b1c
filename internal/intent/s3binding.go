package intent

import (
	"regexp"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Artifacts that come with a bound object_storage.s3 provider rather than
// from a job.
const (
	S3Capability     = "object_storage.s3"
	S3EndpointArt    = "object_storage.s3.endpoint"
	S3BucketArt      = "object_storage.s3.bucket"
	S3CredentialsArt = "object_storage.s3.credentials"
)

// S3KeyPattern is what the packs' scripts accept as an access or secret
// key (tempo's create-bucket-and-credentials checks the same).
var S3KeyPattern = regexp.MustCompile(`^[A-Za-z0-9+/=._~-]{3,128}$`)

// S3BucketPattern is an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-',
// starting and ending with a letter or digit.
var S3BucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// S3Binding is an existing object_storage.s3 provider as a resource binds
// it: where it is and how its keys are given. Keys come either written
// (write-only arguments, never in plan or state) or by reference (names
// of environment variables of the process running OpenTofu/Terraform,
// read at plan and again at apply).
type S3Binding struct {
	Path       Path   // the binding's attribute path
	Capability string // "" means object_storage.s3
	Endpoint   string
	HasBucket  bool
	Bucket     string
	// AccessKey and SecretKey are the write-only values ("" when unset);
	// KeysUnknown says one is known only at apply (an ephemeral value).
	AccessKey, SecretKey string
	KeysUnknown          bool
	// AccessKeyEnv and SecretKeyEnv name the variables holding the keys.
	AccessKeyEnv, SecretKeyEnv string
	// VersionSet says credentials_wo_version is set: with either form of
	// keys, the argument whose change runs the resource again with them.
	VersionSet bool
}

// HasKeys reports whether the binding gives keys in any form.
func (b S3Binding) HasKeys() bool {
	return b.AccessKey != "" || b.SecretKey != "" || b.AccessKeyEnv != "" || b.SecretKeyEnv != "" || b.KeysUnknown
}

// Keys returns the binding's keys, from the write-only values or the
// environment; ok is false when it has none (or they are not known yet).
func (b S3Binding) Keys(env Env) (access, secret string, ok bool) {
	if b.AccessKey != "" && b.SecretKey != "" {
		return b.AccessKey, b.SecretKey, true
	}
	if b.AccessKeyEnv == "" || b.SecretKeyEnv == "" {
		return "", "", false
	}
	a, okA := env(b.AccessKeyEnv)
	s, okS := env(b.SecretKeyEnv)
	return a, s, okA && okS && a != "" && s != ""
}

// CheckS3Binding checks a binding's keys, endpoint and bucket: both keys
// or none, written or named but not both, named variables set to
// well-formed keys (only with env: a static validation has none, plan
// has the process environment), keys only on an S3 binding with an
// http(s) endpoint, a bucket that is an S3 bucket name. Key values are
// never quoted.
func CheckS3Binding(b S3Binding, env Env) Problems {
	var ps Problems
	p := b.Path
	if b.HasBucket && !S3BucketPattern.MatchString(b.Bucket) {
		ps.add(p.Attr("attributes").Key("bucket"), "Invalid S3 bucket",
			"%s is not an S3 bucket name: use 3 to 63 of a-z, 0-9, '.' and '-', starting and ending with a letter or digit.", paramtype.Quote(b.Bucket))
	}
	written := b.AccessKey != "" || b.SecretKey != "" || b.KeysUnknown
	named := b.AccessKeyEnv != "" || b.SecretKeyEnv != ""
	if b.VersionSet && !written && !named {
		ps.add(p.Attr("credentials_wo_version"), "Version without credentials",
			"credentials_wo_version is set but access_key_wo and secret_key_wo are not, nor access_key_env and secret_key_env; set the keys, or remove the version.")
	}
	if written && named {
		ps.add(p.Attr("access_key_env"), "Keys given twice",
			"the keys are given both by environment variable (access_key_env, secret_key_env) and as write-only arguments (access_key_wo, secret_key_wo); keep one of the two.")
		return ps
	}
	switch {
	case b.KeysUnknown:
		return ps // an ephemeral value known only later is checked then
	case written:
		for _, k := range []struct{ name, other, v string }{
			{"access_key_wo", "secret_key_wo", b.AccessKey}, {"secret_key_wo", "access_key_wo", b.SecretKey}} {
			switch {
			case k.v == "":
				ps.add(p.Attr(k.name), "Incomplete credentials", "%s is set but %s is not; an S3 provider takes both keys.", k.other, k.name)
			case !S3KeyPattern.MatchString(k.v):
				ps.add(p.Attr(k.name), "Invalid S3 key",
					"the value (not shown, %d characters) is not an S3 key: use 3 to 128 letters, digits or + / = . _ ~ -.", len(k.v))
			}
		}
	case named:
		for _, k := range []struct{ name, other, v, what string }{
			{"access_key_env", "secret_key_env", b.AccessKeyEnv, "the S3 access key"},
			{"secret_key_env", "access_key_env", b.SecretKeyEnv, "the S3 secret key"}} {
			at := p.Attr(k.name)
			if k.v == "" {
				ps.add(at, "Incomplete credentials", "%s is set but %s is not; an S3 provider takes both keys.", k.other, k.name)
				continue
			}
			if !envName.MatchString(k.v) {
				ps.add(at, "Invalid environment variable name",
					"%s is not an environment variable name: use letters, digits and '_', not starting with a digit.", paramtype.Quote(k.v))
				continue
			}
			if env == nil {
				continue
			}
			if vp := CheckEnvVar(at, k.v, k.what, env); len(vp) > 0 {
				ps = append(ps, vp...)
				continue
			}
			if v, _ := env(k.v); !S3KeyPattern.MatchString(v) {
				ps.add(at, "Invalid S3 key",
					"the value of %s (not shown, %d characters) is not an S3 key: use 3 to 128 letters, digits or + / = . _ ~ -.", k.v, len(v))
			}
		}
	default:
		return ps
	}
	if c := b.Capability; c != "" && c != S3Capability {
		ps.add(p.Attr(keyAttr(written)), "Credentials on a binding that is no S3 provider",
			"credentials come with %s only, and this binding provides %s; move them to the object storage binding.", S3Capability, paramtype.Quote(c))
		return ps
	}
	switch {
	case b.Endpoint == "":
		ps.add(p.Attr("attributes"), "Missing S3 endpoint",
			"the binding gives S3 keys but attributes has no endpoint; add endpoint = \"https://s3.example.com\", the S3 API the keys are for.")
	default:
		if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.URL}, b.Endpoint); err != nil {
			ps.add(p.Attr("attributes").Key("endpoint"), "Invalid S3 endpoint",
				"%v; give the S3 API's http(s) URL, e.g. \"https://s3.eu-west-1.amazonaws.com\".", err)
		}
	}
	return ps
}

// keyAttr is the attribute a problem about the keys lands on.
func keyAttr(written bool) string {
	if written {
		return "access_key_wo"
	}
	return "access_key_env"
}

// S3Inputs are the artifacts a bound S3 provider brings to the jobs: the
// endpoint and the bucket (internal: values in state) and the credentials
// (secret: only the value handed to the engine holds the keys).
func S3Inputs(b S3Binding, access, secret string) (endpoint, bucket, credentials protocol.Artifact, value string) {
	endpoint = protocol.Artifact{ID: S3EndpointArt, Type: "url", Sensitivity: protocol.SensitivityInternal, Value: b.Endpoint}
	if b.HasBucket {
		bucket = protocol.Artifact{ID: S3BucketArt, Type: "text", Sensitivity: protocol.SensitivityInternal, Value: b.Bucket}
	}
	credentials = protocol.Artifact{ID: S3CredentialsArt, Type: "credentials", Sensitivity: protocol.SensitivitySecret}
	value = "AWS_ACCESS_KEY_ID=" + access + "\nAWS_SECRET_ACCESS_KEY=" + secret + "\n"
	return endpoint, bucket, credentials, value
}
