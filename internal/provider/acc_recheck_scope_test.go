package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// The refresh re-checks the evidence of Tempo's and the scenario's jobs,
// which run at cluster scope (no host of their own), on the first master
// they ran on: no "Evidence not checked" warning for them naming host "", and the
// plan after the apply has nothing to do.
func TestAccComposed_recheckClusterScoped(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "recheck", "master-1", "worker-1")
	s3 := testhosts.RequireS3(t, testhosts.S3Options{})
	prov := accProvider(c, "refresh_evidence = true")
	r := newTofuRun(t, prov+composedHCL(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"), s3.Endpoint))
	r.env = append(r.env, "CP_COMPOSED_S3_AK="+s3.AccessKey, "CP_COMPOSED_S3_SK="+s3.SecretKey)
	r.mustTofu(0, "apply", "-auto-approve")
	out, code := r.tofu("plan", "-detailed-exitcode")
	if code != 0 {
		t.Errorf("the plan after the apply is not empty (exit %d):\n%s", code, out)
	}
	// (The cluster's join-workers on a worker is skipped by design: its
	// input join token is kept on the master, and a refresh moves no
	// secret between hosts.)
	flat := strings.Join(strings.Fields(out), " ")
	if strings.Contains(flat, `host "" is not configured`) || regexp.MustCompile(`Evidence not checked on some hosts with cp_(tempo|scenario)\.`).MatchString(flat) {
		t.Errorf("the refresh did not check the evidence of the cluster-scoped jobs on the first master:\n%s", out)
	}
}
