package packs

import (
	"strings"
	"testing"
)

// TestInstallMinioVolume: the data volume defaults to 10Gi (500Gi with no
// StorageClass stayed Pending on most clusters); storage_class reaches
// the chart's values and must exist; the install and its evidence fail
// unless the claim is Bound.
func TestInstallMinioVolume(t *testing.T) {
	const script, file = "minio/scripts/install-minio.sh", "minio/jobs/install-minio.yaml"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	bound := func(phase string) string {
		return `case " $* " in *" get persistentvolumeclaim "*) printf '` + phase + `' ;; *" get storageclass missing "*) echo 'Error from server (NotFound): storageclasses.storage.k8s.io "missing" not found' >&2; exit 1 ;; esac`
	}
	h := newScriptHost(t)
	h.stub("kubectl", bound("Bound"))
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "minio", nil), arts)))
	docs := yamlDocs(t, h.log(h.values))
	if len(docs) != 1 || dig(docs[0], "persistence", "size") != "10Gi" || dig(docs[0], "persistence", "storageClass") != nil ||
		docs[0]["fullnameOverride"] != "minio" {
		t.Errorf("values = %v; want 10Gi, the default StorageClass and the release name as the full name", docs)
	}

	h = newScriptHost(t)
	h.stub("kubectl", bound("Bound"))
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "minio", map[string]string{"storage_class": "longhorn"}), arts)))
	if docs := yamlDocs(t, h.log(h.values)); dig(docs[0], "persistence", "storageClass") != "longhorn" {
		t.Errorf("values = %v; want storageClass longhorn", docs)
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "get storageclass longhorn -o name") {
		t.Errorf("the StorageClass is not checked:\n%s", calls)
	}

	h = newScriptHost(t)
	h.stub("kubectl", bound("Bound"))
	refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "minio", map[string]string{"storage_class": "missing"}), arts)), "StorageClass missing (storage_class) does not exist")
	if calls := h.log(h.calls); strings.Contains(calls, "helm upgrade") {
		t.Errorf("helm ran for a missing StorageClass:\n%s", calls)
	}

	h = newScriptHost(t)
	h.stub("kubectl", bound("Pending"))
	refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "minio", nil), arts)), "is Pending, not Bound")
	if h.exists("/.out/object_storage.s3.endpoint") {
		t.Errorf("an endpoint was published for a Pending volume")
	}
	for _, c := range []struct {
		phase string
		ok    bool
	}{{"Bound", true}, {"Pending", false}, {"", false}} {
		h := newScriptHost(t)
		h.stub("kubectl", bound(c.phase))
		if ok, got := h.evidence(file, "data_volume_bound", h.artifactEnv(packEnv(t, "minio", nil), arts)); ok != c.ok {
			t.Errorf("data_volume_bound with phase %q: %v (%q), want %v", c.phase, ok, got, c.ok)
		}
	}
}
