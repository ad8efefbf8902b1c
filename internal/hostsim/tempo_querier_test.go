package hostsim

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// s3Bucket is an S3 endpoint of one bucket (traces) that keeps what is
// PUT and answers GET of an object and ListObjectsV2, refusing requests
// not signed with access.
type s3Bucket struct {
	mu      sync.Mutex
	access  string
	objects map[string]string // key → body
}

func (b *s3Bucket) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !strings.Contains(req.Header.Get("Authorization"), "Credential="+b.access+"/") || req.Header.Get("x-amz-date") == "" {
		http.Error(w, "<Error><Code>InvalidAccessKeyId</Code></Error>", http.StatusForbidden)
		return
	}
	key, ok := strings.CutPrefix(req.URL.Path, "/traces/")
	switch {
	case req.URL.Path == "/traces" && req.Method == http.MethodGet && req.URL.Query().Get("list-type") == "2":
		type content struct {
			Key string `xml:"Key"`
		}
		res := struct {
			XMLName  xml.Name  `xml:"ListBucketResult"`
			Contents []content `xml:"Contents"`
		}{}
		var keys []string
		for k := range b.objects {
			if strings.HasPrefix(k, req.URL.Query().Get("prefix")) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.Contents = append(res.Contents, content{Key: k})
		}
		out, _ := xml.Marshal(res)
		_, _ = w.Write(out)
	case ok && req.Method == http.MethodPut:
		body, _ := io.ReadAll(req.Body)
		b.objects[key] = string(body)
	case ok && req.Method == http.MethodGet:
		v, found := b.objects[key]
		if !found {
			http.Error(w, "<Error><Code>NoSuchKey</Code></Error>", http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, v)
	default:
		http.Error(w, "<Error><Code>NotImplemented</Code></Error>", http.StatusNotImplemented)
	}
}

// deleteSuffix removes the objects whose key ends with suffix.
func (b *s3Bucket) deleteSuffix(suffix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.objects {
		if strings.HasSuffix(k, suffix) {
			delete(b.objects, k)
		}
	}
}

// applySpanJob applies a Job whose container sends span of trace, from
// service cp-verify, to service svc and asks it to flush.
func applySpanJob(e *env, name, svc, trace, span string) {
	applyTracingJob(e, name, "TRACE", trace, "SPAN", span, "SERVICE", "cp-verify", "SVC", svc)
}

// querierPath is the service proxy path of the tempo release's querier
// asked for trace with query.
func querierPath(trace, query string) string {
	return "--raw=/api/v1/namespaces/tracing/services/tempo:3100/proxy/querier/api/traces/" + trace + query
}

func b64hex(t *testing.T, h string) string {
	t.Helper()
	raw, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// TestTempoQuerierBlocksMode: the querier in blocks mode searches the
// backend blocks only. A trace sent and flushed is answered, in Tempo's
// JSON with the span and its service, from the block in the release's S3
// bucket; before the flush, for another trace, with the block's
// meta.json or data removed, and with the bucket refusing the keys it is
// 404. Other modes, block ranges, ports, paths and services are not
// emulated (exit 2); a missing service is NotFound.
func TestTempoQuerierBlocksMode(t *testing.T) {
	const trace, span, other = "0123456789abcdef0123456789abcdef", "fedcba9876543210", "ffffffffffffffffffffffffffffffff"
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	bucket := &s3Bucket{access: "tempo-key", objects: map[string]string{}}
	srv := httptest.NewServer(bucket)
	defer srv.Close()
	e := tempoEnv(t, srv, true)
	blocks := querierPath(trace, "?mode=blocks")

	// The ingester holds nothing yet, and no block does either.
	e.fails("master-1", "Error from server (NotFound): the server could not find the requested resource", "kubectl", kc, "get", blocks)
	applySpanJob(e, "elsewhere", "tempo.tracing.svc", other, span)
	e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)

	applySpanJob(e, "tempo-verify", "tempo.tracing.svc", trace, span)
	r := e.must("master-1", "kubectl", kc, "get", blocks)
	for _, want := range []string{`"traceId":"` + b64hex(t, trace) + `"`, `"spanId":"` + b64hex(t, span) + `"`,
		`{"key":"service.name","value":{"stringValue":"cp-verify"}}`, `"batches":[`} {
		if !strings.Contains(r.out, want) {
			t.Errorf("blocks answer lacks %s:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.out, b64hex(t, other)) {
		t.Errorf("blocks answer holds the other trace:\n%s", r.out)
	}

	// What is not emulated fails loudly.
	for _, raw := range []string{
		querierPath(trace, "?mode=all"), querierPath(trace, "?mode=ingesters"), querierPath(trace, ""),
		querierPath(trace, "?mode=blocks&blockStart=00000000-0000-0000-0000-000000000000"),
		"--raw=/api/v1/namespaces/tracing/services/tempo:4318/proxy/querier/api/traces/" + trace + "?mode=blocks",
		"--raw=/api/v1/namespaces/tracing/services/tempo:3100/proxy/api/traces/" + trace,
		"--raw=/api/v1/namespaces/tracing/services/tempo:3100/proxy/querier/api/traces/0123?mode=blocks",
		"--raw=/apis/apps/v1",
	} {
		if r := e.run("master-1", "kubectl", kc, "get", raw); r.code != 2 || !strings.Contains(r.err, "not emulated") {
			t.Errorf("kubectl get %s: exit %d %q, want 2 and not emulated", raw, r.code, r.err)
		}
	}
	e.fails("master-1", `services "nope" not found`, "kubectl", kc, "get",
		"--raw=/api/v1/namespaces/tracing/services/nope:3100/proxy/querier/api/traces/"+trace+"?mode=blocks")

	// The answer depends on the stored block: without its data, or its
	// meta.json, the querier finds nothing.
	saved := map[string]string{}
	for k, v := range bucket.objects {
		saved[k] = v
	}
	bucket.deleteSuffix("/data.parquet")
	e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
	for k, v := range saved {
		bucket.objects[k] = v
	}
	e.must("master-1", "kubectl", kc, "get", blocks)
	bucket.deleteSuffix("/meta.json")
	e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
	// A block of another tenant is not searched.
	for k, v := range saved {
		bucket.objects[k] = strings.Replace(v, `"tenantID":"single-tenant"`, `"tenantID":"team-a"`, 1)
	}
	e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
	// Keys the bucket refuses: the blocklist cannot be read.
	for k, v := range saved {
		bucket.objects[k] = v
	}
	e.must("master-1", "kubectl", kc, "get", blocks)
	bucket.access = "another-key"
	e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
}

// TestTempoQuerierBlocksInSimulatedMinio: a Tempo whose storage is a
// simulated MinIO release's service writes its flushed block into the
// state's bucket, and the querier in blocks mode answers from it; a
// storage naming no simulated MinIO keeps no block, and the querier
// answers 404.
func TestTempoQuerierBlocksInSimulatedMinio(t *testing.T) {
	const trace, span = "0123456789abcdef0123456789abcdef", "fedcba9876543210"
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	for _, c := range []struct {
		name, endpoint string
		found          bool
	}{
		{"simulated MinIO", "minio.minio.svc:9000", true},
		{"no such MinIO", "other.minio.svc:9000", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			initCluster(t, e, true)
			e.write("master-1", "/root/minio.yaml", "persistence:\n  size: 10Gi\n")
			e.must("master-1", "helm", "upgrade", "--install", "minio", "minio", "--repo", "https://charts.min.io/", "--version", "5.3.0",
				"--namespace", "minio", "--create-namespace", "--values", "/root/minio.yaml", kc)
			e.write("master-1", "/root/values.yaml", `tempo:
  extraEnvFrom:
    - secretRef: {name: tempo-s3}
  storage:
    trace:
      backend: s3
      s3: {bucket: traces, endpoint: "`+c.endpoint+`", insecure: true, access_key: "${AWS_ACCESS_KEY_ID}", secret_key: "${AWS_SECRET_ACCESS_KEY}"}
`)
			e.must("master-1", "helm", "upgrade", "--install", "tempo", "tempo", "--repo", "https://grafana.github.io/helm-charts", "--namespace", "tracing",
				"--create-namespace", "--values", "/root/values.yaml", kc)
			e.write("master-1", "/root/ak", "tempo-key")
			e.write("master-1", "/root/sk", "tempo-secret")
			e.must("master-1", "kubectl", "-n", "tracing", "create", "secret", "generic", "tempo-s3", "--from-file=AWS_ACCESS_KEY_ID=/root/ak", "--from-file=AWS_SECRET_ACCESS_KEY=/root/sk")
			blocks := querierPath(trace, "?mode=blocks")
			e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
			applySpanJob(e, "tempo-verify", "tempo.tracing.svc", trace, span)
			st, err := ReadState(e.state)
			if err != nil {
				t.Fatal(err)
			}
			var metas []string
			for k := range st.Buckets["minio.minio.svc:9000/traces"] {
				if strings.HasPrefix(k, "single-tenant/") && strings.HasSuffix(k, "/meta.json") {
					metas = append(metas, k)
				}
			}
			if c.found != (len(metas) == 1) || len(st.Buckets) > 1 {
				t.Errorf("state buckets %v, want one block of single-tenant in minio.minio.svc:9000/traces: %v", st.Buckets, c.found)
			}
			if !c.found {
				e.fails("master-1", "(NotFound)", "kubectl", kc, "get", blocks)
				return
			}
			if r := e.must("master-1", "kubectl", kc, "get", blocks); !strings.Contains(r.out, `"spanId":"`+b64hex(t, span)+`"`) {
				t.Errorf("blocks answer lacks the span:\n%s", r.out)
			}
		})
	}
}

// TestTempoFullnameOverride: the tempo chart names its Service and
// StatefulSet after the values' fullnameOverride; without it a release
// whose name lacks "tempo" gets RELEASE-tempo. The Job's flush and the
// querier follow the service the objects have.
func TestTempoFullnameOverride(t *testing.T) {
	const trace, span = "0123456789abcdef0123456789abcdef", "fedcba9876543210"
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	for _, c := range []struct {
		name, override, service string
	}{
		{"override", "fullnameOverride: traces\n", "traces"},
		{"chart default", "", "traces-tempo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bucket := &s3Bucket{access: "tempo-key", objects: map[string]string{}}
			srv := httptest.NewServer(bucket)
			defer srv.Close()
			e := newEnv(t)
			initCluster(t, e, true)
			e.write("master-1", "/root/values.yaml", c.override+`tempo:
  extraEnvFrom:
    - secretRef: {name: tempo-s3}
  storage:
    trace:
      s3: {bucket: traces, endpoint: "`+strings.TrimPrefix(srv.URL, "http://")+`", insecure: true, access_key: "${AWS_ACCESS_KEY_ID}", secret_key: "${AWS_SECRET_ACCESS_KEY}"}
`)
			e.must("master-1", "helm", "upgrade", "--install", "traces", "tempo", "--repo", "https://grafana.github.io/helm-charts", "--namespace", "tracing",
				"--create-namespace", "--values", "/root/values.yaml", kc)
			e.write("master-1", "/root/ak", "tempo-key")
			e.write("master-1", "/root/sk", "tempo-secret")
			e.must("master-1", "kubectl", "-n", "tracing", "create", "secret", "generic", "tempo-s3", "--from-file=AWS_ACCESS_KEY_ID=/root/ak", "--from-file=AWS_SECRET_ACCESS_KEY=/root/sk")
			for _, kind := range []string{"service", "statefulset"} {
				if r := e.must("master-1", "kubectl", kc, "-n", "tracing", "get", kind, c.service, "-o", "name"); !strings.HasSuffix(strings.TrimSpace(r.out), "/"+c.service) {
					t.Errorf("%s %s: %q", kind, c.service, r.out)
				}
			}
			applySpanJob(e, "tempo-verify", c.service+".tracing.svc", trace, span)
			e.must("master-1", "kubectl", kc, "get", "--raw=/api/v1/namespaces/tracing/services/"+c.service+":3100/proxy/querier/api/traces/"+trace+"?mode=blocks")
			if c.service != "traces" {
				e.fails("master-1", `services "traces" not found`, "kubectl", kc, "get",
					"--raw=/api/v1/namespaces/tracing/services/traces:3100/proxy/querier/api/traces/"+trace+"?mode=blocks")
			}
		})
	}
}
