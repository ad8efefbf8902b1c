package operation

import (
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestConsumed(t *testing.T) {
	pack := &protocol.ScenarioPack{Jobs: map[string]*protocol.Job{
		"gen": {ID: "gen", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{
			{ID: "token", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(time.Hour)},
			{ID: "hash", Sensitivity: protocol.SensitivityPublic},
			{ID: "kubeconfig", Sensitivity: protocol.SensitivitySecret},
			{ID: "unused", Sensitivity: protocol.SensitivityPublic},
		}}},
		"join": {ID: "join", Inputs: protocol.Inputs{Requires: protocol.Requires{Artifacts: []protocol.ArtifactRef{{ID: "token"}, {ID: "hash"}, {ID: "kubeconfig"}}}}},
	}}
	got := Consumed(pack)
	if len(got) != 2 || !got["token"] || !got["hash"] {
		t.Fatalf("got: %v want: token (expires) and hash (public); not the kubeconfig (a secret without expiry) nor what no job requires", got)
	}
}

func TestKeepValues(t *testing.T) {
	consumed := map[string]bool{"token": true, "hash": true}
	arts := []protocol.Artifact{
		{ID: "token", Sensitivity: protocol.SensitivitySecret, Host: "m1", Ref: "m1:/t", ExpiresAt: t0.Add(time.Hour)},
		{ID: "hash", Sensitivity: protocol.SensitivityPublic, Value: "sha256:ab"},
		{ID: "kubeconfig", Sensitivity: protocol.SensitivitySecret, Host: "m1"},
	}
	value := func(a protocol.Artifact) (string, bool) {
		if a.Sensitivity == protocol.SensitivitySecret {
			return "secret-" + a.ID, true
		}
		return a.Value, true
	}
	kept := KeepValues(nil, arts, value, consumed, t0)
	if len(kept) != 2 || kept[0].ID != "hash" || kept[1].ID != "token" || kept[1].Value != "secret-token" || !kept[1].ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("got: %+v", kept)
	}
	if u := Usable(kept, t0.Add(59*time.Minute)); u["token"].Value != "secret-token" {
		t.Fatalf("before expiry got: %+v want: the token", u)
	}
	if u := Usable(kept, t0.Add(time.Hour)); len(u) != 1 || u["hash"].Value != "sha256:ab" {
		t.Fatalf("at expiry got: %+v want: only the hash", u)
	}
	// Kept again an hour later with nothing new: the expired token goes.
	if again := KeepValues(kept, nil, value, consumed, t0.Add(time.Hour)); len(again) != 1 || again[0].ID != "hash" {
		t.Fatalf("after expiry got: %+v want: only the hash", again)
	}
	b, err := EncodeValues(kept)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeValues(b)
	if err != nil || len(back) != 2 || back[1].Value != "secret-token" {
		t.Fatalf("round trip got: %+v %v", back, err)
	}
	if _, err := DecodeValues([]byte("[")); err == nil {
		t.Fatal("bad JSON got: nil error")
	}
}
