package diagnose

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Secrets of the analyzer tests: a join token and a multi-line kubeconfig
// with characters JSON escapes.
const (
	secretToken      = "abcdef.0123456789abcdef"
	secretKubeconfig = "apiVersion: v1\nclient-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=\nuser: \"admin<&>\""
)

func testRedactor() *transport.Redactor {
	r := &transport.Redactor{}
	r.Add(secretToken, secretKubeconfig)
	return r
}

// leakyFailure is the image-pull failure of the create fixture with the
// secrets planted where an unredacted failure could carry them.
func leakyFailure(t *testing.T, fx fixture) Failure {
	t.Helper()
	f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"),
		[]protocol.EvidenceResult{failedEvidence("kube_apiserver_healthy", "master-1", "token "+secretToken, secretKubeconfig)},
		"kubeadm join 10.0.0.11:6443 --token "+secretToken)
	f.LogTail = append(f.LogTail, "kubeadm join 10.0.0.11:6443 --token "+secretToken+" --discovery-token-ca-cert-hash sha256:1234")
	f.Parameters["bootstrap_kubeconfig"] = secretKubeconfig
	return f
}

// assertNoSecret fails when data holds any registered secret or a line of
// the kubeconfig, raw or JSON-escaped.
func assertNoSecret(t *testing.T, what string, data []byte) {
	t.Helper()
	needles := []string{secretToken, secretKubeconfig}
	needles = append(needles, strings.Split(secretKubeconfig, "\n")...)
	for _, n := range needles {
		esc, _ := json.Marshal(n)
		for _, form := range []string{n, strings.Trim(string(esc), `"`)} {
			if len(form) >= 16 && strings.Contains(string(data), form) {
				t.Errorf("%s contains the secret %q", what, form)
			}
		}
	}
	if !strings.Contains(string(data), transport.Mask) {
		t.Errorf("%s has no %s mask; the secrets were expected to be masked, not dropped", what, transport.Mask)
	}
}

// answer renders an analyzer answer as JSON.
func answer(t *testing.T, d Diagnosis, p *protocol.PlanPatch) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"diagnosis": d, "plan_patch": p})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func modelDiagnosis() Diagnosis {
	return Diagnosis{Summary: "registry.k8s.io is blocked by the egress firewall", Explanation: "The pulls time out.",
		Evidence: []string{"[ERROR ImagePull]: failed to pull image registry.k8s.io/etcd:3.5.15-0"}, Risk: "Medium", Confidence: 0.7}
}

func TestParseAnswer(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"object", `{"diagnosis": {"summary": "s", "risk": "low"}, "plan_patch": null}`, ""},
		{"fenced", "```json\n{\"diagnosis\": {\"summary\": \"s\", \"risk\": \"low\"}}\n```", ""},
		{"prose", "The cause is DNS.", "not a JSON object"},
		{"no diagnosis", `{"plan_patch": null}`, "no diagnosis object"},
		{"two objects", `{"diagnosis": {"summary": "s"}} {"x": 1}`, "text after the JSON object"},
		{"wrong type", `{"diagnosis": "dns"}`, "not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseAnswer([]byte(tc.in))
			if tc.want == "" {
				if err != nil || a.Diagnosis.Summary != "s" {
					t.Errorf("got: %+v, %v want: summary s", a, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v want: error containing %q", err, tc.want)
			}
		})
	}
}

func TestMarshalRedacted(t *testing.T) {
	fx := createFixture(t, nil)
	f := leakyFailure(t, fx)
	b, err := f.MarshalRedacted(testRedactor())
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "marshalled failure", b)
	var back Failure
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("marshalled failure is not JSON: %v", err)
	}
	if back.Job != "init-control-plane" || len(back.JobLibrary) != len(fx.pack.Jobs) || back.Template != "kubernetes.create@1.0.0" {
		t.Errorf("got job %q, %d library jobs, template %q want: init-control-plane, %d, kubernetes.create@1.0.0",
			back.Job, len(back.JobLibrary), back.Template, len(fx.pack.Jobs))
	}
	if strings.Contains(f.LogTail[len(f.LogTail)-1], transport.Mask) {
		t.Errorf("MarshalRedacted changed the caller's failure")
	}
}
