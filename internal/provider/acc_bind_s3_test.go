package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// s3ProbePack is a user pack whose one job uses a bound object storage
// from the first master with the real aws client: it writes the object
// s3-probe/<name> into the bound bucket and reads it back; its evidence
// reads it again with the bound endpoint and keys.
var s3ProbePack = map[string]string{
	"pack.yaml": `scenario_pack:
  id: s3-probe
  version: 1.0.0
  title: S3 probe
  resource_types: [s3.probe]
  actions: [install]
  requires:
    - capability: object_storage.s3
      scope: cluster
  plan_templates:
    - id: s3-probe.install
      action: install
      entrypoint: write-object
      file: templates/install.yaml
`,
	"templates/install.yaml": `plan_template:
  id: s3-probe.install
  action: install
  title: Write an object to the bound storage
  stages:
    - id: write
      title: Write
      jobs: [write-object]
`,
	"jobs/write-object.yaml": `job:
  id: write-object
  title: Write an object
  scope:
    expand: once
  inputs:
    requires:
      capabilities:
        - {key: object_storage.s3, scope: cluster}
      artifacts:
        - {id: object_storage.s3.endpoint, scope: cluster}
        - {id: object_storage.s3.bucket, scope: cluster}
        - {id: object_storage.s3.credentials, scope: cluster}
  outputs:
    provides:
      capabilities:
        - {key: s3.probe.done, scope: cluster}
    evidence:
      - id: object_reads_back
        command: >-
          c="$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS";
          AWS_ACCESS_KEY_ID=$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$c")
          AWS_SECRET_ACCESS_KEY=$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$c")
          AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_DEFAULT_REGION=us-east-1;
          export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE AWS_DEFAULT_REGION;
          aws --endpoint-url "$(cat "$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")"
          s3 cp "s3://$(cat "$CP_ARTIFACT_OBJECT_STORAGE_S3_BUCKET")/s3-probe/$CP_CLUSTER" - 2>/dev/null
        expected: "s3-probe wrote this"
  controls:
    idempotency: {key: "write-object:{cluster}"}
    timeout: 2m
  script: scripts/write-object.sh
`,
	"scripts/write-object.sh": `#!/usr/bin/env bash
set -euo pipefail
creds=$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS
AWS_ACCESS_KEY_ID=$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$creds")
AWS_SECRET_ACCESS_KEY=$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$creds")
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_DEFAULT_REGION=us-east-1
endpoint=$(cat "$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
bucket=$(cat "$CP_ARTIFACT_OBJECT_STORAGE_S3_BUCKET")
aws --endpoint-url "$endpoint" s3api head-bucket --bucket "$bucket" 2>/dev/null ||
  aws --endpoint-url "$endpoint" s3api create-bucket --bucket "$bucket" >/dev/null
echo "s3-probe wrote this" >"$CP_WORK_DIR/object"
aws --endpoint-url "$endpoint" s3 cp "$CP_WORK_DIR/object" "s3://$bucket/s3-probe/$CP_CLUSTER"
`,
}

// bindCluster is a one-master, one-worker cluster without storage: a
// bound S3 needs no StorageClass.
func bindCluster(c *testhosts.Cluster) string {
	return `
resource "cp_kubernetes_cluster" "bind" {
  name      = "bind"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters   = ` + nodesHCL(c, "master-1") + `
  workers   = ` + nodesHCL(c, "worker-1") + `
}
`
}

// tempoBound is a cp_tempo in namespace ns binding the S3 server with the
// given key arguments.
func tempoBound(name, ns, bucket, endpoint, keys string) string {
	return fmt.Sprintf(`
resource "cp_tempo" %q {
  name           = %q
  cluster_handle = cp_kubernetes_cluster.bind.handle
  parameters     = { namespace = %q }
  object_storage = {
    name       = "weed"
    provider   = "aws_s3"
    attributes = { endpoint = %q, bucket = %q }
    %s
  }
}
`, name, name, ns, endpoint, bucket, keys)
}

// tofuLogs is every debug log of the run's working directory.
func (r *tofuRun) tofuLogs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.log"))
	for _, f := range files {
		body, err := os.ReadFile(f)
		must(r.t, err)
		b.Write(body)
	}
	return b.String()
}

// Binding an existing S3 provider through OpenTofu, against a real S3
// server (SeaweedFS on loopback, which the test hosts reach): cp_tempo
// binds it with keys named by environment variables, a second cp_tempo
// with write-only keys, and a cp_scenario of a user pack requiring
// object_storage.s3 with the bucket as an artifact. The plan shows the
// binding; apply runs create-bucket-and-credentials on the first master
// with the real aws client, and the objects it wrote are in the buckets
// (read with s3cmd from the test). Tempo's Helm values name the bound
// endpoint and bucket and the Secret tempo-s3, which holds the bound keys.
// The keys are in no state, plan JSON, CLI output or debug log. A wrong
// secret key fails the apply naming the job, the host and the refusal.
func TestAccBindS3_tempoAndScenario(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "bind", "master-1", "worker-1")
	// A second identity: the keys a rotation moves to.
	rotated := testhosts.S3Keys{AccessKey: "CPROTATED" + "0000002", SecretKey: "rotated-secret-key-" + sha256Hex(t.Name())[:20]}
	s3 := testhosts.RequireS3(t, testhosts.S3Options{More: []testhosts.S3Keys{rotated}})
	m1, _ := c.Host("master-1")
	pack := writePack(t, s3ProbePack)

	const wrongSecret = "wrong-secret-key-0123456789abcd"
	secrets := map[string]string{"S3 access key": s3.AccessKey, "S3 secret key": s3.SecretKey, "wrong secret key": wrongSecret,
		"rotated access key": rotated.AccessKey, "rotated secret key": rotated.SecretKey}
	r := newTofuRun(t, "")
	r.env = append(r.env, "CP_BIND_S3_AK="+s3.AccessKey, "CP_BIND_S3_SK="+s3.SecretKey, "CP_BIND_S3_WRONG="+wrongSecret,
		"TF_VAR_s3_access_key="+s3.AccessKey, "TF_VAR_s3_secret_key="+s3.SecretKey)
	// The cluster's evidence is not checked again on refresh: this test
	// is about the bindings, and each plan then shows only their changes.
	prov := accProvider(c, fmt.Sprintf("pack_dirs = [%q]\n  refresh_evidence = false", pack)) + `
variable "s3_access_key" {
  type      = string
  ephemeral = true
}
variable "s3_secret_key" {
  type      = string
  ephemeral = true
}
`
	envKeys := `access_key_env = "CP_BIND_S3_AK"
    secret_key_env = "CP_BIND_S3_SK"`
	woKeys := `access_key_wo = var.s3_access_key
    secret_key_wo = var.s3_secret_key
    credentials_wo_version = 1`
	byEnv := tempoBound("env", "tracing-env", "traces-env", s3.Endpoint, envKeys)
	byWO := tempoBound("wo", "tracing-wo", "traces-wo", s3.Endpoint, woKeys)
	scenario := fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack  = "s3-probe"
  name  = "probe"
  hosts = [{ name = %q, address = %q, role = "master" }]
  candidates = [{
    name           = "weed"
    provider       = "aws_s3"
    capability     = "object_storage.s3"
    attributes     = { endpoint = %q, bucket = "probe-bucket" }
    access_key_env = "CP_BIND_S3_AK"
    secret_key_env = "CP_BIND_S3_SK"
  }]
}
`, m1.Name, m1.Addr, s3.Endpoint)
	var outputs strings.Builder
	checkSecrets := func(step string) {
		t.Helper()
		state, err := os.ReadFile(filepath.Join(r.dir, "terraform.tfstate"))
		must(t, err)
		absent(t, step+": the state file", string(state), secrets)
		absent(t, step+": the CLI output", outputs.String(), secrets)
		absent(t, step+": the debug logs", r.tofuLogs(), secrets)
	}
	// s3cmd runs the real s3cmd against the server, for at most a minute.
	s3cmd := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return s3.S3cmd(ctx, args...)
	}
	object := func(bucket, key, want string) {
		t.Helper()
		got, err := s3cmd("get", "s3://"+bucket+"/"+key, "-")
		if err != nil || got != want {
			t.Errorf("got: s3://%s/%s = %q (%v) want: %q, written by the job on the host", bucket, key, got, err, want)
		}
	}

	// A variable that is not set is refused at plan on the attribute that
	// names it, before any host is reached.
	r.setConfig(prov + bindCluster(c) + tempoBound("env", "tracing-env", "traces-env", s3.Endpoint, `access_key_env = "CP_BIND_S3_AK"
    secret_key_env = "CP_BIND_S3_UNSET"`))
	out := r.mustTofu(1, "plan")
	outputs.WriteString(out)
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, `object_storage.secret_key_env: "CP_BIND_S3_UNSET" names the environment variable that holds the S3 secret key, but it is not set`) {
		t.Errorf("got: %s want: the unset variable refused at object_storage.secret_key_env", out)
	}

	// Keys by environment variable: plan (the binding shown), apply.
	r.setConfig(prov + bindCluster(c) + byEnv)
	outputs.WriteString(r.mustTofu(0, "plan", "-out=env.tfplan"))
	planJSON := r.mustTofu(0, "show", "-json", "env.tfplan")
	absent(t, "the plan JSON", planJSON, secrets)
	if !strings.Contains(planJSON, `"access_key_env":"CP_BIND_S3_AK"`) || !regexp.MustCompile(`object_storage\.s3[^"]*bind[^"]*weed`).MatchString(planJSON) {
		t.Errorf("got: plan JSON without the variable name or the binding of weed want: both\n%.3000s", planJSON)
	}
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve", "env.tfplan"))
	object("traces-env", "cp-evidence/tempo/tracing-env", "tempo storage check: bucket traces-env, namespace tracing-env\n")
	st, err := hostsim.ReadState(c.SimulatorStateDir())
	must(t, err)
	rel := st.Releases["tracing-env/tempo"]
	if rel == nil {
		t.Fatalf("got: releases %v want: tracing-env/tempo", st.Releases)
	}
	tv, _ := rel.Values["tempo"].(map[string]any)
	s3v := digMap(tv, "storage", "trace", "s3")
	host := strings.TrimPrefix(s3.Endpoint, "http://")
	if s3v["bucket"] != "traces-env" || s3v["endpoint"] != host || s3v["insecure"] != true {
		t.Errorf("got: Tempo's s3 values %v want: bucket traces-env, endpoint %s, insecure (http)", s3v, host)
	}
	if ref := fmt.Sprint(tv["extraEnvFrom"]); ref != "[map[secretRef:map[name:tempo-s3]]]" {
		t.Errorf("got: extraEnvFrom %s want: the Secret tempo-s3", ref)
	}
	if data := simSecret(t, st, "tracing-env", "tempo-s3"); data["AWS_ACCESS_KEY_ID"] != s3.AccessKey || data["AWS_SECRET_ACCESS_KEY"] != s3.SecretKey {
		t.Errorf("got: tempo-s3 holds other keys (%d, %d characters) want: the bound keys", len(data["AWS_ACCESS_KEY_ID"]), len(data["AWS_SECRET_ACCESS_KEY"]))
	}
	checkSecrets("keys by environment variable")

	// Write-only keys, and a cp_scenario binding the storage with its
	// bucket; the first Tempo plans nothing.
	r.setConfig(prov + bindCluster(c) + byEnv + byWO + scenario)
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve"))
	object("traces-wo", "cp-evidence/tempo/tracing-wo", "tempo storage check: bucket traces-wo, namespace tracing-wo\n")
	object("probe-bucket", "s3-probe/probe", "s3-probe wrote this\n")
	outputs.WriteString(r.mustTofu(0, "plan", "-detailed-exitcode"))
	checkSecrets("write-only keys and a scenario")

	// Rotation of keys named by variables: the plan cannot see the new
	// values, credentials_wo_version makes it run the action again, and
	// create-bucket-and-credentials runs again (tempo-s3 no longer holds
	// the bound keys) and stores the new ones.
	for i, kv := range r.env {
		switch {
		case strings.HasPrefix(kv, "CP_BIND_S3_AK="):
			r.env[i] = "CP_BIND_S3_AK=" + rotated.AccessKey
		case strings.HasPrefix(kv, "CP_BIND_S3_SK="):
			r.env[i] = "CP_BIND_S3_SK=" + rotated.SecretKey
		}
	}
	byEnv = tempoBound("env", "tracing-env", "traces-env", s3.Endpoint, envKeys+"\n    credentials_wo_version = 2")
	r.setConfig(prov + bindCluster(c) + byEnv + byWO + scenario)
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve"))
	st, err = hostsim.ReadState(c.SimulatorStateDir())
	must(t, err)
	if data := simSecret(t, st, "tracing-env", "tempo-s3"); data["AWS_ACCESS_KEY_ID"] != rotated.AccessKey || data["AWS_SECRET_ACCESS_KEY"] != rotated.SecretKey {
		t.Errorf("got: tempo-s3 after the rotation holds keys of %d and %d characters, not the rotated ones want: the rotated keys", len(data["AWS_ACCESS_KEY_ID"]), len(data["AWS_SECRET_ACCESS_KEY"]))
	}
	outputs.WriteString(r.mustTofu(0, "plan", "-detailed-exitcode"))
	checkSecrets("rotated keys")

	// A wrong secret key fails at apply, naming the job, the host and
	// the refusal; the bucket stays absent.
	r.setConfig(prov + bindCluster(c) + byEnv + byWO + scenario +
		tempoBound("bad", "tracing-bad", "traces-bad", s3.Endpoint, `access_key_env = "CP_BIND_S3_AK"
    secret_key_env = "CP_BIND_S3_WRONG"`))
	out = r.mustTofu(1, "apply", "-auto-approve")
	outputs.WriteString(out)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"create-bucket-and-credentials", "master-1", "refused the bound credentials for bucket traces-bad"} {
		if !strings.Contains(flat, want) {
			t.Errorf("got: apply output without %q want: the failing job, its host and the refusal\n%s", want, out)
		}
	}
	if got, err := s3cmd("ls"); err != nil || !strings.Contains(got, "s3://traces-env") || strings.Contains(got, "s3://traces-bad") {
		t.Errorf("got: buckets %q (%v) want: traces-env and no traces-bad, nothing created with a refused key", got, err)
	}
	checkSecrets("a wrong secret key")
}

// digMap follows keys through nested maps.
func digMap(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

// simSecret is the decoded data of a Secret of the simulated cluster.
func simSecret(t *testing.T, st *hostsim.State, ns, name string) map[string]string {
	t.Helper()
	for _, o := range st.Objects {
		if o.Kind != "Secret" || o.Namespace != ns || o.Name != name {
			continue
		}
		out := map[string]string{}
		data, _ := o.Body["data"].(map[string]any)
		for k, v := range data {
			b, err := base64.StdEncoding.DecodeString(fmt.Sprint(v))
			must(t, err)
			out[k] = string(b)
		}
		return out
	}
	t.Fatalf("got: no Secret %s/%s in the simulated cluster want: it", ns, name)
	return nil
}
