package protocol

import (
	"strings"
	"testing"
)

func TestDecisionCheck(t *testing.T) {
	g := Gate{ID: "approve-dedicated-minio", Type: GateApproval, Reason: "r",
		Options: []GateOption{{ID: "create dedicated MinIO", Effect: EffectCreate, Provider: "dedicated_minio"}, {ID: "bind external S3", Effect: EffectBind, Candidate: "aws-s3"}, Cancel("cancel operation")}, RequiredRoles: []string{"sre", "platform_admin"}, Chosen: "create dedicated MinIO"}
	cases := []struct {
		name string
		d    Decision
		want string
	}{
		{"approved by sre", Decision{Option: "create dedicated MinIO", Actor: "ana", Roles: []string{"sre"}}, ""},
		{"wrong role", Decision{Option: "create dedicated MinIO", Actor: "bob", Roles: []string{"dev"}}, "requires one of"},
		{"unknown option", Decision{Option: "yolo", Actor: "ana", Roles: []string{"sre"}}, "is not one of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.d.Check(g)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got: %v want: %q", err, tc.want)
			}
		})
	}
}

func TestJobValidate(t *testing.T) {
	j := &Job{ID: "install-containerd", Title: "Install containerd", Scope: JobScope{Expand: ExpandEachNode},
		Inputs:   Inputs{Parameters: map[string]ParamSpec{"version": {}}},
		Controls: Controls{Idempotency: Idempotency{Key: "install-containerd:{node_id}:{version}:{flavour}"}},
		Outputs: Outputs{
			Artifacts: []ArtifactSpec{{ID: "token", Type: "token", Sensitivity: SensitivitySecret}},
			Evidence:  []Evidence{{ID: "active"}},
		}}
	errs := j.Validate()
	joined := ""
	for _, e := range errs {
		joined += e.Error() + "\n"
	}
	for _, want := range []string{`unknown parameter "flavour"`, `artifact "token": type "token" is not one of`, `evidence "active": no check`} {
		if !strings.Contains(joined, want) {
			t.Errorf("got: %s want: %q", joined, want)
		}
	}
}

func TestKeyParams(t *testing.T) {
	got := strings.Join(KeyParams("install-containerd:{node_id}:{version}"), ",")
	if got != "node_id,version" {
		t.Fatalf("got: %s want: node_id,version", got)
	}
}

func TestMergeArtifactsReplacesByIDAndHost(t *testing.T) {
	prev := []Artifact{{ID: "b", Host: "h2", Value: "old"}, {ID: "b", Host: "h1", Value: "kept"}, {ID: "a", Host: "h1", Value: "a"}}
	next := []Artifact{{ID: "b", Host: "h2", Value: "new"}, {ID: "c", Host: "h1", Value: "c"}}
	got := MergeArtifacts(prev, next)
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ID+"@"+a.Host+"="+a.Value)
	}
	if want := "a@h1=a b@h1=kept b@h2=new c@h1=c"; strings.Join(ids, " ") != want {
		t.Errorf("got: %s want: %s", strings.Join(ids, " "), want)
	}
}
