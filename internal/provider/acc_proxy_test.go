package provider

import (
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

func proxyCluster(c *testhosts.Cluster, proxy string) string {
	return `
resource "cp_kubernetes_cluster" "px" {
  name    = "px"
  storage = "none"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1") + `
  proxy   = ` + proxy + `
}
`
}

// proxyHostFile reads a file of a test host through its root.
func proxyHostFile(c *testhosts.Cluster, host, name string) (string, error) {
	root, err := c.RootPath(host)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, name))
	return string(b), err
}

// proxyOnHosts checks apt's and containerd's proxy configuration and the
// jobs' environment file on every host of c.
func proxyOnHosts(c *testhosts.Cluster, hosts ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var addrs []string
		for _, h := range hosts {
			th, err := c.Host(h)
			if err != nil {
				return err
			}
			addrs = append(addrs, th.Addr)
		}
		for _, h := range hosts {
			apt, err := proxyHostFile(c, h, "etc/apt/apt.conf.d/90cp-proxy")
			if err != nil {
				return fmt.Errorf("%s: %w", h, err)
			}
			for _, line := range []string{`Acquire::http::Proxy "http://proxy.corp.internal:3128";`, `Acquire::https::Proxy "http://proxy.corp.internal:3128";`} {
				if !strings.Contains(apt, line+"\n") {
					return fmt.Errorf("%s: apt.conf.d/90cp-proxy lacks %s:\n%s", h, line, apt)
				}
			}
			dropin, err := proxyHostFile(c, h, "etc/systemd/system/containerd.service.d/http-proxy.conf")
			if err != nil {
				return fmt.Errorf("%s: %w", h, err)
			}
			for _, line := range []string{"[Service]", `Environment="HTTP_PROXY=http://proxy.corp.internal:3128"`, `Environment="HTTPS_PROXY=http://proxy.corp.internal:3128"`} {
				if !strings.Contains(dropin, line+"\n") {
					return fmt.Errorf("%s: containerd drop-in lacks %s:\n%s", h, line, dropin)
				}
			}
			np := regexp.MustCompile(`(?m)^Environment="NO_PROXY=([^"]*)"$`).FindStringSubmatch(dropin)
			if np == nil {
				return fmt.Errorf("%s: containerd drop-in has no NO_PROXY:\n%s", h, dropin)
			}
			have := map[string]bool{}
			for _, e := range strings.Split(np[1], ",") {
				have[e] = true
			}
			for _, want := range append(addrs, "10.244.0.0/16", "10.96.0.0/12", ".svc", ".cluster.local", "localhost", "127.0.0.1", ".corp.internal") {
				if !have[want] {
					return fmt.Errorf("%s: NO_PROXY %s lacks %s", h, np[1], want)
				}
			}
			root, err := c.RootPath(h)
			if err != nil {
				return err
			}
			st, err := os.Stat(filepath.Join(root, "etc/cp/kubernetes/proxy.env"))
			if err != nil || st.Mode().Perm() != 0o600 {
				return fmt.Errorf("%s: proxy.env %v, want mode 0600", h, err)
			}
		}
		return nil
	}
}

// A cluster with a proxy: a bad proxy URL and a bad no_proxy entry are
// refused at plan on their attribute, before any host is touched; after
// the create, apt's configuration and containerd's systemd drop-in on
// every node hold the proxy, and containerd's NO_PROXY holds both nodes'
// addresses, the pod and service networks, .svc, .cluster.local,
// localhost and 127.0.0.1 besides the configured entry; the jobs'
// environment file is root-only.
func TestAccProxy_aptAndContainerdOnTheHosts(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "px", "master-1", "worker-1")
	good := `{ http = "http://proxy.corp.internal:3128", no_proxy = [".corp.internal"] }`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      accProvider(c, "") + proxyCluster(c, `{ http = "proxy.corp.internal:3128" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid proxy URL.*proxy\.http: "proxy.corp.internal:3128" is not an http\(s\) URL`),
			},
			{
				Config:      accProvider(c, "") + proxyCluster(c, `{ http = "http://p:3128", no_proxy = ["a b"] }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid no_proxy entry.*proxy\.no_proxy\[0\]: "a b" is not a host name`),
			},
			{
				PreConfig: func() {
					if _, err := proxyHostFile(c, "master-1", "etc/apt/apt.conf.d/90cp-proxy"); err == nil {
						t.Fatal("the refused plans wrote apt's proxy file on master-1")
					}
				},
				Config: accProvider(c, "") + proxyCluster(c, good),
				Check:  proxyOnHosts(c, "master-1", "worker-1"),
			},
			{Config: accProvider(c, "") + proxyCluster(c, good), PlanOnly: true},
		},
	})
}
