package packs

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// kubeadmStub replaces the harness's kubeadm stub with one that runs the
// real kubeadm wherever it works offline, in the scratch root:
//
//   - init and join copy their --config file into $CP_TEST_KUBEADM_CONFIGS
//     (numbered, in call order) for the test to validate;
//   - init writes the PKI and admin.conf the way `kubeadm init` does, with
//     `kubeadm init phase certs all` and `kubeadm init phase kubeconfig
//     admin` on the rendered configuration. Its only changes: certificatesDir
//     points into the scratch root (kubeadm refuses --cert-dir beside
//     --config) and, when $CP_TEST_KUBEADM_PHASE_VERSION is set, the
//     kubernetesVersion is that one (kubeadm deploys only control planes of
//     its own minor version and the two before it);
//   - token create and init phase upload-certs run with --dry-run against
//     that admin.conf and PKI, so no API server is needed; token create
//     prints only the join command, as it does without --dry-run, and keeps
//     its whole output in .kubeadm/token-create.out.
//
// A dry run still asks the API server whether the objects exist; every
// request goes to a proxy on a closed loopback port (kubeadmNoNetwork), so
// none leaves the machine and no name is looked up.
//
// Any other kubeadm command fails: the scripts under test use no other.
const kubeadmStub = `#!/bin/sh
__l=kubeadm; for a in "$@"; do __l="$__l $a"; done; printf '%s\n' "$__l" >>"$CP_TEST_CALLS"
set -eu
export HTTPS_PROXY=http://127.0.0.1:1 HTTP_PROXY=http://127.0.0.1:1 NO_PROXY= https_proxy= http_proxy= no_proxy=
real=$CP_TEST_KUBEADM
k8s=$CP_TEST_ROOT/etc/kubernetes
state=$CP_TEST_ROOT/.kubeadm
phases=$state/phases.yaml
mkdir -p "$state" "$CP_TEST_KUBEADM_CONFIGS"
config=
prev=
for a in "$@"; do
  if [ "$prev" = --config ]; then config=$a; fi
  prev=$a
done
capture() {
  [ -n "$config" ] || { echo "kubeadm stub: kubeadm $1 without --config" >&2; exit 2; }
  n=$(find "$CP_TEST_KUBEADM_CONFIGS" -type f | wc -l)
  cp "$config" "$CP_TEST_KUBEADM_CONFIGS/$(printf %02d "$n")-$1.yaml"
}
case "$*" in
"init --config "*)
  capture init
  awk -v dir="$k8s/pki" -v version="${CP_TEST_KUBEADM_PHASE_VERSION:-}" '
    version != "" && $1 == "kubernetesVersion:" { $0 = "kubernetesVersion: \"" version "\"" }
    { print }
    $0 == "kind: ClusterConfiguration" { print "certificatesDir: \"" dir "\"" }' "$config" >"$phases"
  grep -q '^certificatesDir: ' "$phases" || { echo "kubeadm stub: no ClusterConfiguration in $config" >&2; exit 2; }
  "$real" init phase certs all --config "$phases"
  "$real" init phase kubeconfig admin --config "$phases" --kubeconfig-dir "$k8s"
  ;;
"join --config "*)
  capture join
  ;;
"token create "*)
  "$real" "$@" --dry-run --kubeconfig "$k8s/admin.conf" >"$state/token-create.out"
  grep '^kubeadm join ' "$state/token-create.out"
  ;;
"init phase upload-certs "*)
  KUBEADM_INIT_DRYRUN_DIR=$k8s "$real" "$@" --dry-run --config "$phases"
  ;;
*)
  echo "kubeadm stub: not emulated: kubeadm $*" >&2
  exit 2
  ;;
esac
`

// kubeadmHost is a scratch host whose kubeadm is the real one through
// kubeadmStub.
type kubeadmHost struct {
	*scriptHost
	kubeadm string // the real binary
	configs string // the configurations kubeadm init and join were given
}

func newKubeadmHost(t *testing.T, kubeadm string) *kubeadmHost {
	t.Helper()
	h := &kubeadmHost{scriptHost: newScriptHost(t), kubeadm: kubeadm}
	h.configs = filepath.Join(h.root, ".kubeadm-configs")
	if err := os.WriteFile(filepath.Join(h.bin, "kubeadm"), []byte(kubeadmStub), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// env adds what kubeadmStub reads to a script's environment.
func (h *kubeadmHost) env(env map[string]string) map[string]string {
	env["CP_TEST_KUBEADM"] = h.kubeadm
	env["CP_TEST_ROOT"] = h.root
	env["CP_TEST_KUBEADM_CONFIGS"] = h.configs
	return env
}

// captured returns the configuration files kubeadm was given, in call order.
func (h *kubeadmHost) captured() []string {
	h.t.Helper()
	files, err := filepath.Glob(filepath.Join(h.configs, "*.yaml"))
	if err != nil {
		h.t.Fatal(err)
	}
	sort.Strings(files)
	return files
}
