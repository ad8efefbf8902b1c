package operation

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// KeptValue is an artifact value a later operation of the same resource
// consumes, kept with its expiry (the provider's private state key
// "secrets"): e.g. the cluster's join token and the CA certificate hash an
// add_node consumes. It is never shown: the state's artifacts carry a
// secret only by reference.
type KeptValue struct {
	ID          string    `json:"id"`
	Sensitivity string    `json:"sensitivity"`
	Producer    string    `json:"producer,omitempty"`
	Host        string    `json:"host,omitempty"`
	Ref         string    `json:"ref,omitempty"`
	Value       string    `json:"value"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	ExpiresAt   time.Time `json:"expires_at,omitzero"`
}

// Consumed lists the artifacts of a pack worth keeping for a later
// operation: those a job of the pack requires and that expire (a ttl) or
// are not secret. A secret that does not expire, such as the admin
// kubeconfig, stays on its host and travels by reference.
func Consumed(pack *protocol.ScenarioPack) map[string]bool {
	out := map[string]bool{}
	if pack == nil {
		return out
	}
	specs := map[string]protocol.ArtifactSpec{}
	for _, j := range pack.Jobs {
		for _, a := range j.Outputs.Artifacts {
			specs[a.ID] = a
		}
	}
	for _, j := range pack.Jobs {
		for _, r := range j.Inputs.Requires.Artifacts {
			s, ok := specs[r.ID]
			if ok && (s.TTL > 0 || s.Sensitivity != protocol.SensitivitySecret) {
				out[r.ID] = true
			}
		}
	}
	return out
}

// KeepValues merges the values of the consumed artifacts over prev: value
// returns a run's value of an artifact (a secret's from the run, another's
// its Value). Expired values are dropped; the result is sorted by id, host
// and producer.
func KeepValues(prev []KeptValue, arts []protocol.Artifact, value func(protocol.Artifact) (string, bool), consumed map[string]bool, now time.Time) []KeptValue {
	byKey := map[string]KeptValue{}
	key := func(id, host string) string { return id + "\x00" + host }
	for _, k := range prev {
		byKey[key(k.ID, k.Host)] = k
	}
	for _, a := range arts {
		if !consumed[a.ID] {
			continue
		}
		v, ok := value(a)
		if !ok || v == "" {
			continue
		}
		byKey[key(a.ID, a.Host)] = KeptValue{ID: a.ID, Sensitivity: string(a.Sensitivity), Producer: a.Producer, Host: a.Host, Ref: a.Ref,
			Value: v, Fingerprint: a.Fingerprint, ExpiresAt: a.ExpiresAt}
	}
	out := make([]KeptValue, 0, len(byKey))
	for _, k := range byKey {
		if !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt) {
			continue
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Producer < out[j].Producer
	})
	return out
}

// Usable returns the kept values that have not expired at now, by
// artifact id (the first of an id when several hosts hold one).
func Usable(kept []KeptValue, now time.Time) map[string]KeptValue {
	out := map[string]KeptValue{}
	for _, k := range kept {
		if !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt) {
			continue
		}
		if _, dup := out[k.ID]; !dup {
			out[k.ID] = k
		}
	}
	return out
}

// EncodeValues is the compact JSON of kept values.
func EncodeValues(kept []KeptValue) ([]byte, error) {
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, fmt.Errorf("encode kept artifact values: %w", err)
	}
	return b, nil
}

// DecodeValues reads kept values; empty input is none.
func DecodeValues(b []byte) ([]KeptValue, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var out []KeptValue
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode kept artifact values: %w", err)
	}
	return out, nil
}
