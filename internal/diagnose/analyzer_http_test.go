package diagnose

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const testAPIKey = "sk-test-0123456789abcdefghij"

// fakeModel is an OpenAI-compatible chat-completions server answering
// with a fixed status and message content.
type fakeModel struct {
	status  int
	content string
	raw     string        // the whole response body, instead of a completion around content
	block   chan struct{} // when set, the handler waits on it (or the request's end)

	mu       sync.Mutex
	bodies   [][]byte
	auth     []string
	paths    []string
	requests []chatRequest
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.auth = append(m.auth, r.Header.Get("Authorization"))
	m.paths = append(m.paths, r.Method+" "+r.URL.Path)
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	if m.block != nil {
		select {
		case <-m.block:
		case <-r.Context().Done():
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if m.status != 0 && m.status != http.StatusOK {
		w.WriteHeader(m.status)
		_, _ = io.WriteString(w, `{"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}`)
		return
	}
	if m.raw != "" {
		_, _ = io.WriteString(w, m.raw)
		return
	}
	resp := map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": m.content}}}}
	_ = json.NewEncoder(w).Encode(resp)
}

func TestHTTPAnalyzer(t *testing.T) {
	t.Setenv("CP_TEST_MODEL_KEY", testAPIKey)
	approvedByModel := seedPatch()
	approvedByModel.Approval.ApprovedBy = "alice"
	removeInit := seedPatch()
	removeInit.Changes = []protocol.PatchChange{{Remove: "init-control-plane"}}
	unknownJob := seedPatch()
	unknownJob.Changes[0].Jobs = append(unknownJob.Changes[0].Jobs, protocol.PatchJob{ID: "flush-iptables"})
	made := modelDiagnosis()
	made.Evidence = append(made.Evidence, "Error: registry.k8s.io returned 451 Unavailable For Legal Reasons")
	cases := []struct {
		name     string
		model    *fakeModel
		source   string
		patch    bool
		warning  string
		rejected string // empty with a warning: no rejection expected
	}{
		{name: "valid answer", model: &fakeModel{content: answer(t, modelDiagnosis(), ptr(seedPatch()))}, source: "analyzer:gpt-test", patch: true},
		{name: "fenced valid answer", model: &fakeModel{content: "```json\n" + answer(t, modelDiagnosis(), ptr(seedPatch())) + "\n```"}, source: "analyzer:gpt-test", patch: true},
		{name: "diagnosis without a patch", model: &fakeModel{content: answer(t, modelDiagnosis(), nil)}, source: "analyzer:gpt-test"},
		{name: "malformed JSON", model: &fakeModel{content: `{"diagnosis": {"summary": "registry blocked", "risk": "medium"`}, source: "diagnose:rule/image-pull", patch: true,
			warning: "invalid analyzer answer", rejected: "not a JSON object"},
		{name: "not a chat completion", model: &fakeModel{raw: `<html>gateway</html>`}, source: "diagnose:rule/image-pull", patch: true,
			warning: "not a chat completion", rejected: "not a chat completion"},
		{name: "server error", model: &fakeModel{status: http.StatusInternalServerError}, source: "diagnose:rule/image-pull", patch: true,
			warning: "500 Internal Server Error", rejected: "500"},
		{name: "timeout", model: &fakeModel{block: make(chan struct{})}, source: "diagnose:rule/image-pull", patch: true,
			warning: "did not answer within 300ms", rejected: "did not answer"},
		{name: "cyclic patch", model: &fakeModel{content: answer(t, modelDiagnosis(), ptr(cyclicPatch()))}, source: "diagnose:rule/image-pull", patch: true,
			warning: "reviewer rejected", rejected: "cycle"},
		{name: "unknown job", model: &fakeModel{content: answer(t, modelDiagnosis(), ptr(unknownJob))}, source: "diagnose:rule/image-pull", patch: true,
			warning: "reviewer rejected", rejected: `job "flush-iptables" is not in the pack's job library`},
		{name: "broken contract", model: &fakeModel{content: answer(t, modelDiagnosis(), ptr(removeInit))}, source: "diagnose:rule/image-pull", patch: true,
			warning: "reviewer rejected", rejected: "jobs still in the plan need its outputs"},
		{name: "invalid risk", model: &fakeModel{content: strings.Replace(answer(t, modelDiagnosis(), nil), `"Medium"`, `"catastrophic"`, 1)},
			source: "diagnose:rule/image-pull", patch: true, warning: "invalid analyzer answer", rejected: `risk "catastrophic"`},
		{name: "a model cannot approve", model: &fakeModel{content: answer(t, modelDiagnosis(), &approvedByModel)}, source: "analyzer:gpt-test", patch: true,
			warning: `marked its patch approved by "alice"`},
		{name: "invented quotes are dropped", model: &fakeModel{content: answer(t, made, ptr(seedPatch()))}, source: "analyzer:gpt-test", patch: true,
			warning: "quoted 1 line(s) that are not in the failure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.model)
			defer srv.Close()
			if tc.model.block != nil {
				defer close(tc.model.block)
			}
			fx := createFixture(t, map[string]string{"registry_mirrors": "https://mirror.example.internal"})
			a := HTTPAnalyzer{Endpoint: srv.URL + "/v1/", Model: "gpt-test", APIKeyEnv: "CP_TEST_MODEL_KEY", Timeout: 300 * time.Millisecond, Client: srv.Client()}
			var warned []string
			res := Diagnose(context.Background(), leakyFailure(t, fx), Options{
				Analyzers: []Analyzer{a}, Review: fx.review, Redactor: testRedactor(), Warn: func(s string) { warned = append(warned, s) }})

			tc.model.mu.Lock()
			defer tc.model.mu.Unlock()
			if len(tc.model.bodies) != 1 {
				t.Fatalf("got %d requests want: 1", len(tc.model.bodies))
			}
			checkChatRequest(t, tc.model.paths[0], tc.model.auth[0], tc.model.requests[0], tc.model.bodies[0])
			if res.Diagnosis.Source != tc.source || (res.Patch != nil) != tc.patch {
				t.Fatalf("got: source %q patch %v want: %q, patch %v (warnings %q rejected %+v)", res.Diagnosis.Source, res.Patch, tc.source, tc.patch, res.Warnings, res.Rejected)
			}
			if strings.Join(warned, "\n") != strings.Join(res.Warnings, "\n") {
				t.Errorf("Warn got: %q want the result's warnings %q", warned, res.Warnings)
			}
			for _, w := range append(res.Warnings, Explain(res)) {
				if strings.Contains(w, testAPIKey) {
					t.Errorf("the API key leaked into %q", w)
				}
			}
			switch {
			case tc.rejected != "":
				checkFallback(t, res, "analyzer:gpt-test", tc.warning, tc.rejected)
			case tc.warning != "":
				if !containsSub(res.Warnings, tc.warning) || len(res.Rejected) != 0 {
					t.Errorf("got warnings %q rejections %+v want a warning containing %q and no rejection", res.Warnings, res.Rejected, tc.warning)
				}
			default:
				checkFallback(t, res, "", "", "")
			}
			if tc.source == "analyzer:gpt-test" && res.Patch != nil {
				p := res.Patch
				if p.Author != "analyzer:gpt-test" || !p.Approval.Required || p.Approval.ApprovedBy != "" || p.ID != "diagnose-analyzer-gpt-test-init-control-plane" {
					t.Errorf("patch got id %q author %q approval %+v want: its id, author analyzer:gpt-test, required and unapproved", p.ID, p.Author, p.Approval)
				}
				for _, e := range res.Diagnosis.Evidence {
					if strings.Contains(e, "451") {
						t.Errorf("an invented quote survived: %q", e)
					}
				}
			}
		})
	}
}

// checkChatRequest checks one request against the chat-completions API.
func checkChatRequest(t *testing.T, path, auth string, req chatRequest, body []byte) {
	t.Helper()
	if path != "POST /v1/chat/completions" {
		t.Errorf("path got: %q want: POST /v1/chat/completions", path)
	}
	if auth != "Bearer "+testAPIKey {
		t.Errorf("Authorization got: %q want the bearer key from CP_TEST_MODEL_KEY", auth)
	}
	if req.Model != "gpt-test" || req.Temperature != 0 || req.ResponseFormat["type"] != "json_object" || len(req.Messages) != 2 {
		t.Fatalf("request got: %+v want model gpt-test, temperature 0, json_object, system and user messages", req)
	}
	if !strings.Contains(string(body), `"temperature":0`) {
		t.Errorf("temperature 0 is not sent explicitly: %s", body)
	}
	sys, user := req.Messages[0], req.Messages[1]
	if sys.Role != "system" || user.Role != "user" {
		t.Errorf("roles got: %q, %q want: system, user", sys.Role, user.Role)
	}
	for _, want := range []string{`"plan_patch"`, `"insert_after"`, "- configure-containerd-registry-mirror: Configure containerd registry mirror; parameters: mirrored_registries, registry_mirrors",
		"Jobs of the plan, in order: validate-inputs, render-kubeadm-config,"} {
		if !strings.Contains(sys.Content, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	var f Failure
	if err := json.Unmarshal([]byte(user.Content), &f); err != nil || f.Instance != "init-control-plane[master-1]" {
		t.Errorf("user message got: %v, instance %q want the failure JSON of init-control-plane[master-1]", err, f.Instance)
	}
	assertNoSecret(t, "chat request body", body)
	if strings.Contains(string(body), testAPIKey) {
		t.Errorf("the API key is in the request body")
	}
}

func TestHTTPAnalyzerNeedsItsKey(t *testing.T) {
	t.Setenv("CP_TEST_EMPTY_KEY", "")
	_, err := HTTPAnalyzer{Endpoint: "http://127.0.0.1:1", Model: "m", APIKeyEnv: "CP_TEST_EMPTY_KEY"}.Analyze(context.Background(), Request{})
	if err == nil || !strings.Contains(err.Error(), "environment variable CP_TEST_EMPTY_KEY (the API key) is empty") {
		t.Errorf("got: %v want: the empty key variable named", err)
	}
}
