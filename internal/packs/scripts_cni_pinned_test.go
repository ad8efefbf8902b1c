package packs

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// The pinned flannel and Cilium releases: install-cni pins their URL (or
// repository and version) and their SHA-256, and the digests are those of
// the releases' real bytes, which the simulator serves for them.
const (
	pinnedFlannelSHA256 = "e875824be2f552b45711dbda91af81b17eb961d00025d914d9fef18fad8f09c0"
	pinnedCiliumSHA256  = "21c43cf53841f9ab0375047d95aa4c64051ea52bbd2c679416e6408f5f1c9179"
)

func TestInstallCNIPinnedFlannelAndCilium(t *testing.T) {
	if got := sha256Hex(hostsim.ManifestAt(hostsim.PinnedFlannelURL)); got != pinnedFlannelSHA256 {
		t.Errorf("the pinned flannel manifest has sha256 %s, want %s", got, pinnedFlannelSHA256)
	}
	if got := sha256Hex(hostsim.PinnedCiliumChart()); got != pinnedCiliumSHA256 {
		t.Errorf("the pinned cilium chart has sha256 %s, want %s", got, pinnedCiliumSHA256)
	}
	body := readFile(t, "builtin/kubernetes/scripts/install-cni.sh")
	for _, want := range []string{
		"pinned_flannel=" + hostsim.PinnedFlannelURL + "\n", "pinned_flannel_sha256=" + pinnedFlannelSHA256 + "\n",
		"pinned_cilium_repo=" + hostsim.PinnedCiliumRepo + "\n", "pinned_cilium_version=" + hostsim.PinnedCiliumVersion + "\n",
		"pinned_cilium_sha256=" + pinnedCiliumSHA256 + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("install-cni.sh does not pin %q", strings.TrimSpace(want))
		}
	}
}

// flannel without cni_manifest: the pinned release is downloaded, checked
// against its SHA-256 and applied from the checked copy; other bytes apply
// nothing. With cni_manifest and cni_manifest_sha256 the user's manifest
// is checked instead.
func TestInstallCNIFlannelChecksum(t *testing.T) {
	const script = "kubernetes/scripts/install-cni.sh"
	env := func(set map[string]string) map[string]string {
		set["cni"] = "flannel"
		return packEnv(t, "kubernetes", set)
	}
	serve := func(h *scriptHost, body []byte) {
		h.write("/.served", string(body))
		h.stub("curl", `while [ $# -gt 0 ]; do if [ "$1" = -o ]; then cp "`+h.path("/.served")+`" "$2"; fi; shift; done`)
	}
	applied := func(calls string) string {
		for _, l := range strings.Split(calls, "\n") {
			if i := strings.Index(l, " apply -f "); i >= 0 {
				return l[i+len(" apply -f "):]
			}
		}
		return ""
	}

	h := newScriptHost(t)
	serve(h, hostsim.ManifestAt(hostsim.PinnedFlannelURL))
	res := h.run(script, env(map[string]string{}))
	succeeded(t, res)
	calls := h.log(h.calls)
	if !strings.Contains(calls, "/kube-flannel.yml "+hostsim.PinnedFlannelURL+"\n") {
		t.Errorf("the pinned flannel manifest was not downloaded:\n%s", calls)
	}
	if f := applied(calls); !strings.HasSuffix(f, "/kube-flannel.yml") || strings.HasPrefix(f, "http") {
		t.Errorf("applied %q, want the checked copy", f)
	}
	if !strings.Contains(res.stdout, hostsim.PinnedFlannelURL+" matches the pinned release's sha256") {
		t.Errorf("no word of the check:\n%s", res.stdout)
	}

	h = newScriptHost(t)
	serve(h, []byte("kind: DaemonSet\n"))
	refused(t, h, h.run(script, env(map[string]string{})),
		"the flannel manifest "+hostsim.PinnedFlannelURL+" has sha256 "+sha256Hex([]byte("kind: DaemonSet\n"))+", not the pinned release's sha256 "+pinnedFlannelSHA256+"; nothing was applied")
	if f := applied(h.log(h.calls)); f != "" {
		t.Errorf("a manifest that is not the pinned release's was applied: %s", f)
	}

	h = newScriptHost(t)
	own := []byte("kind: DaemonSet\nmetadata: {name: kube-flannel-ds}\n")
	h.write("/srv/flannel.yml", string(own))
	succeeded(t, h.run(script, env(map[string]string{"cni_manifest": h.path("/srv/flannel.yml"), "cni_manifest_sha256": sha256Hex(own)})))
	if f := applied(h.log(h.calls)); !strings.HasSuffix(f, "/kube-flannel.yml") || strings.HasPrefix(f, h.path("/srv")) {
		t.Errorf("the user's manifest was not applied from its checked copy: %q", f)
	}
}

// cilium: the chart of the pinned version is pulled from Cilium's
// repository (or cni_manifest's), checked against the pinned digest (or
// cni_manifest_sha256) and installed from the checked archive, never by
// --repo; a chart with other bytes installs nothing; an archive on the
// master is copied, checked and installed from the copy.
func TestInstallCNICiliumChartChecksum(t *testing.T) {
	const script = "kubernetes/scripts/install-cni.sh"
	env := func(set map[string]string) map[string]string {
		set["cni"] = "cilium"
		return packEnv(t, "kubernetes", set)
	}
	host := func(t *testing.T, chart []byte) *scriptHost {
		h := newScriptHost(t)
		h.write("/.pulled.tgz", string(chart))
		h.stub("helm", `case "$1" in pull)
  while [ $# -gt 0 ]; do [ "$1" != --destination ] || cp "`+h.path("/.pulled.tgz")+`" "$2/cilium-1.19.6.tgz"; shift; done ;;
esac`)
		return h
	}
	upgrade := func(calls string) string {
		for _, l := range strings.Split(calls, "\n") {
			if strings.HasPrefix(l, "helm upgrade ") {
				return l
			}
		}
		return ""
	}
	fromCopy := func(t *testing.T, h *scriptHost) {
		t.Helper()
		u := upgrade(h.log(h.calls))
		if !strings.HasPrefix(u, "helm upgrade --install cilium "+h.root+"/.tmp/") || !strings.Contains(u, "/cilium.tgz --namespace kube-system ") || strings.Contains(u, "--repo") {
			t.Errorf("helm was not given the checked copy of the chart: %q", u)
		}
	}

	h := host(t, hostsim.PinnedCiliumChart())
	res := h.run(script, env(map[string]string{}))
	succeeded(t, res)
	if calls := h.log(h.calls); !strings.Contains(calls, "helm pull cilium --repo https://helm.cilium.io/ --version 1.19.6 --destination ") {
		t.Errorf("the pinned chart was not pulled:\n%s", calls)
	}
	fromCopy(t, h)
	if !strings.Contains(res.stdout, "the cilium chart https://helm.cilium.io/ matches the pinned chart's sha256") {
		t.Errorf("no word of the check:\n%s", res.stdout)
	}

	other := chartTgz(t, "1.19.6")
	h = host(t, other)
	refused(t, h, h.run(script, env(map[string]string{})),
		"the cilium chart https://helm.cilium.io/ has sha256 "+sha256Hex(other)+", not the pinned chart's sha256 "+pinnedCiliumSHA256+"; nothing was installed")
	if u := upgrade(h.log(h.calls)); u != "" {
		t.Errorf("a chart that is not the pinned one was installed: %s", u)
	}

	h = host(t, other)
	succeeded(t, h.run(script, env(map[string]string{"cni_manifest": "http://10.0.0.5:8080/charts", "cni_manifest_sha256": sha256Hex(other)})))
	if calls := h.log(h.calls); !strings.Contains(calls, "helm pull cilium --repo http://10.0.0.5:8080/charts --version 1.19.6 ") {
		t.Errorf("the chart was not pulled from the mirror:\n%s", calls)
	}
	fromCopy(t, h)

	h = host(t, other)
	h.write("/srv/cilium.tgz", string(other))
	succeeded(t, h.run(script, env(map[string]string{"cni_manifest": h.path("/srv/cilium.tgz"), "cni_manifest_sha256": sha256Hex(other)})))
	fromCopy(t, h)
	refused(t, h, h.run(script, env(map[string]string{"cni_manifest": h.path("/srv/cilium.tgz"), "cni_manifest_sha256": pinnedCiliumSHA256})),
		"not cni_manifest_sha256 "+pinnedCiliumSHA256+"; nothing was installed")
	refused(t, h, h.run(script, env(map[string]string{"cni_manifest": h.path("/srv/none.tgz")})), "the cilium chart "+h.path("/srv/none.tgz")+" does not exist")
}
