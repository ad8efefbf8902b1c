package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
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

	// Without a digest the URL is applied as it is.
	h = host(t)
	succeeded(t, h.run(script, packEnv(t, "kubernetes", nil)))
	if f := applied(h.log(h.calls)); f != upstream {
		t.Errorf("without cni_manifest_sha256 applied %q, want %s", f, upstream)
	}
}
