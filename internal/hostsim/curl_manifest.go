package hostsim

import (
	"bytes"
	_ "embed"
	"regexp"

	"gopkg.in/yaml.v3"
)

// cniManifestURL matches the release manifests of calico and flannel that
// install-cni downloads when it checks their SHA-256 (there is no internet
// to fetch them from).
var cniManifestURL = regexp.MustCompile(`^https://(raw\.githubusercontent\.com/projectcalico/calico/v[0-9]+\.[0-9]+\.[0-9]+/manifests/calico\.yaml|` +
	`raw\.githubusercontent\.com/flannel-io/flannel/v[0-9]+\.[0-9]+\.[0-9]+/Documentation/kube-flannel\.yml|` +
	`github\.com/flannel-io/flannel/releases/download/v[0-9]+\.[0-9]+\.[0-9]+/kube-flannel\.yml)$`)

// CNIManifest is the manifest the simulator's curl serves for a CNI
// (calico, flannel): the objects kubectl apply creates from the release
// URL (knownManifest), as a YAML stream, the same bytes every time. Tests
// compute its SHA-256 from it; nil for another CNI.
func CNIManifest(cni string) []byte {
	docs := knownManifest(cni)
	if docs == nil {
		return nil
	}
	var b bytes.Buffer
	for _, d := range docs {
		out, err := yaml.Marshal(d)
		if err != nil {
			panic(err) // plain maps of strings, numbers and bools
		}
		b.WriteString("---\n")
		b.Write(out)
	}
	return b.Bytes()
}

// PinnedCalicoURL is the calico release install-cni applies by default.
// Its manifest is checked against the SHA-256 the pack pins, so the
// simulator serves that release's real bytes
// (manifests/calico-v3.31.7.yaml, the release's manifests/calico.yaml),
// not a manifest of its own.
const PinnedCalicoURL = "https://raw.githubusercontent.com/projectcalico/calico/v3.31.7/manifests/calico.yaml"

//go:embed manifests/calico-v3.31.7.yaml
var pinnedCalico []byte

// PinnedFlannelURL is the flannel release install-cni applies by default:
// the release tag's Documentation/kube-flannel.yml, whose images are that
// release's. The simulator serves its real bytes
// (manifests/kube-flannel-v0.28.9.yml, read from the tag).
const PinnedFlannelURL = "https://raw.githubusercontent.com/flannel-io/flannel/v0.28.9/Documentation/kube-flannel.yml"

//go:embed manifests/kube-flannel-v0.28.9.yml
var pinnedFlannel []byte

// ManifestAt is what the simulator's curl writes for a CNI release URL:
// the real bytes of PinnedCalicoURL and PinnedFlannelURL, else
// CNIManifest of the URL's CNI.
func ManifestAt(u string) []byte {
	switch u {
	case PinnedCalicoURL:
		return pinnedCalico
	case PinnedFlannelURL:
		return pinnedFlannel
	}
	return CNIManifest(cniOf(u))
}

// curlManifest is curl -fsSL -o FILE URL of a CNI release manifest: the
// file gets ManifestAt(URL); a host that cannot resolve names fails with
// curl's exit 6. Without -o (to stdout) it is not emulated.
func (s *sim) curlManifest(p flags, u string) int {
	out := p.get("o")
	if out == "" || out == "/dev/null" {
		return s.notEmulated("curl", "(a CNI manifest without -o FILE)")
	}
	if broken, _ := s.resolveBroken(); broken {
		if !p.has("s") || p.has("S") {
			s.fail(6, "curl: (6) Could not resolve host: %s", repoHost(u))
		}
		return 6
	}
	if err := s.writeHostFile(out, string(ManifestAt(u)), 0o644); err != nil {
		return s.fail(23, "curl: (23) Failure writing output to destination: %v", err)
	}
	return 0
}
