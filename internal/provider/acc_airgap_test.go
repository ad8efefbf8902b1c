package provider

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

const (
	airgapAptRepo   = "https://apt.mirror.internal/k8s/v{minor}/deb/"
	airgapKeyPath   = "/srv/cp-airgap/kubernetes.asc"
	airgapImageRepo = "registry.mirror.internal:5000/k8s"
)

// airgapKeyPayload is what the key file dearmors to: its length is no
// multiple of 3, so its base64 ends in padding, which gpg needs to find
// the end of an armor without a checksum line.
const airgapKeyPayload = "air-gap mirror key!"

// airgapKey is an ASCII-armored block that gpg --dearmor turns into its
// payload (the simulated apt-get checks no signature).
var airgapKey = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + base64.StdEncoding.EncodeToString([]byte(airgapKeyPayload)) + "\n-----END PGP PUBLIC KEY BLOCK-----\n"

func airgapCluster(c *testhosts.Cluster) string {
	return `
resource "cp_kubernetes_cluster" "ag" {
  name    = "ag"
  storage = "none"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1") + `
  parameters = {
    kubernetes_apt_repository = "` + airgapAptRepo + `"
    kubernetes_apt_key        = "` + airgapKeyPath + `"
    image_repository          = "` + airgapImageRepo + `"
  }
}
`
}

// airgapOnHosts checks, on every host, the Kubernetes apt source naming
// the mirror and the keyring dearmored from the key file, containerd's
// sandbox image in its real configuration from the image repository, and
// on the first master the ClusterConfiguration's imageRepository.
func airgapOnHosts(c *testhosts.Cluster, hosts ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, h := range hosts {
			root, err := c.RootPath(h)
			if err != nil {
				return err
			}
			read := func(p string) (string, error) {
				b, err := os.ReadFile(filepath.Join(root, p))
				if err != nil {
					return "", fmt.Errorf("%s: %w", h, err)
				}
				return string(b), nil
			}
			list, err := read("etc/apt/sources.list.d/kubernetes.list")
			if err != nil {
				return err
			}
			if want := "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://apt.mirror.internal/k8s/v1.34/deb/ /\n"; list != want {
				return fmt.Errorf("%s: kubernetes.list = %q, want %q", h, list, want)
			}
			if key, err := read("etc/apt/keyrings/kubernetes-apt-keyring.gpg"); err != nil || key != airgapKeyPayload {
				return fmt.Errorf("%s: keyring %q (%v), want the key file dearmored", h, key, err)
			}
			conf, err := read("etc/containerd/config.toml")
			if err != nil {
				return err
			}
			// sandbox_image (containerd 1.x) or pinned_images' sandbox (2.x).
			if want := regexp.MustCompile(`(?m)^\s*(sandbox_image|sandbox) = ["']` + regexp.QuoteMeta(airgapImageRepo) + `/pause:`); !want.MatchString(conf) {
				return fmt.Errorf("%s: containerd's config.toml has no sandbox image from %s:\n%s", h, airgapImageRepo, conf)
			}
		}
		cfg, err := os.ReadFile(filepath.Join(must1(c.RootPath(hosts[0])), "var/lib/cp/kubernetes/kubeadm-cluster.yaml"))
		if err != nil {
			return fmt.Errorf("%s: %w", hosts[0], err)
		}
		if want := `imageRepository: "` + airgapImageRepo + `"` + "\n"; !strings.Contains(string(cfg), want) {
			return fmt.Errorf("%s: kubeadm-cluster.yaml lacks %s:\n%s", hosts[0], want, cfg)
		}
		return nil
	}
}

func must1(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// An air-gapped create: with kubernetes_apt_repository, kubernetes_apt_key
// as a path on the hosts and image_repository, every node's apt source
// names the mirror signed by the key file, containerd (the real one of
// the test hosts) runs with the repository's pause image and kubeadm's
// ClusterConfiguration names the repository; the create's evidence
// (containerd_sandbox_image, kubeadm_image_repository) holds, and a second
// plan is empty.
func TestAccAirgap_sourcesOnTheHosts(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "ag", "master-1", "worker-1")
	for _, h := range []string{"master-1", "worker-1"} {
		root, err := c.RootPath(h)
		must(t, err)
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(airgapKeyPath)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, airgapKeyPath), []byte(airgapKey), 0o644))
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: accProvider(c, "") + airgapCluster(c),
				Check: resource.ComposeAggregateTestCheckFunc(
					airgapOnHosts(c, "master-1", "worker-1"),
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.ag", "operation.status", "Completed"),
				),
			},
			{Config: accProvider(c, "") + airgapCluster(c), PlanOnly: true},
		},
	})
}
