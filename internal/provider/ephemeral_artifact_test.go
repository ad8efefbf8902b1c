package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// cp_artifact reads the admin kubeconfig live by the reference the cluster
// recorded: the echo test provider copies the ephemeral value into its
// own state so the test can see it. The value's fingerprint is the one the
// apply recorded; an id the handle does not list is refused on artifact.
// Ephemeral resources need Terraform 1.10 or OpenTofu 1.11.
func TestAccArtifactEphemeral(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "eph", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	read := func(artifact string) string {
		return `
ephemeral "cp_artifact" "kc" {
  handle   = cp_kubernetes_cluster.small.handle
  artifact = "` + artifact + `"
}

provider "echo" {
  data = ephemeral.cp_artifact.kc
}

resource "echo" "kc" {}
`
	}
	resource.Test(t, resource.TestCase{
		PreCheck:               func() { testAccPreCheck(t) },
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"cp":   providerserver.NewProtocol6WithError(New("test")()),
			"echo": echoprovider.NewProviderServer(),
		},
		Steps: []resource.TestStep{
			{Config: prov + cluster},
			{
				Config:            prov + cluster + read("kubeconfig.admin"),
				ConfigStateChecks: []statecheck.StateCheck{liveKubeconfig{}},
			},
			{
				Config:      prov + cluster + read("kubeconfig.nope"),
				ExpectError: regexp.MustCompile(`(?s)Unknown artifact.*no artifact "kubeconfig.nope"`),
			},
			// Without the failing read, so the destroy at the end can plan.
			{Config: prov + cluster},
		},
	})
}

// liveKubeconfig checks the echoed cp_artifact: a kubeconfig whose
// SHA-256 is its fingerprint and the fingerprint the cluster recorded for
// kubeconfig.admin, read from the reference the cluster recorded.
type liveKubeconfig struct{}

func (liveKubeconfig) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	var data, recorded map[string]any
	for _, r := range req.State.Values.RootModule.Resources {
		switch r.Address {
		case "echo.kc":
			data, _ = r.AttributeValues["data"].(map[string]any)
		case "cp_kubernetes_cluster.small":
			arts, _ := r.AttributeValues["artifacts"].([]any)
			for _, a := range arts {
				if m, _ := a.(map[string]any); m["id"] == "kubeconfig.admin" {
					recorded = m
				}
			}
		}
	}
	if data == nil || recorded == nil {
		resp.Error = fmt.Errorf("echo.kc data %v, recorded kubeconfig.admin %v: want both", data != nil, recorded != nil)
		return
	}
	value, _ := data["value"].(string)
	sum := sha256.Sum256([]byte(value))
	fp := "sha256:" + hex.EncodeToString(sum[:])
	switch {
	case !strings.Contains(value, "kind: Config") || !strings.Contains(value, "client-key-data"):
		resp.Error = fmt.Errorf("value is not an admin kubeconfig (%d bytes)", len(value))
	case data["fingerprint"] != fp:
		resp.Error = fmt.Errorf("fingerprint %v want the value's %s", data["fingerprint"], fp)
	case recorded["fingerprint"] != fp:
		resp.Error = fmt.Errorf("the live value's fingerprint %s is not the one the apply recorded, %v", fp, recorded["fingerprint"])
	case data["ref"] != recorded["ref"] || !strings.HasPrefix(fmt.Sprint(data["ref"]), "master-1:/"):
		resp.Error = fmt.Errorf("read from %v want the recorded reference %v on master-1", data["ref"], recorded["ref"])
	}
}
