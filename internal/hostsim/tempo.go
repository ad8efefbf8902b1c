package hostsim

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// tempoTenant is the tenant Tempo keeps every block under when
// multitenancy is off.
const tempoTenant = "single-tenant"

var (
	traceIDRe = regexp.MustCompile(`^[0-9a-f]{32}$`)
	spanIDRe  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// tempoClient is a Job container that sends a trace to a Tempo release
// and asks it to flush: its env names the release's service (SVC =
// SERVICE.NAMESPACE.svc), the trace (TRACE, 32 hex digits) and, when
// set, its one span (SPAN, 16 hex digits) and the span's service.name
// (SERVICE), as the tempo pack's verify Job does.
type tempoClient struct{ service, trace, span, spanService string }

// tempoClients lists the containers of a Job's pod that are Tempo clients.
func tempoClients(o *Object) []tempoClient {
	spec := podTemplate(o)
	var out []tempoClient
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range asList(spec[list]) {
			env := map[string]string{}
			for _, e := range asList(asMap(c)["env"]) {
				m := asMap(e)
				if v, ok := m["value"].(string); ok {
					env[fmt.Sprint(m["name"])] = v
				}
			}
			if env["SVC"] != "" && traceIDRe.MatchString(env["TRACE"]) {
				c := tempoClient{service: env["SVC"], trace: env["TRACE"]}
				if spanIDRe.MatchString(env["SPAN"]) {
					c.span, c.spanService = env["SPAN"], env["SERVICE"]
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// tempoIngest emulates what Tempo does for a Job that sends it a trace and
// flushes: when the service is a tempo release's whose StatefulSet can run,
// the ingester cuts a block holding the trace and writes it to the S3
// storage of the release's values (tempo.storage.trace.s3: endpoint,
// bucket, insecure; the keys from the Secret tempo.extraEnvFrom names, for
// values "${AWS_ACCESS_KEY_ID}" and "${AWS_SECRET_ACCESS_KEY}", or the
// values themselves) as SINGLE-TENANT/BLOCK/meta.json and data.parquet,
// PUT with AWS Signature Version 4, or kept in the simulator's state when
// the endpoint is a simulated MinIO release's service (tempoStorage). A
// refused or unreachable storage leaves no block, and the Job still
// succeeds, as the query is answered from the ingester's memory: what
// reads the bucket, or the querier in blocks mode (tempoQuerier), must
// notice.
func (s *sim) tempoIngest(st *State, job *Object) {
	for _, c := range tempoClients(job) {
		r := tempoRelease(st, c.service)
		if r == nil {
			continue
		}
		if sts := s.findObject(st, resForKind("apps/v1", "StatefulSet"), r.Namespace, releaseFullname(r, "tempo")); sts == nil || s.podBlocker(st, sts) != "" {
			continue
		}
		store, ok := tempoStorage(s, st, r)
		if !ok {
			continue
		}
		_ = putBlock(store, c, s.now())
	}
}

// tempoRelease is the tempo release whose service is SERVICE.NAMESPACE.svc.
func tempoRelease(st *State, service string) *Release {
	keys := make([]string, 0, len(st.Releases))
	for k := range st.Releases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := st.Releases[k]
		if chartBase(r.Chart) == "tempo" && releaseFullname(r, "tempo")+"."+r.Namespace+".svc" == service {
			return r
		}
	}
	return nil
}

// tempoStorage reads the release's S3 settings and resolves its keys:
// the store is the S3 server at the endpoint or, when the endpoint is the
// service of a simulated MinIO release whose Deployment can run, that
// release's buckets in the state (any keys are taken there: the MinIO
// users that Jobs create with mc are not emulated).
func tempoStorage(s *sim, st *State, r *Release) (blockStore, bool) {
	tempo := asMap(r.Values["tempo"])
	s3 := asMap(asMap(asMap(tempo["storage"])["trace"])["s3"])
	endpoint, _ := s3["endpoint"].(string)
	bucket, _ := s3["bucket"].(string)
	if endpoint == "" || bucket == "" {
		return nil, false
	}
	scheme := "https"
	if fmt.Sprint(s3["insecure"]) == "true" {
		scheme = "http"
	}
	env := map[string]string{}
	for _, from := range asList(tempo["extraEnvFrom"]) {
		name, _ := asMap(asMap(from)["secretRef"])["name"].(string)
		sec := s.findObject(st, resForKind("v1", "Secret"), r.Namespace, name)
		if sec == nil {
			continue
		}
		for k, v := range asMap(sec.body()["data"]) {
			if b, err := base64.StdEncoding.DecodeString(fmt.Sprint(v)); err == nil {
				env[k] = string(b)
			}
		}
	}
	expand := func(v any) string {
		str, _ := v.(string)
		if strings.HasPrefix(str, "${") && strings.HasSuffix(str, "}") {
			return env[str[2:len(str)-1]]
		}
		return str
	}
	access, secret := expand(s3["access_key"]), expand(s3["secret_key"])
	if access == "" || secret == "" {
		return nil, false
	}
	if simMinio(s, st, endpoint) {
		return stateBucket{st: st, name: endpoint + "/" + bucket}, true
	}
	return s3Store{base: scheme + "://" + endpoint, bucket: bucket, access: access, secret: secret}, true
}

// simMinio reports whether endpoint is the service of a simulated MinIO
// release (FULLNAME.NAMESPACE.svc:9000) whose Deployment can run.
func simMinio(s *sim, st *State, endpoint string) bool {
	for _, k := range sortedKeys(st.Releases) {
		r := st.Releases[k]
		full := releaseFullname(r, "minio")
		if chartBase(r.Chart) != "minio" || full+"."+r.Namespace+".svc:9000" != endpoint {
			continue
		}
		d := s.findObject(st, resForKind("apps/v1", "Deployment"), r.Namespace, full)
		return d != nil && s.podBlocker(st, d) == ""
	}
	return false
}

// tempoBlockData is what a simulated block's data.parquet holds, in JSON
// (no real Parquet file): the trace, and its span when the client named
// one.
type tempoBlockData struct {
	TraceID string `json:"traceId"`
	SpanID  string `json:"spanId,omitempty"`
	Service string `json:"service,omitempty"`
}

// putBlock writes a block holding the client's trace: its data.parquet
// (tempoBlockData) and then its meta.json (Tempo's fields).
func putBlock(b blockStore, c tempoClient, now time.Time) error {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	id[6], id[8] = id[6]&0x0f|0x40, id[8]&0x3f|0x80
	h := hex.EncodeToString(id)
	block := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	at := now.UTC().Truncate(time.Second).Format(time.RFC3339)
	meta, _ := json.Marshal(map[string]any{"format": "vParquet4", "blockID": block, "tenantID": tempoTenant,
		"startTime": at, "endTime": at, "totalObjects": 1, "compactionLevel": 0, "encoding": "none", "bloomShards": 1})
	data, _ := json.Marshal(tempoBlockData{TraceID: c.trace, SpanID: c.span, Service: c.spanService})
	dir := tempoTenant + "/" + block + "/"
	if err := b.put(dir+"data.parquet", data, now); err != nil {
		return err
	}
	return b.put(dir+"meta.json", meta, now)
}

// signS3 signs a request with AWS Signature Version 4 for service s3
// (headers host, x-amz-date and x-amz-content-sha256 signed).
func signS3(req *http.Request, body []byte, access, secret, region string, now time.Time) {
	now = now.UTC()
	date, stamp := now.Format("20060102"), now.Format("20060102T150405Z")
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	req.Header.Set("x-amz-date", stamp)
	req.Header.Set("x-amz-content-sha256", payload)
	canonHeaders := "host:" + req.URL.Host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + stamp + "\n"
	signed := "host;x-amz-content-sha256;x-amz-date"
	canon := strings.Join([]string{req.Method, req.URL.EscapedPath(), req.URL.Query().Encode(), canonHeaders, signed, payload}, "\n")
	scope := date + "/" + region + "/s3/aws4_request"
	hc := sha256.Sum256([]byte(canon))
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hex.EncodeToString(hc[:])
	key := hmacSum([]byte("AWS4"+secret), date)
	for _, part := range []string{region, "s3", "aws4_request"} {
		key = hmacSum(key, part)
	}
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+access+"/"+scope+", SignedHeaders="+signed+
		", Signature="+hex.EncodeToString(hmacSum(key, toSign)))
}

func hmacSum(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
