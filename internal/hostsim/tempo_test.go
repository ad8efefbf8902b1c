package hostsim

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// s3Recorder is an S3 endpoint that keeps what is PUT, refusing requests
// not signed with access or, when refuse is set, every request.
type s3Recorder struct {
	mu      sync.Mutex
	access  string
	refuse  bool
	objects map[string]string // path → body
	auths   []string
}

func (r *s3Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	auth := req.Header.Get("Authorization")
	r.auths = append(r.auths, auth)
	if r.refuse || req.Method != http.MethodPut || !strings.Contains(auth, "Credential="+r.access+"/") || req.Header.Get("x-amz-date") == "" {
		http.Error(w, "<Error><Code>InvalidAccessKeyId</Code></Error>", http.StatusForbidden)
		return
	}
	b, _ := io.ReadAll(req.Body)
	r.objects[req.URL.Path] = string(b)
}

func (r *s3Recorder) metas() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for p, b := range r.objects {
		if strings.HasSuffix(p, "/meta.json") {
			out[p] = b
		}
	}
	return out
}

// tempoEnv is a one-master cluster with a tempo release in namespace
// tracing whose values point at the S3 endpoint srv with the keys of the
// Secret tempo-s3 (when secret is set).
func tempoEnv(t *testing.T, srv *httptest.Server, secret bool) *env {
	e := newEnv(t)
	initCluster(t, e, true)
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	host := strings.TrimPrefix(srv.URL, "http://")
	e.write("master-1", "/root/values.yaml", `tempo:
  extraEnvFrom:
    - secretRef: {name: tempo-s3}
  storage:
    trace:
      backend: s3
      s3: {bucket: traces, endpoint: "`+host+`", insecure: true, access_key: "${AWS_ACCESS_KEY_ID}", secret_key: "${AWS_SECRET_ACCESS_KEY}"}
`)
	e.must("master-1", "helm", "upgrade", "--install", "tempo", "tempo", "--repo", "https://grafana.github.io/helm-charts", "--namespace", "tracing",
		"--create-namespace", "--values", "/root/values.yaml", kc)
	if secret {
		e.write("master-1", "/root/ak", "tempo-key")
		e.write("master-1", "/root/sk", "tempo-secret")
		e.must("master-1", "kubectl", "-n", "tracing", "create", "secret", "generic", "tempo-s3", "--from-file=AWS_ACCESS_KEY_ID=/root/ak", "--from-file=AWS_SECRET_ACCESS_KEY=/root/sk")
	}
	return e
}

// applyVerifyJob applies a Job whose container sends trace to service svc.
func applyVerifyJob(e *env, name, svc, trace string) {
	applyTracingJob(e, name, "TRACE", trace, "SVC", svc)
}

// applyTracingJob applies Job name in namespace tracing whose container
// has the environment env (name, value, ...), in that order.
func applyTracingJob(e *env, name string, env ...string) {
	var vars strings.Builder
	for i := 0; i+1 < len(env); i += 2 {
		vars.WriteString("            - {name: " + env[i] + `, value: "` + env[i+1] + "\"}\n")
	}
	e.write("master-1", "/root/job.yaml", `apiVersion: batch/v1
kind: Job
metadata: {name: `+name+`, namespace: tracing}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: verify
          image: curlimages/curl:8.10.1
          env:
`+vars.String())
	e.must("master-1", "kubectl", "apply", "-f", "/root/job.yaml")
}

// TestTempoFlushWritesBlock: a Job sending a trace to a Tempo release
// stands for an ingestion and a flush: a block of single-tenant reaches
// the release's S3 bucket, signed with the keys of the Secret its values
// name. A Job sending elsewhere, a release without its keys and a storage
// refusing the keys leave no block; the Job completes in every case, as
// the query is answered from the ingester.
func TestTempoFlushWritesBlock(t *testing.T) {
	const trace = "0123456789abcdef0123456789abcdef"
	rec := &s3Recorder{access: "tempo-key", objects: map[string]string{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()

	e := tempoEnv(t, srv, true)
	applyVerifyJob(e, "elsewhere", "other.tracing.svc", trace)
	if m := rec.metas(); len(m) != 0 {
		t.Fatalf("a Job sending to no Tempo service wrote %v", m)
	}
	applyVerifyJob(e, "tempo-verify", "tempo.tracing.svc", trace)
	metas := rec.metas()
	if len(metas) != 1 {
		t.Fatalf("blocks written: %v, want one meta.json", metas)
	}
	for p, b := range metas {
		var meta map[string]any
		if err := json.Unmarshal([]byte(b), &meta); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		block := strings.TrimSuffix(strings.TrimPrefix(p, "/traces/single-tenant/"), "/meta.json")
		if meta["tenantID"] != "single-tenant" || meta["blockID"] != block || strings.Contains(block, "/") {
			t.Errorf("%s = %s, want a block of single-tenant under /traces/single-tenant/", p, b)
		}
		if data := rec.objects["/traces/single-tenant/"+block+"/data.parquet"]; !strings.Contains(data, trace) {
			t.Errorf("data.parquet = %q, want the trace", data)
		}
	}
	for _, a := range rec.auths {
		if !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=tempo-key/") || !strings.Contains(a, "/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=") {
			t.Errorf("Authorization %q is not Signature Version 4 with the Secret's access key", a)
		}
	}
	if r := e.must("master-1", "kubectl", "-n", "tracing", "get", "job", "tempo-verify", "-o", "jsonpath={.status.succeeded}"); r.out != "1" {
		t.Errorf("Job succeeded = %q, want 1", r.out)
	}

	// No Secret: Tempo has no keys; a refusing storage: no block either.
	rec2 := &s3Recorder{access: "tempo-key", objects: map[string]string{}}
	srv2 := httptest.NewServer(rec2)
	defer srv2.Close()
	applyVerifyJob(tempoEnv(t, srv2, false), "tempo-verify", "tempo.tracing.svc", trace)
	rec2.refuse = true
	e = tempoEnv(t, srv2, true)
	applyVerifyJob(e, "tempo-verify", "tempo.tracing.svc", trace)
	if m := rec2.metas(); len(m) != 0 {
		t.Errorf("blocks written without keys or to a refusing storage: %v", m)
	}
	if r := e.must("master-1", "kubectl", "-n", "tracing", "get", "job", "tempo-verify", "-o", "jsonpath={.status.succeeded}"); r.out != "1" {
		t.Errorf("Job succeeded = %q with the block refused, want 1 (the query is answered from memory)", r.out)
	}
	// An unreachable storage does not hang the Job.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := &httptest.Server{URL: "http://" + l.Addr().String()}
	l.Close()
	applyVerifyJob(tempoEnv(t, dead, true), "tempo-verify", "tempo.tracing.svc", trace)
}
