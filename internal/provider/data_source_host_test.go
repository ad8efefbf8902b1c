package provider

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// cp_host reads the facts of a real test host over SSH (the hosts are
// views of this machine, so its os-release and CPU count are theirs), and
// an address nobody answers on is an error on `address` that says what to
// check.
func TestAccHostDataSource(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "facts", "facts-1")
	h, err := c.Host("facts-1")
	if err != nil {
		t.Fatal(err)
	}
	osID, osVersion := osRelease(t)
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	addr := "data.cp_host.n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: accProvider(c, "") + `
data "cp_host" "n" {
  address = "` + h.Addr + `"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("hostname"), knownvalue.StringExact("facts-1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("os"), knownvalue.StringExact(osID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("os_version"), knownvalue.StringExact(osVersion)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("arch"), knownvalue.StringExact(arch)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("cpus"), knownvalue.Int64Exact(int64(runtime.NumCPU()))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("kernel"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+`))),
				},
			},
			{
				Config: accProvider(c, "") + `
data "cp_host" "n" {
  address = "127.0.0.254"
  port    = 1
}`,
				ExpectError: regexp.MustCompile(`(?s)Cannot gather host facts.*Check the address, the SSH user and key`),
			},
		},
	})
}

// osRelease returns ID and VERSION_ID of this machine's /etc/os-release.
func osRelease(t *testing.T) (id, version string) {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch k {
		case "ID":
			id = v
		case "VERSION_ID":
			version = v
		}
	}
	return id, version
}
