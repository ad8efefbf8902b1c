package provider

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func testKeyPEM(t *testing.T, passphrase string) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	var block *pem.Block
	if passphrase == "" {
		block, err = gossh.MarshalPrivateKey(priv, "test")
	} else {
		block, err = gossh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(passphrase))
	}
	must(t, err)
	return string(pem.EncodeToMemory(block))
}

// errorsAt lists "path: summary: detail" of every error.
func errorsAt(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		p := ""
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			p = wp.Path().String()
		}
		out = append(out, p+": "+d.Summary()+": "+d.Detail())
	}
	return out
}

func wantOneError(t *testing.T, diags diag.Diagnostics, at, contains string, secret string) {
	t.Helper()
	errs := errorsAt(diags)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], at+": ") || !strings.Contains(errs[0], contains) {
		t.Fatalf("got: %q want: one error at %s containing %q", errs, at, contains)
	}
	if secret != "" && strings.Contains(errs[0], secret) {
		t.Fatalf("got: %q want: the value not echoed", errs[0])
	}
}

// The provider's _wo arguments reach the SSH access in memory and are
// refused, without being echoed, when they conflict or cannot work.
func TestProviderSSHWriteOnly(t *testing.T) {
	key := testKeyPEM(t, "")
	settings := func(ssh sshModel) (*providerData, diag.Diagnostics) {
		return providerModel{SSH: &ssh}.settings("test")
	}
	str := types.StringValue

	d, diags := settings(sshModel{PrivateKeyWO: str(key), BecomePasswordWO: str("s3cr3t-sudo")})
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	a := d.SSH.access()
	if string(a.PrivateKey) != key || a.PrivateKeyFile != "" || a.BecomePassword != "s3cr3t-sudo" {
		t.Fatalf("got: access key %d bytes, file %q, sudo password %q want: the key in memory, no file, the password", len(a.PrivateKey), a.PrivateKeyFile, a.BecomePassword)
	}

	t.Setenv("CP_TEST_WO_SUDO", "from-env")
	d, diags = settings(sshModel{BecomePasswordEnv: str("CP_TEST_WO_SUDO")})
	if diags.HasError() || d.SSH.access().BecomePassword != "from-env" {
		t.Fatalf("got: %q, password %q want: the environment form still works", errorsAt(diags), d.SSH.access().BecomePassword)
	}

	_, diags = settings(sshModel{PrivateKeyFile: str("/k"), PrivateKeyWO: str(key)})
	wantOneError(t, diags, "ssh.private_key_wo", "private_key_file and private_key_wo are both set", key)

	bad := "this-is-not-a-key-4f9e2a"
	_, diags = settings(sshModel{PrivateKeyWO: str(bad)})
	wantOneError(t, diags, "ssh.private_key_wo", "is not a private key", bad)

	broken := "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAsecretbodyline\n-----END OPENSSH PRIVATE KEY-----\n"
	_, diags = settings(sshModel{PrivateKeyWO: str(broken)})
	wantOneError(t, diags, "ssh.private_key_wo", "not a private key the SSH client can read", "AAAAsecretbodyline")

	enc := testKeyPEM(t, "pass")
	_, diags = settings(sshModel{PrivateKeyWO: str(enc)})
	wantOneError(t, diags, "ssh.private_key_wo", "encrypted with a passphrase", strings.Split(enc, "\n")[1])

	_, diags = settings(sshModel{BecomePasswordEnv: str("CP_TEST_WO_SUDO"), BecomePasswordWO: str("pw")})
	wantOneError(t, diags, "ssh.become_password_wo", "become_password_env and become_password_wo are both set", "")

	_, diags = settings(sshModel{BecomePasswordWO: str("")})
	wantOneError(t, diags, "ssh.become_password_wo", "empty", "")

	_, diags = settings(sshModel{BecomePasswordWO: str("line-one\n")})
	wantOneError(t, diags, "ssh.become_password_wo", "line break", "line-one")

	// Unknown (an ephemeral value not known yet) is neither used nor refused.
	d, diags = settings(sshModel{PrivateKeyWO: types.StringUnknown(), BecomePasswordWO: types.StringUnknown()})
	if diags.HasError() || len(d.SSH.PrivateKey) != 0 || d.SSH.BecomePassword != "" {
		t.Fatalf("got: %q want: unknown values left for later", errorsAt(diags))
	}
}

// The bastion uses its own private_key_wo, else the host's key material.
func TestProviderBastionWriteOnly(t *testing.T) {
	host, jump := testKeyPEM(t, ""), testKeyPEM(t, "")
	str := types.StringValue
	d, diags := providerModel{SSH: &sshModel{PrivateKeyWO: str(host), Bastion: &bastionModel{Address: str("10.0.0.1")}}}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	if b := d.SSH.access().Bastion; b == nil || string(b.PrivateKey) != host {
		t.Fatalf("got: bastion %+v want: the host's private_key_wo", b)
	}
	d, diags = providerModel{SSH: &sshModel{PrivateKeyFile: str("/host-key"),
		Bastion: &bastionModel{Address: str("10.0.0.1"), PrivateKeyWO: str(jump)}}}.settings("test")
	if diags.HasError() {
		t.Fatalf("got: %q want: no error", errorsAt(diags))
	}
	if b := d.SSH.access().Bastion; string(b.PrivateKey) != jump || b.PrivateKeyFile != "" {
		t.Fatalf("got: bastion key %d bytes, file %q want: its own key in memory, no file", len(b.PrivateKey), b.PrivateKeyFile)
	}
	_, diags = providerModel{SSH: &sshModel{Bastion: &bastionModel{Address: str("10.0.0.1"),
		PrivateKeyFile: str("/k"), PrivateKeyWO: str(jump)}}}.settings("test")
	wantOneError(t, diags, "ssh.bastion.private_key_wo", "both set", jump)
}

func s3Binding(ak, sk string) boundCandidateModel {
	c := boundCandidateModel{Name: types.StringValue("ext"), Provider: types.StringValue("aws_s3"),
		Capability: types.StringValue("object_storage.s3"), Attributes: map[string]string{"endpoint": "https://s3.example.test"},
		AccessKeyWO: types.StringNull(), SecretKeyWO: types.StringNull(), CredentialsWOVersion: types.Int64Null()}
	if ak != "" {
		c.AccessKeyWO = types.StringValue(ak)
	}
	if sk != "" {
		c.SecretKeyWO = types.StringValue(sk)
	}
	return c
}

// Each wrong use of the credential arguments is refused at its path,
// without the key in the message.
func TestStorageCredentialChecks(t *testing.T) {
	p := path.Root("candidates").AtListIndex(0)
	check := func(c boundCandidateModel) diag.Diagnostics {
		var diags diag.Diagnostics
		checkStorageCredentials(c, p, os.LookupEnv, &diags)
		return diags
	}
	if d := check(s3Binding("AKIAGOOD01", "good/secret+key=")); d.HasError() {
		t.Fatalf("got: %q want: valid credentials accepted", errorsAt(d))
	}
	wantOneError(t, check(s3Binding("AKIAGOOD01", "")), "candidates[0].secret_key_wo", "access_key_wo is set but secret_key_wo is not", "AKIAGOOD01")
	wantOneError(t, check(s3Binding("", "good-secret")), "candidates[0].access_key_wo", "secret_key_wo is set but access_key_wo is not", "good-secret")
	wantOneError(t, check(s3Binding("AKIAGOOD01", "bad secret\nAWS_X=1")), "candidates[0].secret_key_wo", "is not an S3 key", "bad secret")

	other := s3Binding("AKIAGOOD01", "good-secret")
	other.Capability = types.StringValue("secret.store")
	wantOneError(t, check(other), "candidates[0].access_key_wo", "credentials come with object_storage.s3 only", "good-secret")

	noEndpoint := s3Binding("AKIAGOOD01", "good-secret")
	noEndpoint.Attributes = nil
	wantOneError(t, check(noEndpoint), "candidates[0].attributes", "has no endpoint", "good-secret")

	badEndpoint := s3Binding("AKIAGOOD01", "good-secret")
	badEndpoint.Attributes = map[string]string{"endpoint": "s3.example.test"}
	wantOneError(t, check(badEndpoint), `candidates[0].attributes["endpoint"]`, "http(s) URL", "good-secret")

	versionOnly := s3Binding("", "")
	versionOnly.CredentialsWOVersion = types.Int64Value(1)
	wantOneError(t, check(versionOnly), "candidates[0].credentials_wo_version", "access_key_wo and secret_key_wo are not", "")

	var diags diag.Diagnostics
	checkOneCredentialed([]boundCandidateModel{s3Binding("AKIAGOOD01", "good-secret"), s3Binding("AKIAGOOD02", "good-secret")}, scenarioBindingPath, &diags)
	wantOneError(t, diags, "candidates[1].access_key_wo", "candidates[0] carries credentials already", "good-secret")
}

// The credentialed binding brings the endpoint and credentials artifacts:
// the planner sees the secret without its value, the engine gets the
// value. A binding without keys brings nothing.
func TestStorageInputs(t *testing.T) {
	state, secrets := storageInputs([]boundCandidateModel{s3Binding("", ""), s3Binding("AKIAGOOD01", "good-secret")}, os.LookupEnv)
	if len(state) != 2 || state[0].ID != s3EndpointArt || state[0].Value != "https://s3.example.test" ||
		state[1].ID != s3CredentialsArt || state[1].Sensitivity != protocol.SensitivitySecret || state[1].Value != "" {
		t.Fatalf("got: state artifacts %+v want: the endpoint with its value and the credentials without", state)
	}
	if len(secrets) != 2 || secrets[1].SecretValue != "AWS_ACCESS_KEY_ID=AKIAGOOD01\nAWS_SECRET_ACCESS_KEY=good-secret\n" || secrets[1].Value != "" {
		t.Fatalf("got: engine inputs %+v want: the credentials lines as the secret's value", secrets)
	}
	if s, e := storageInputs([]boundCandidateModel{s3Binding("", "")}, os.LookupEnv); s != nil || e != nil {
		t.Fatalf("got: %+v %+v want: nothing without keys", s, e)
	}
}

// Credentials on a binding the plan does not use are refused.
func TestCredentialsBound(t *testing.T) {
	cands := []boundCandidateModel{s3Binding("", ""), s3Binding("AKIAGOOD01", "good-secret")}
	cands[0].Name = types.StringValue("other")
	op := func(decision, provider string) *intentOp {
		return &intentOp{Composed: &planner.Composed{Plan: &protocol.Plan{Bindings: []protocol.Binding{
			{Requirement: protocol.CapabilityRequirement{Key: "object_storage.s3"}, Decision: decision, Provider: provider}}}}}
	}
	for _, tc := range []struct {
		decision, provider string
		refused            bool
	}{{"bind", "ext", false}, {"gate", "", false}, {"bind", "other", true}, {string(capability.KindCreate), "dedicated_minio", true}} {
		var diags diag.Diagnostics
		checkCredentialsBound(op(tc.decision, tc.provider), cands, scenarioBindingPath, &diags)
		if tc.refused {
			wantOneError(t, diags, "candidates[1].access_key_wo", "but the plan resolves object_storage.s3 by "+tc.decision, "good-secret")
		} else if diags.HasError() {
			t.Fatalf("%s %s: got: %q want: accepted", tc.decision, tc.provider, errorsAt(diags))
		}
	}
}

// cp_tempo bound to an existing S3 plans only with the binding's keys:
// they (with the endpoint) satisfy create-bucket-and-credentials' inputs,
// and the engine receives the credentials lines as the secret's value.
// Without them the plan stops at the missing input.
func TestTempoBoundStorageCredentials(t *testing.T) {
	data, diags := providerModel{}.settings("test")
	if diags.HasError() {
		t.Fatalf("provider settings: %q", errorsAt(diags))
	}
	handle := `{"kind":"kubernetes.cluster","name":"prod","environment":"dev","hosts":[{"name":"m1","address":"10.0.0.1","role":"master"}],` +
		`"artifacts":[{"id":"kubeconfig.admin","ref":"m1:/etc/kubernetes/admin.conf"}]}`
	plan := func(binding boundCandidateModel) (*intentOp, intentPlan, diag.Diagnostics) {
		var diags diag.Diagnostics
		r := &TempoResource{}
		h := tempoHooks{r: r}
		r.init(h)
		r.data = data
		tm := tempoModel{Name: types.StringValue("tracing"), ClusterHandle: types.StringValue(handle), ObjectStorage: &binding,
			Environment: types.StringValue("dev")}
		ip, ops := planIntent(&r.intentBase, h, &tm, nil, h.changes(&tm, nil, false), &diags)
		if len(ops) == 0 {
			return nil, ip, diags
		}
		h.checkPlanned(&tm, ops, &diags)
		return &ops[0], ip, diags
	}
	op, spec, diags := plan(s3Binding("AKIAGOOD01", "good-secret"))
	if diags.HasError() || op == nil {
		t.Fatalf("got: %q want: tempo planned against the bound S3", errorsAt(diags))
	}
	in := spec.inputs.engineInput(op.ID, "ci", nil)
	var creds string
	for _, a := range in.Artifacts {
		if a.ID == s3CredentialsArt {
			creds = a.SecretValue
		}
	}
	if creds != "AWS_ACCESS_KEY_ID=AKIAGOOD01\nAWS_SECRET_ACCESS_KEY=good-secret\n" {
		t.Fatalf("got: credentials input %q want: the binding's keys", creds)
	}
	_, _, diags = plan(s3Binding("", ""))
	if errs := strings.Join(errorsAt(diags), "\n"); !strings.Contains(errs, "object_storage.s3.") || !strings.Contains(errs, "absent") ||
		!strings.Contains(errs, "give the binding attributes.endpoint and access_key_env and secret_key_env") {
		t.Fatalf("got: %q want: the plan refused for the missing endpoint or credentials, saying how to give the keys", errs)
	}
}
