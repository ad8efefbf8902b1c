package hostsim

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// helmPull is helm pull CHART --repo URL --version V --destination DIR:
// it writes DIR/CHART-V.tgz, a chart archive holding CHART/Chart.yaml of
// that name and version and nothing else (the same bytes for the same
// chart and version, as a repository serves one archive), or fails as
// helm does when the repository's host does not resolve.
func (s *sim) helmPull(p flags) int {
	chart, repo, dest := p.arg(1), p.get("repo"), p.get("destination")
	version := strings.TrimPrefix(p.get("version"), "v")
	if chart == "" {
		return s.fail(1, "Error: \"helm pull\" requires at least 1 argument")
	}
	if repo == "" || version == "" || dest == "" {
		return s.notEmulated("helm", "pull", chart, "(without --repo, --version and --destination)")
	}
	var msg string
	_ = s.st.view(func(st *State) error {
		msg = s.chartError(st, repo)
		return nil
	})
	if msg != "" {
		return s.fail(1, "Error: %s", msg)
	}
	b, err := pulledChart(repo, chart, version)
	if err != nil {
		return s.fail(1, "cp-hostsim helm pull: %v", err)
	}
	if err := s.writeHostFile(path.Join(dest, chart+"-"+version+".tgz"), string(b), 0o644); err != nil {
		return s.fail(1, "Error: failed to untar: %v", err)
	}
	return 0
}

// PinnedCiliumRepo, PinnedCiliumVersion: the Cilium chart install-cni
// installs, from Cilium's Helm repository (served from the cilium/charts
// repository, whose index gives the archive's digest).
const (
	PinnedCiliumRepo    = "https://helm.cilium.io/"
	PinnedCiliumVersion = "1.19.6"
)

//go:embed manifests/cilium-1.19.6.tgz
var pinnedCilium []byte

// PinnedCiliumChart is the real archive of the pinned Cilium chart, the
// bytes helm pull writes for it.
func PinnedCiliumChart() []byte { return pinnedCilium }

// pulledChart is the archive helm pull writes: the real bytes of the
// pinned Cilium chart from its repository, else chartArchive.
func pulledChart(repo, chart, version string) ([]byte, error) {
	if chart == "cilium" && version == PinnedCiliumVersion && strings.TrimSuffix(repo, "/")+"/" == PinnedCiliumRepo {
		return pinnedCilium, nil
	}
	return chartArchive(chart, version)
}

// chartArchive is the gzipped tar of a chart holding NAME/Chart.yaml alone,
// with fixed times so its bytes depend on name and version only.
func chartArchive(name, version string) ([]byte, error) {
	meta := fmt.Sprintf("apiVersion: v2\nname: %s\nversion: %s\n", name, version)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	hdr := &tar.Header{Name: name + "/Chart.yaml", Mode: 0o644, Size: int64(len(meta)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, fmt.Errorf("chart archive header: %w", err)
	}
	if _, err := tw.Write([]byte(meta)); err != nil {
		return nil, fmt.Errorf("chart archive: %w", err)
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("chart archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("chart archive: %w", err)
	}
	return buf.Bytes(), nil
}

// chartMeta reads the name and version of the chart in a chart archive
// (its first */Chart.yaml), as helm does for a local chart path.
func chartMeta(b []byte) (name, version string, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", "", fmt.Errorf("file is not a chart archive: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", "", errors.New("Chart.yaml file is missing")
		}
		if err != nil {
			return "", "", fmt.Errorf("file is not a chart archive: %w", err)
		}
		if dir, file := path.Split(h.Name); file != "Chart.yaml" || strings.Count(dir, "/") != 1 {
			continue
		}
		raw, err := io.ReadAll(tr)
		if err != nil {
			return "", "", fmt.Errorf("read Chart.yaml: %w", err)
		}
		var m struct{ Name, Version string }
		if err := yaml.Unmarshal(raw, &m); err != nil {
			return "", "", fmt.Errorf("Chart.yaml: %w", err)
		}
		return m.Name, m.Version, nil
	}
}
