package hostsim

import "testing"

// TestMinioVolumeClaim: the MinIO release's data volume claim is Bound
// only when the StorageClass its values name exists or, naming none, when
// the cluster has a StorageClass; Pending otherwise.
func TestMinioVolumeClaim(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, true)
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	phase := func() string {
		return e.must("master-1", "kubectl", kc, "-n", "minio", "get", "persistentvolumeclaim", "minio", "-o", "jsonpath={.status.phase}").out
	}
	minio := func(values string) {
		e.write("master-1", "/root/values.yaml", values)
		e.must("master-1", "helm", "upgrade", "--install", "minio", "minio", "--repo", "https://charts.min.io/", "--version", "5.3.0",
			"--namespace", "minio", "--create-namespace", "--values", "/root/values.yaml", kc)
	}
	minio("persistence:\n  size: 10Gi\n")
	if got := phase(); got != "Pending" {
		t.Fatalf("claim without any StorageClass: %q, want Pending", got)
	}
	e.must("master-1", "helm", "upgrade", "--install", "longhorn", "longhorn", "--repo", "https://charts.longhorn.io", "--version", "1.7.2",
		"--namespace", "longhorn-system", "--create-namespace", kc, "--wait")
	if got := phase(); got != "Bound" {
		t.Fatalf("claim with the default StorageClass: %q, want Bound", got)
	}
	minio("persistence:\n  size: 10Gi\n  storageClass: fast\n")
	if got := phase(); got != "Pending" {
		t.Fatalf("claim naming a missing StorageClass: %q, want Pending", got)
	}
	minio("persistence:\n  size: 10Gi\n  storageClass: longhorn\n")
	if got := phase(); got != "Bound" {
		t.Fatalf("claim naming longhorn: %q, want Bound", got)
	}
}
