package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// install-cni with cni_manifest_sha256: the manifest (the pinned calico
// release URL, or a path on the master) is fetched to a file, checked with
// sha256sum -c and only that file is applied; another digest fails naming
// both digests and applies nothing; a digest not of its form is refused
// before anything runs. Without it the URL is applied as before.
func TestInstallCNIManifestChecksum(t *testing.T) {
	const script = "kubernetes/scripts/install-cni.sh"
	const manifest = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: calico-node, namespace: kube-system}\n"
	sum := sha256.Sum256([]byte(manifest))
	digest := hex.EncodeToString(sum[:])
	const upstream = "https://raw.githubusercontent.com/projectcalico/calico/v3.31.7/manifests/calico.yaml"
	host := func(t *testing.T) *scriptHost {
		h := newScriptHost(t)
		h.stub("curl", `while [ $# -gt 0 ]; do if [ "$1" = -o ]; then printf '`+strings.ReplaceAll(manifest, "\n", `\n`)+`' >"$2"; fi; shift; done`)
		return h
	}
	applied := func(calls string) string {
		for _, l := range strings.Split(calls, "\n") {
			if strings.Contains(l, " apply -f ") {
				return l[strings.Index(l, " apply -f ")+len(" apply -f "):]
			}
		}
		return ""
	}

	h := host(t)
	res := h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest_sha256": digest}))
	succeeded(t, res)
	calls := h.log(h.calls)
	if !strings.Contains(calls, "curl -fsSL -o ") || !strings.Contains(calls, "/calico.yaml "+upstream+"\n") {
		t.Errorf("the pinned manifest was not downloaded to calico.yaml:\n%s", calls)
	}
	if f := applied(calls); !strings.HasSuffix(f, "/calico.yaml") || strings.HasPrefix(f, "http") {
		t.Errorf("applied %q, want the checked local calico.yaml:\n%s", f, calls)
	}
	if !strings.Contains(res.stdout, upstream+" matches cni_manifest_sha256") {
		t.Errorf("no word of the check:\n%s", res.stdout)
	}

	// A wrong digest: nothing applied, both digests named.
	h = host(t)
	wrong := strings.Repeat("0", 64)
	res = h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest_sha256": wrong}))
	refused(t, h, res, "the calico manifest "+upstream+" has sha256 "+digest+", not cni_manifest_sha256 "+wrong+"; nothing was applied")
	if f := applied(h.log(h.calls)); f != "" {
		t.Errorf("a manifest with the wrong digest was applied: %s", f)
	}

	// A manifest on the master, by path: copied, checked, applied.
	h = host(t)
	h.write("/srv/calico.yaml", manifest)
	succeeded(t, h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest": h.path("/srv/calico.yaml"), "cni_manifest_sha256": digest})))
	if calls := h.log(h.calls); strings.Contains(calls, "curl") || !strings.HasSuffix(applied(calls), "/calico.yaml") || strings.HasPrefix(applied(calls), h.path("/srv")) {
		t.Errorf("a local manifest was not copied, checked and applied from the copy:\n%s", calls)
	}
	h.write("/srv/calico.yaml", manifest+"# changed\n")
	refused(t, h, h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest": h.path("/srv/calico.yaml"), "cni_manifest_sha256": digest})),
		"not cni_manifest_sha256 "+digest+"; nothing was applied")

	// Not a digest: refused before anything runs.
	h = host(t)
	refused(t, h, h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest_sha256": digest[:63] + "Z;touch " + h.canary})), "cni_manifest_sha256 ")
	if calls := h.log(h.calls); calls != "" {
		t.Errorf("commands ran before the refusal:\n%s", calls)
	}

	// Without a digest the pinned release is checked against its own
	// SHA-256: a manifest with other bytes applies nothing, the release's
	// real manifest is applied from the checked copy.
	h = host(t)
	refused(t, h, h.run(script, packEnv(t, "kubernetes", nil)),
		"the calico manifest "+upstream+" has sha256 "+digest+", not the pinned release's sha256 "+pinnedCalicoSHA256+"; nothing was applied")
	if f := applied(h.log(h.calls)); f != "" {
		t.Errorf("a manifest that is not the pinned release's was applied: %s", f)
	}
	h = newScriptHost(t)
	res = h.run(script, packEnv(t, "kubernetes", nil))
	succeeded(t, res)
	if f := applied(h.log(h.calls)); !strings.HasSuffix(f, "/calico.yaml") || strings.HasPrefix(f, "http") {
		t.Errorf("the pinned release was not applied from its checked copy: %q", f)
	}
	if !strings.Contains(res.stdout, upstream+" matches the pinned release's sha256") {
		t.Errorf("no word of the check:\n%s", res.stdout)
	}

	// A manifest of the user's without a digest is applied as it is.
	h = host(t)
	const mirror = "https://mirror.example/calico.yaml"
	succeeded(t, h.run(script, packEnv(t, "kubernetes", map[string]string{"cni_manifest": mirror})))
	if f := applied(h.log(h.calls)); f != mirror {
		t.Errorf("cni_manifest without cni_manifest_sha256 applied %q, want %s", f, mirror)
	}
}

// pinnedCalicoSHA256 is the digest install-cni pins for its calico
// release: the SHA-256 of that release's manifests/calico.yaml.
const pinnedCalicoSHA256 = "d6d8a489a4ed8e5b8efd8b339047b496ca657b55ee2e3618e791507b0a853e8d"

// The pinned digest is the digest of the pinned release's real manifest
// (the bytes the simulator serves for its URL), and the script pins both.
func TestInstallCNIPinnedCalico(t *testing.T) {
	sum := sha256.Sum256(hostsim.ManifestAt(hostsim.PinnedCalicoURL))
	if got := hex.EncodeToString(sum[:]); got != pinnedCalicoSHA256 {
		t.Errorf("the pinned calico manifest has sha256 %s, want %s", got, pinnedCalicoSHA256)
	}
	body := readFile(t, "builtin/kubernetes/scripts/install-cni.sh")
	if !strings.Contains(body, "pinned_calico="+hostsim.PinnedCalicoURL+"\n") || !strings.Contains(body, "pinned_calico_sha256="+pinnedCalicoSHA256+"\n") {
		t.Errorf("install-cni.sh does not pin %s at %s", hostsim.PinnedCalicoURL, pinnedCalicoSHA256)
	}
}
