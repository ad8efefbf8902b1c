package provider

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the
// OpenTofu binary named by TF_ACC_TERRAFORM_PATH.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"cp": providerserver.NewProtocol6WithError(New("test")()),
}

// testAccPreCheck makes acceptance tests fail, not skip, in CI when the
// OpenTofu binary is missing.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set: run `make testacc` (it builds bin/tofu) or point it at an OpenTofu binary")
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("TF_ACC_TERRAFORM_PATH=%s: %v; run `make tools`", bin, err)
	}
}

// TestMain refuses to let CI pass acceptance tests by skipping them.
func TestMain(m *testing.M) {
	if os.Getenv("CI") == "true" && os.Getenv("TF_ACC") == "" {
		println("CI=true but TF_ACC is not set: acceptance tests would be skipped; run `make test`")
		os.Exit(1)
	}
	useOpenTofuRegistryHost()
	os.Exit(m.Run())
}

// useOpenTofuRegistryHost names the provider registry.opentofu.org/... when
// the CLI under test is OpenTofu, which reads an unqualified source from
// that host: import steps that copy the state into a new working directory
// (import blocks, identity) otherwise ask the registry for the provider
// the state names.
func useOpenTofuRegistryHost() {
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" || os.Getenv("TF_ACC_PROVIDER_HOST") != "" {
		return
	}
	out, err := exec.Command(bin, "version").Output()
	if err == nil && strings.Contains(string(out), "OpenTofu v") {
		os.Setenv("TF_ACC_PROVIDER_HOST", "registry.opentofu.org")
	}
}

const providerBlock = `
provider "cp" {}
`
