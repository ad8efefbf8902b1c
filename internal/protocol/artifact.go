package protocol

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Sensitivity of an artifact decides where its value may appear.
type Sensitivity string

const (
	// SensitivityPublic values may be shown anywhere.
	SensitivityPublic Sensitivity = "public"
	// SensitivityInternal values are kept in state but not highlighted.
	SensitivityInternal Sensitivity = "internal"
	// SensitivitySecret values are never shown; only a reference,
	// a fingerprint and an expiry travel.
	SensitivitySecret Sensitivity = "secret"
)

// Valid reports whether s is a known sensitivity.
func (s Sensitivity) Valid() bool {
	return s == SensitivityPublic || s == SensitivityInternal || s == SensitivitySecret
}

// ArtifactSpec declares an artifact a job produces.
type ArtifactSpec struct {
	// ID names the artifact, e.g. kubeconfig.admin or kubeadm.join_token.
	ID string `yaml:"id" json:"id"`
	// Type is one of ArtifactTypes: the engine checks every produced
	// value against it. Empty leaves the value unchecked.
	Type           string      `yaml:"type,omitempty" json:"type,omitempty"`
	Description    string      `yaml:"description,omitempty" json:"description,omitempty"`
	Scope          Scope       `yaml:"scope,omitempty" json:"scope,omitempty"`
	Sensitivity    Sensitivity `yaml:"sensitivity" json:"sensitivity"`
	VisibleToRoles []string    `yaml:"visible_to_roles,omitempty" json:"visible_to_roles,omitempty"`
	// File is the name the job's script writes into its output directory.
	// When empty, the artifact id is used.
	File string `yaml:"file,omitempty" json:"file,omitempty"`
	// Collect is a command whose stdout is the value, run after the job.
	Collect string `yaml:"collect,omitempty" json:"collect,omitempty"`
	// TTL is how long the artifact stays valid (e.g. a join token: 24h).
	TTL Duration `yaml:"ttl,omitempty" json:"ttl,omitempty"`
}

// Validate checks the spec's own shape.
func (a ArtifactSpec) Validate() error {
	if a.ID == "" {
		return fmt.Errorf("artifact: id is empty")
	}
	if !a.Sensitivity.Valid() {
		return fmt.Errorf("artifact %q: sensitivity %q is not one of public, internal, secret", a.ID, a.Sensitivity)
	}
	if !KnownArtifactType(a.Type) {
		return fmt.Errorf("artifact %q: type %q is not one of %s", a.ID, a.Type, strings.Join(ArtifactTypes(), ", "))
	}
	return nil
}

// ArtifactRef names an artifact a job requires.
type ArtifactRef struct {
	ID    string `yaml:"id" json:"id"`
	Scope Scope  `yaml:"scope,omitempty" json:"scope,omitempty"`
	// Optional artifacts are passed when present and never planned for.
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty"`
}

// Artifact is a concrete output of a run. Secret artifacts never carry
// their value here: Ref says where it lives and Fingerprint identifies it.
type Artifact struct {
	ID          string      `json:"id"`
	Type        string      `json:"type,omitempty"`
	Sensitivity Sensitivity `json:"sensitivity"`
	Producer    string      `json:"producer,omitempty"` // job instance id
	Host        string      `json:"host,omitempty"`
	Value       string      `json:"value,omitempty"` // public and internal only
	Ref         string      `json:"ref,omitempty"`   // secret: host:path or store reference
	Fingerprint string      `json:"fingerprint,omitempty"`
	ExpiresAt   time.Time   `json:"expires_at,omitzero"`
}

// HostRef is the reference of a secret kept in a file on a host.
func HostRef(host, path string) string { return host + ":" + path }

// SplitRef splits a reference "host:path" (HostRef) at its first colon;
// ok is false when there is none or either part is empty.
func SplitRef(ref string) (host, path string, ok bool) {
	host, path, ok = strings.Cut(ref, ":")
	return host, path, ok && host != "" && path != ""
}

// Expired reports whether the artifact has an expiry that is before now.
func (a Artifact) Expired(now time.Time) bool {
	return !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt)
}

// MergeArtifacts keeps the previous artifacts and replaces those that next
// produced again (same id and host), sorted by id then host: what a
// caller keeps across runs (the provider's state, a test's sequence of
// operations).
func MergeArtifacts(prev, next []Artifact) []Artifact {
	key := func(a Artifact) string { return a.ID + "\x00" + a.Host }
	byKey := map[string]Artifact{}
	for _, a := range prev {
		byKey[key(a)] = a
	}
	for _, a := range next {
		byKey[key(a)] = a
	}
	out := make([]Artifact, 0, len(byKey))
	for _, a := range byKey {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Host < out[j].Host
	})
	return out
}
