package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// extractPatch returns the plan_patches block an apply error proposes.
func extractPatch(t *testing.T, out string) string {
	t.Helper()
	start := strings.Index(out, "  plan_patches = [{")
	if start < 0 {
		t.Fatalf("the apply error proposes no plan_patches block:\n%s", out)
	}
	rest := out[start:]
	end := strings.Index(rest, "\n  }]")
	if end < 0 {
		t.Fatalf("the plan_patches block is not closed:\n%s", rest)
	}
	return rest[:end+len("\n  }]")]
}

// Seed 000 §4 end to end: with the image-pull fault on, apply fails at
// init-control-plane and the error carries a plan patch; pasted into HCL
// and approved, the next plan shows the three jobs inserted after
// install-container-runtime and the retry, and apply completes with the
// registry mirror configured in containerd on the hosts.
func TestAccDiagnosis_imagePullPatch(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "pull", "master-1", "worker-1")
	if err := c.SetFault(hostsim.Fault{Kind: hostsim.FaultImagePull}); err != nil {
		t.Fatalf("set the image-pull fault: %v", err)
	}
	cluster := func(patch string) string {
		return accProvider(c, "") + `
resource "cp_kubernetes_cluster" "k" {
  name    = "pull"
  storage = "none"
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1") + `
` + patch + `
}
`
	}
	r := newTofuRun(t, cluster(""))
	logs := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	out, err := r.cmd(ctx, filepath.Join(logs, "apply1.log"), "apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("apply succeeded under the image-pull fault:\n%s", out)
	}
	for _, want := range []string{"init-control-plane[master-1] failed", "ImagePull", "Diagnosis:", "Approval: required"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the apply error lacks %q:\n%s", want, out)
		}
	}
	patch := extractPatch(t, string(out))
	const mirror = "https://mirror.internal.example:5000"
	patch = strings.Replace(patch, hostsimPlaceholder(patch), mirror, 1)
	// Approved by the provider's actor (accProvider's "ci"): an approval
	// in another actor's name is refused at plan.
	patch = strings.Replace(patch, `approved_by = ""`, `approved_by = "ci"`, 1)
	must(t, os.WriteFile(filepath.Join(r.dir, "main.tf"), []byte(`terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}
`+cluster(patch)), 0o644))

	plan, err := r.cmd(ctx, filepath.Join(logs, "plan.log"), "plan").CombinedOutput()
	if err != nil {
		t.Fatalf("plan with the pasted patch: %v\n%s", err, plan)
	}
	for _, re := range []string{
		`kubernetes.create@1.0.0 customized`,
		`patch by diagnose:rule/image-pull[^\n]*: inserted configure-containerd-registry-mirror after install-container-runtime`,
		`- configure-containerd-registry-mirror \(2\): master-1, worker-1\s+patch: plan patch by diagnose:rule/image-pull`,
		`- restart-containerd \(2\): master-1, worker-1`,
		`- pre-pull-kubernetes-images \(2\): master-1, worker-1`,
		`- init-control-plane: master-1\s+retried by a patch: master-1`,
	} {
		if !regexp.MustCompile(re).Match(plan) {
			t.Fatalf("the plan does not show %q:\n%s", re, plan)
		}
	}
	if !regexp.MustCompile(`(?s)diagnose:rule/image-pull`).Match(plan) {
		t.Fatalf("the plan does not name the patch author:\n%s", plan)
	}

	done, err := r.cmd(ctx, filepath.Join(logs, "apply2.log"), "apply", "-auto-approve").CombinedOutput()
	if err != nil {
		t.Fatalf("apply with the approved patch: %v\n%s", err, done)
	}
	// The mirror is really configured in containerd on the hosts.
	for _, host := range []string{"master-1", "worker-1"} {
		h, _ := c.Host(host)
		found := false
		_ = filepath.WalkDir(filepath.Join(h.Upper, "etc/containerd"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), "mirror.internal.example:5000") {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("containerd on %s has no mirror configured under /etc/containerd", host)
		}
	}
}

// hostsimPlaceholder returns the registry_mirrors value the proposed patch
// carries (a placeholder the user replaces).
func hostsimPlaceholder(patch string) string {
	m := regexp.MustCompile(`registry_mirrors = "([^"]*)"`).FindStringSubmatch(patch)
	if m == nil {
		return "\x00none"
	}
	return m[1]
}
