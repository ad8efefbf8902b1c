package intent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
)

// ContainerdVersionParam is the kubernetes pack parameter naming the
// containerd release install-container-runtime installs (X.Y.Z, or X.Y).
const ContainerdVersionParam = "containerd_version"

// ContainerdSupport is containerd's RELEASES.md "Kubernetes support"
// table: per Kubernetes minor, the containerd releases recommended (each
// minor from that patch on). install-container-runtime holds the same
// table (support_table); a test compares them.
var ContainerdSupport = map[string][]string{
	"1.30": {"2.1.0", "2.0.0", "1.7.13", "1.6.28"},
	"1.31": {"2.1.0", "2.0.0", "1.7.20", "1.6.34"},
	"1.32": {"2.1.0", "2.0.1", "1.7.24", "1.6.36"},
	"1.33": {"2.1.0", "2.0.4", "1.7.24", "1.6.36"},
	"1.34": {"2.1.3", "2.0.6", "1.7.28", "1.6.39"},
	"1.35": {"2.2.0", "2.1.5", "1.7.28"},
	"1.36": {"2.3.0", "2.2.0"},
}

var containerdVersionRE = regexp.MustCompile(`^([0-9]{1,3})\.([0-9]{1,3})(?:\.([0-9]{1,4}))?$`)

// ContainerdSupported reports whether containerd version (X.Y.Z, or X.Y
// for its minor alone) is recommended for Kubernetes minor kube (1.34):
// at least the release the table gives for its minor, or of a minor newer
// than every one the row lists. known is false without a row.
func ContainerdSupported(kube, version string) (ok, known bool) {
	row, known := ContainerdSupport[kube]
	m := containerdVersionRE.FindStringSubmatch(version)
	if !known || m == nil {
		return false, known
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	newest := true
	for _, r := range row {
		rm := containerdVersionRE.FindStringSubmatch(r)
		rMajor, _ := strconv.Atoi(rm[1])
		rMinor, _ := strconv.Atoi(rm[2])
		if rMajor == major && rMinor == minor {
			if m[3] == "" {
				return true, true
			}
			patch, _ := strconv.Atoi(m[3])
			rPatch, _ := strconv.Atoi(rm[3])
			return patch >= rPatch, true
		}
		if rMajor > major || (rMajor == major && rMinor > minor) {
			newest = false
		}
	}
	return newest, true
}

// CheckContainerdVersion checks parameters' containerd_version against the
// cluster's Kubernetes version when both are set: a containerd below what
// containerd's RELEASES.md recommends for that Kubernetes minor is
// refused at plan, before any host is touched (the script refuses it too,
// and a minor's patch it checks once the repository names it).
func CheckContainerdVersion(params map[string]string, kubernetesVersion string) Problems {
	var ps Problems
	v := params[ContainerdVersionParam]
	parts := strings.Split(strings.TrimPrefix(kubernetesVersion, "v"), ".")
	if v == "" || len(parts) != 3 || !containerdVersionRE.MatchString(v) {
		return ps
	}
	kube := parts[0] + "." + parts[1]
	ok, known := ContainerdSupported(kube, v)
	if ok || !known {
		return ps
	}
	row := ContainerdSupport[kube]
	ps.add(Root("parameters").Key(ContainerdVersionParam), "containerd too old for this Kubernetes",
		"containerd %s is below what containerd's RELEASES.md recommends for Kubernetes %s (%s+). Set containerd_version to such a release, "+
			"e.g. %s (containerd_source \"docker\" installs Docker's containerd.io; 2.2 is the default).",
		paramtype.Quote(v), kube, strings.Join(row, "+, "), fmt.Sprintf("%q", row[0][:strings.LastIndex(row[0], ".")]))
	return ps
}
