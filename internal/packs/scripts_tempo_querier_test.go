package packs

import (
	"strconv"
	"strings"
	"testing"
)

// tempoQuerier is a kubectl stub standing for the cluster and Tempo's
// querier behind the API server's service proxy. Manifests applied on
// stdin are kept (as the default stub does); get --raw of release tempo's
// /querier/api/traces/<trace>?mode=blocks, for the trace and span of the
// Job applied, answers from the query numbered after on as Tempo does
// once a block holding the trace is in its blocklist: the trace's JSON
// with the span id in base64 and the service.name the Job's SERVICE
// names (or, with otherSpan, another span of the trace). Any other path, an earlier query
// or a trace no block holds (inBlocks false) gets the 404 kubectl reports.
// Cases in extra come first.
func tempoQuerier(inBlocks bool, after int, otherSpan bool, extra string) string {
	span := `$span`
	if otherSpan {
		span = `0123456789abcdef`
	}
	return `case " $* " in
` + extra + `
  *" -f - "*) cat >>"$CP_TEST_STDIN"; echo '---' >>"$CP_TEST_STDIN" ;;
  *" get job tempo-verify -o jsonpath="*'[?(@.name=="TRACE")].value}'*)
    sed -n 's/.*name: TRACE, value: "\([0-9a-f]*\)".*/\1/p' "$CP_TEST_STDIN" | tail -n 1 | tr -d '\n' ;;
  *" get --raw "*)
    raw= prev=
    for a in "$@"; do [ "$prev" != --raw ] || raw=$a; prev=$a; done
    trace=$(sed -n 's/.*name: TRACE, value: "\([0-9a-f]*\)".*/\1/p' "$CP_TEST_STDIN" | tail -n 1)
    span=$(sed -n 's/.*name: SPAN, value: "\([0-9a-f]*\)".*/\1/p' "$CP_TEST_STDIN" | tail -n 1)
    service=$(sed -n 's/.*name: SERVICE, value: "\([a-z-]*\)".*/\1/p' "$CP_TEST_STDIN" | tail -n 1)
    n=$(cat "$HOME/.queries" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$HOME/.queries"
    if [ -n "$trace" ] && [ "$raw" = "/api/v1/namespaces/tempo/services/tempo:3100/proxy/querier/api/traces/$trace?mode=blocks" ] &&
      [ "$n" -gt ` + strconv.Itoa(after) + ` ] && ` + strconv.FormatBool(inBlocks) + `; then
      t64=$(printf %s "$trace" | tr a-f A-F | basenc --base16 -d | base64 -w0)
      s64=$(printf %s "` + span + `" | tr a-f A-F | basenc --base16 -d | base64 -w0)
      printf '{"trace":{"batches":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"%s"}}]},"scopeSpans":[{"scope":{},"spans":[{"traceId":"%s","spanId":"%s","name":"cp-verify","kind":"SPAN_KIND_INTERNAL"}]}]}]},"metrics":{"inspectedBytes":"412"}}\n' "$service" "$t64" "$s64"
    else
      echo 'Error from server (NotFound): the server could not find the requested resource' >&2
      exit 1
    fi ;;
esac`
}

// TestVerifyTempoTraceReadFromBlocks: the ingester answers the query API
// from memory and a new block of the tenant can be another trace's, so
// the trace sent must be read back from the backend: Tempo's querier in
// blocks mode, through the service proxy, must return the trace and the
// span sent. A trace held by the ingester only (the querier's blocks
// answer 404), and an answer without the trace id or the span sent, fail
// with a message naming the trace, tenant and bucket; an answer that
// comes after the blocklist poll passes. The evidence trace_in_backend_blocks holds only when the
// querier's blocks answer the recorded trace with the test span's service.
func TestVerifyTempoTraceReadFromBlocks(t *testing.T) {
	const script, file = "tempo/scripts/verify-ingestion-and-query.sh", "tempo/jobs/verify-ingestion-and-query.yaml"
	const fresh = "single-tenant/7f3d9a10-0000-4000-8000-000000000002/meta.json"
	const meta = `{"format":"vParquet4","blockID":"7f3d9a10-0000-4000-8000-000000000002","tenantID":"single-tenant","totalObjects":1}`
	bound := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://127.0.0.1:8333",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=tempo-key\nAWS_SECRET_ACCESS_KEY=tempo-secret-key\n"}
	minio := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://minio.minio.svc:9000",
		"object_storage.s3.credentials": "S3_ADMIN_API=minio\nS3_ADMIN_NAMESPACE=minio\nS3_ADMIN_SECRET=minio-root\n"}
	const notInBlocks = "reached Tempo's ingester but not its backend blocks: the querier in blocks mode (/querier/api/traces/"
	for _, c := range []struct {
		name                   string
		arts                   map[string]string
		inBlocks, other, trace bool
		after, wantQueries     int
		refusal                string
	}{
		{"bound S3, trace in a block", bound, true, false, false, 0, 1, ""},
		{"bound S3, block seen after the blocklist poll", bound, true, false, false, 3, 4, ""},
		{"bound S3, trace in the ingester only", bound, false, false, false, 0, 132, notInBlocks},
		{"bound S3, another span answered", bound, true, true, false, 0, 132, notInBlocks},
		{"bound S3, another trace id answered", bound, true, false, true, 0, 132, notInBlocks},
		{"MinIO, trace in a block", minio, true, false, false, 0, 1, ""},
		{"MinIO, trace in the ingester only", minio, false, false, false, 0, 132, notInBlocks},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("sleep", ``)
			h.stub("aws", tempoAWS("None", fresh, meta, false))
			stub := tempoQuerier(c.inBlocks, c.after, c.other, "")
			if c.trace {
				stub = strings.Replace(stub, `t64=$(printf %s "$trace"`, `t64=$(printf %s "`+strings.Repeat("f", 32)+`"`, 1)
			}
			h.stub("kubectl", stub)
			env := h.artifactEnv(packEnv(t, "tempo", nil), c.arts)
			res := h.run(script, env)
			job := tempoVerifyJob(t, h)
			trace := containerEnv(tempoContainer(t, job, "verify"))["TRACE"]
			if c.refusal == "" {
				succeeded(t, res)
				if want := "trace " + trace + " read back from the blocks of tenant single-tenant in s3://tempo-traces"; !strings.Contains(res.stdout, want) {
					t.Errorf("stdout does not say %q:\n%s", want, res.stdout)
				}
				if got := strings.TrimSpace(h.read("/.out/tempo.verification_trace_id")); got != trace {
					t.Errorf("tempo.verification_trace_id = %q, want the trace sent %q", got, trace)
				}
			} else {
				refused(t, h, res, c.refusal)
				for _, want := range []string{"trace " + trace + " ", "tenant single-tenant", "bucket tempo-traces", "kubectl -n tempo logs statefulset/tempo"} {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("the failure does not name %q:\n%s", want, res.stderr)
					}
				}
				if h.exists("/.out/tempo.verification_trace_id") {
					t.Errorf("a trace id was recorded for a trace not read back from the blocks")
				}
			}
			calls := h.log(h.calls)
			if n := strings.Count(calls, "get --raw /api/v1/namespaces/tempo/services/tempo:3100/proxy/querier/api/traces/"+trace+"?mode=blocks"); n != c.wantQueries {
				t.Errorf("the querier was asked %d times in blocks mode, want %d:\n%s", n, c.wantQueries, calls)
			}
			// The blocks are read after the flush and the block check.
			if i, j := callIndex(calls, "wait --for=condition=complete job/tempo-verify"), callIndex(calls, "get --raw"); i < 0 || j < i {
				t.Errorf("the blocks query (call %d) does not follow the Job's completion (call %d):\n%s", j, i, calls)
			}
			if c.arts["object_storage.s3.credentials"] == bound["object_storage.s3.credentials"] {
				if i, j := callIndex(calls, "s3 cp s3://tempo-traces/"+fresh), callIndex(calls, "get --raw"); i < 0 || j < i {
					t.Errorf("the blocks query (call %d) does not follow the block check (call %d):\n%s", j, i, calls)
				}
			}

			// The evidence asks the querier again for the trace the Job
			// tempo-verify sent.
			h.write("/.queries", "1000\n")
			if ok, got := h.evidence(file, "trace_in_backend_blocks", env); ok != c.inBlocks {
				t.Errorf("trace_in_backend_blocks = %v (%q), want %v", ok, got, c.inBlocks)
			}
		})
	}
}

// tempoContainer is the container named name of the Job, in its init
// containers or containers.
func tempoContainer(t *testing.T, job map[string]any, name string) map[string]any {
	t.Helper()
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := dig(job, "spec", "template", "spec", list).([]any)
		for _, c := range cs {
			if m, _ := c.(map[string]any); m["name"] == name {
				return m
			}
		}
	}
	t.Fatalf("no container %s in the Job %v", name, job)
	return nil
}

// TestDeployTempoFullname: the chart names its Service and StatefulSet
// RELEASE-tempo for a release name without "tempo", while the endpoints,
// the verify Job, the querier path and the evidence name them after the
// release: the values set fullnameOverride to the release name.
func TestDeployTempoFullname(t *testing.T) {
	const script = "tempo/scripts/deploy-tempo.sh"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "http://minio.minio.svc:9000\n"}
	for _, release := range []string{"tempo", "traces"} {
		h := newScriptHost(t)
		succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "tempo", map[string]string{"release_name": release}), arts)))
		docs := yamlDocs(t, h.log(h.values))
		if len(docs) != 1 || docs[0]["fullnameOverride"] != release {
			t.Errorf("release %s: values %v, want fullnameOverride %s", release, docs, release)
		}
		if ep := h.read("/.out/tempo.endpoints"); !strings.Contains(ep, "query=http://"+release+".tempo.svc:3100") {
			t.Errorf("release %s: endpoints %q", release, ep)
		}
	}
}
