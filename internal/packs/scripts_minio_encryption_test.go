package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallMinioEncryption: encryption true keeps the KMS key in the
// minio-kms Secret and gives it to the chart (extraSecret), and the
// bucket Job sets SSE-S3 on the bucket; false does neither.
func TestInstallMinioEncryption(t *testing.T) {
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	for _, on := range []bool{true, false} {
		enc := map[bool]string{true: "true", false: "false"}[on]
		t.Run("encryption "+enc, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("kubectl", `case " $* " in *" get persistentvolumeclaim "*) printf Bound ;; *" get secret "*) exit 1 ;; esac`)
			succeeded(t, h.run("minio/scripts/install-minio.sh", h.artifactEnv(packEnv(t, "minio", map[string]string{"encryption": enc}), arts)))
			docs := yamlDocs(t, h.log(h.values))
			if got := docs[0]["extraSecret"] == "minio-kms"; got != on {
				t.Errorf("values %v: extraSecret minio-kms %v want %v", docs[0], got, on)
			}
			if got := strings.Contains(h.log(h.calls), "create secret generic minio-kms"); got != on {
				t.Errorf("minio-kms Secret created: %v want %v\n%s", got, on, h.log(h.calls))
			}

			h = newScriptHost(t)
			succeeded(t, h.run("minio/scripts/create-bucket.sh", h.artifactEnv(packEnv(t, "minio", map[string]string{"encryption": enc}), arts)))
			args := jobArgs(t, h, "minio-create-bucket")
			if !strings.Contains(args, `mc encrypt set sse-s3 "s3/$BUCKET"`) || !strings.Contains(args, `if [ "$ENCRYPTION" = true ]`) {
				t.Errorf("bucket Job args %q; want SSE-S3 set when ENCRYPTION is true", args)
			}
			if env := jobEnv(t, h, "minio-create-bucket"); env["ENCRYPTION"] != enc {
				t.Errorf("bucket Job ENCRYPTION %q want %q", env["ENCRYPTION"], enc)
			}
		})
	}
}

// TestVerifyMinioChecks runs the verify Jobs' encryption and region
// checks against what mc reports: they pass only when the bucket's
// encryption and the server's region are what the parameters ask.
func TestVerifyMinioChecks(t *testing.T) {
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	on := `{ "status": "success", "url": "s3/default", "encryption": { "algorithm": "AES256" } }`
	off := `{ "status": "success", "url": "s3/default", "encryption": {} }`
	info := func(region string) string {
		return `{ "status": "success", "info": { "mode": "online", "region": "` + region + `" } }`
	}
	cases := []struct {
		name, job, enc, region, mc string
		ok                         bool
	}{
		{"encrypted as asked", "minio-verify-encryption", "true", "us-east-1", on, true},
		{"not encrypted but asked", "minio-verify-encryption", "true", "us-east-1", off, false},
		{"plain as asked", "minio-verify-encryption", "false", "us-east-1", off, true},
		{"encrypted but asked plain", "minio-verify-encryption", "false", "us-east-1", on, false},
		{"region as asked", "minio-verify-region", "true", "eu-central", info("eu-central"), true},
		{"another region", "minio-verify-region", "true", "eu-central", info("us-east-1"), false},
		{"no region", "minio-verify-region", "true", "eu-central", `{ "status": "success", "info": {} }`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			succeeded(t, h.run("minio/scripts/verify-minio.sh", h.artifactEnv(packEnv(t, "minio", map[string]string{"encryption": c.enc, "region": c.region}), arts)))
			args := jobArgs(t, h, c.job)
			bin := t.TempDir()
			if err := os.WriteFile(filepath.Join(bin, "mc"), []byte("#!/bin/sh\ncat <<'JSON'\n"+c.mc+"\nJSON\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("/bin/sh", "-c", args)
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "BUCKET=default", "ENCRYPTION=" + c.enc, "REGION=" + c.region}
			out, err := cmd.CombinedOutput()
			if (err == nil) != c.ok {
				t.Errorf("%s with mc saying %s: err %v (%s) want ok=%v", c.job, c.mc, err, out, c.ok)
			}
		})
	}
}

// jobArgs is the shell script of the applied Job name.
func jobArgs(t *testing.T, h *scriptHost, name string) string {
	t.Helper()
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		if dig(d, "metadata", "name") == name {
			return strings.Join(strList(dig(d, "spec", "template", "spec", "containers", 0, "args")), "\n")
		}
	}
	t.Fatalf("no Job %s applied:\n%s", name, h.log(h.stdin))
	return ""
}

// jobEnv is the literal environment of the applied Job name.
func jobEnv(t *testing.T, h *scriptHost, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		if dig(d, "metadata", "name") != name {
			continue
		}
		for _, e := range dig(d, "spec", "template", "spec", "containers", 0, "env").([]any) {
			m := e.(map[string]any)
			if v, ok := m["value"].(string); ok {
				out[m["name"].(string)] = v
			}
		}
	}
	return out
}
