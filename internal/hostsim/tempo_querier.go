package hostsim

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// proxyPathRe is an API server service proxy path with a port:
// /api/v1/namespaces/NAMESPACE/services/NAME:PORT/proxy/PATH.
var proxyPathRe = regexp.MustCompile(`^/api/v1/namespaces/([a-z0-9-]+)/services/([a-z0-9-]+):([0-9]+)/proxy/(.*)$`)

// kubectlRawProxy answers kubectl get --raw of a service proxy path. Only
// Tempo's querier is emulated behind it: a tempo release's service, port
// 3100, /querier/api/traces/TRACE?mode=blocks (tempoQuerier). A missing
// service is NotFound, a release whose StatefulSet cannot run has no
// endpoints; any other service, port, path or query is not emulated.
func (s *sim) kubectlRawProxy(st *State, raw string) int {
	path, query, _ := strings.Cut(raw, "?")
	m := proxyPathRe.FindStringSubmatch(path)
	if m == nil {
		return s.notEmulated("kubectl", "get", "--raw", raw)
	}
	ns, name, port, rest := m[1], m[2], m[3], m[4]
	if s.findObject(st, resForKind("v1", "Service"), ns, name) == nil {
		return s.fail(1, "Error from server (NotFound): services %q not found", name)
	}
	r := tempoRelease(st, name+"."+ns+".svc")
	trace, isTraces := strings.CutPrefix(rest, "querier/api/traces/")
	q, err := url.ParseQuery(query)
	if r == nil || port != "3100" || !isTraces || !traceIDRe.MatchString(trace) || err != nil || len(q) != 1 || len(q["mode"]) != 1 || q.Get("mode") != "blocks" {
		return s.notEmulated("kubectl", "get", "--raw", raw)
	}
	if sts := s.findObject(st, resForKind("apps/v1", "StatefulSet"), r.Namespace, releaseFullname(r, "tempo")); sts == nil || s.podBlocker(st, sts) != "" {
		return s.fail(1, "Error from server (ServiceUnavailable): no endpoints available for service %q", name+":"+port)
	}
	body, found := s.tempoQuerier(st, r, trace)
	if !found {
		return s.fail(1, "Error from server (NotFound): the server could not find the requested resource")
	}
	s.printf("%s\n", body)
	return 0
}

// tempoQuerier emulates Tempo's querier asked for a trace in blocks mode
// (mode=blocks, the whole block range): it searches the backend blocks
// only, never the ingester, so it finds the trace only in a block of the
// tenant that a flush wrote to the release's storage (tempoIngest) and
// that is still there: a meta.json of the tenant and a data.parquet
// holding the trace. A storage it cannot list or read answers as an empty
// blocklist does (not found). The answer is Tempo's JSON
// (TraceByIDResponse), ids in base64 as protobuf bytes are; the blocklist
// poll is not emulated: a block is searched as soon as it is written.
func (s *sim) tempoQuerier(st *State, r *Release, trace string) (string, bool) {
	store, ok := tempoStorage(s, st, r)
	if !ok {
		return "", false
	}
	now := s.now()
	keys, err := store.list(tempoTenant+"/", now)
	if err != nil {
		return "", false
	}
	var found []tempoBlockData
	for _, k := range keys {
		dir, ok := strings.CutSuffix(k, "meta.json")
		if !ok || strings.Count(dir, "/") != 2 {
			continue
		}
		var meta struct {
			TenantID string `json:"tenantID"`
		}
		if b, err := store.get(k, now); err != nil || json.Unmarshal(b, &meta) != nil || meta.TenantID != tempoTenant {
			continue
		}
		var data tempoBlockData
		if b, err := store.get(dir+"data.parquet", now); err != nil || json.Unmarshal(b, &data) != nil || data.TraceID != trace {
			continue
		}
		found = append(found, data)
	}
	if len(found) == 0 {
		return "", false
	}
	return tempoTraceJSON(found), true
}

// tempoTraceJSON renders the trace of the blocks found as Tempo's
// querier does: one batch per block, its resource's service.name and its
// span.
func tempoTraceJSON(blocks []tempoBlockData) string {
	type attr struct {
		Key   string            `json:"key"`
		Value map[string]string `json:"value"`
	}
	type span struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId,omitempty"`
	}
	type scopeSpans struct {
		Scope struct{} `json:"scope"`
		Spans []span   `json:"spans"`
	}
	type batch struct {
		Resource struct {
			Attributes []attr `json:"attributes,omitempty"`
		} `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
	}
	b64 := func(h string) string {
		raw, err := hex.DecodeString(h)
		if err != nil || h == "" {
			return ""
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	var batches []batch
	for _, d := range blocks {
		var bt batch
		if d.Service != "" {
			bt.Resource.Attributes = []attr{{Key: "service.name", Value: map[string]string{"stringValue": d.Service}}}
		}
		bt.ScopeSpans = []scopeSpans{{Spans: []span{{TraceID: b64(d.TraceID), SpanID: b64(d.SpanID)}}}}
		batches = append(batches, bt)
	}
	out, _ := json.Marshal(map[string]any{"trace": map[string]any{"batches": batches}, "metrics": map[string]any{}})
	return string(out)
}
