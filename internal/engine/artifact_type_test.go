package engine

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestRunChecksArtifactTypes: a job whose script writes an artifact that
// is not of its declared type fails on that host, with a reason naming
// the job, the host, the artifact and the type but never the value, and
// what needs the artifact does not run; a value of the type completes.
func TestRunChecksArtifactTypes(t *testing.T) {
	const secret = "NOT-A-TOKEN-5c0e1f0a9b8d"
	cases := map[string]struct {
		value      string
		sensitive  protocol.Sensitivity
		wantIssue  Status
		wantReason string
	}{
		"secret of the type": {"abcdef.0123456789abcdef\n", protocol.SensitivitySecret, StatusDone, ""},
		"secret not of the type": {secret + "\n", protocol.SensitivitySecret, StatusFailed,
			"artifact kubeadm.join_token of job issue on host m1 is not a kubeadm.token value"},
		"public not of the type": {secret + "\n", protocol.SensitivityPublic, StatusFailed,
			"artifact kubeadm.join_token of job issue on host m1 is not a kubeadm.token value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := newMemNet("m1", "w1")
			n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
				job := strings.TrimSuffix(strings.TrimPrefix(content, "script:scripts/"), ".sh")
				if job == "issue" {
					h.put(env["CP_OUTPUT_DIR"]+"/kubeadm.join_token", []byte(tc.value))
				}
				h.set(job, "yes")
				return 0
			}
			n.check = func(h *memHost, cmd string, env map[string]string) (string, int) {
				return h.get(strings.TrimPrefix(cmd, "state ")) + "\n", 0
			}
			issue := newJob("issue", evidence("issued", "state issue", "yes"))
			issue.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "kubeadm.join_token", Type: "kubeadm.token", Sensitivity: tc.sensitive}}
			join := newJob("join", evidence("joined", "state join", "yes"))
			join.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "kubeadm.join_token"}}
			p := &protocol.Plan{ID: "p", Intent: protocol.Intent{Hosts: []protocol.Host{{Name: "m1", Role: "master"}, {Name: "w1", Role: "worker"}}}}
			p.Instances = append(p.Instances, newInst(issue, "s", "m1"), newInst(join, "s", "w1", "issue[m1]"))
			e, rec := newTestEngine(n, nil)
			res := mustRun(t, e, p, RunInput{})
			in := wantStatus(t, res, "issue[m1]", tc.wantIssue)
			if tc.wantIssue == StatusDone {
				wantStatus(t, res, "join[w1]", StatusDone)
				return
			}
			if !strings.Contains(in.Reason, tc.wantReason) {
				t.Errorf("reason got: %s want: %s", in.Reason, tc.wantReason)
			}
			if got, _ := res.Instance("join[w1]"); got.Status == StatusDone {
				t.Errorf("join[w1] got: %s want: not run without a valid token", got.Status)
			}
			if _, ok := res.SecretValue("kubeadm.join_token", "issue[m1]"); ok {
				t.Error("got: the bad value recorded as an artifact want: nothing recorded")
			}
			b, _ := json.Marshal(res)
			ev, _ := json.Marshal(rec.events)
			if strings.Contains(string(b)+string(ev)+errText(res.Err()), secret) {
				t.Errorf("the value %s appears in the result or the events", secret)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
