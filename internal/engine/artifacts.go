package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// storedArtifact is an artifact known to the run, with its value.
type storedArtifact struct {
	art      protocol.Artifact
	value    []byte // nil for an input secret not fetched yet
	producer int    // plan index of the producer, -1 for inputs
}

// artifactStore holds produced and input artifacts. Secret values are
// registered with the redactor as soon as they are known.
type artifactStore struct {
	mu       sync.Mutex
	redactor *transport.Redactor
	byID     map[string][]*storedArtifact
}

func newArtifactStore(red *transport.Redactor, inputs []InputArtifact) (*artifactStore, error) {
	s := &artifactStore{redactor: red, byID: map[string][]*storedArtifact{}}
	for _, in := range inputs {
		a := in.Artifact
		if a.ID == "" {
			return nil, fmt.Errorf("input artifact: id is empty")
		}
		if !a.Sensitivity.Valid() {
			return nil, fmt.Errorf("input artifact %s: sensitivity %q is not one of public, internal, secret", a.ID, a.Sensitivity)
		}
		sa := &storedArtifact{art: a, producer: -1}
		if a.Sensitivity == protocol.SensitivitySecret {
			switch {
			case in.SecretValue != "":
				sa.value = []byte(in.SecretValue)
				red.Add(in.SecretValue)
				if a.Fingerprint == "" {
					sa.art.Fingerprint = fingerprint(sa.value)
				}
			case a.Ref == "":
				return nil, fmt.Errorf("input artifact %s: a secret needs its value or a reference (host:path)", a.ID)
			}
			sa.art.Value = ""
		} else {
			sa.value = []byte(a.Value)
		}
		s.byID[a.ID] = append(s.byID[a.ID], sa)
	}
	return s, nil
}

// add records an artifact produced by the instance at plan index idx.
func (s *artifactStore) add(a protocol.Artifact, value []byte, idx int) {
	if a.Sensitivity == protocol.SensitivitySecret {
		s.redactor.Add(string(value))
		a.Value = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.byID[a.ID]
	for i, old := range list {
		if old.producer == idx && old.art.Host == a.Host {
			list[i] = &storedArtifact{art: a, value: value, producer: idx}
			return
		}
	}
	s.byID[a.ID] = append(list, &storedArtifact{art: a, value: value, producer: idx})
}

// produced lists the artifacts produced (or recovered) by this run, sorted
// by id, host and producer.
func (s *artifactStore) produced() []protocol.Artifact {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.Artifact
	for _, list := range s.byID {
		for _, sa := range list {
			if sa.producer >= 0 {
				out = append(out, sa.art)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Producer < b.Producer
	})
	return out
}

func (s *artifactStore) secretValues() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]string{}
	for _, list := range s.byID {
		for _, sa := range list {
			if sa.art.Sensitivity == protocol.SensitivitySecret && sa.value != nil {
				m[artifactKey(sa.art)] = string(sa.value)
			}
		}
	}
	return m
}

// pick chooses the artifact a consumer gets for a requirement: a node-scoped
// requirement takes the producer on the consumer's host; otherwise a
// producer among the consumer's direct needs (isNeed of its plan index),
// then any producer in plan order, then an input given to the run.
func (s *artifactStore) pick(ref protocol.ArtifactRef, host string, isNeed func(producer int) bool) *storedArtifact {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := append([]*storedArtifact(nil), s.byID[ref.ID]...)
	sort.SliceStable(list, func(i, j int) bool {
		pi, pj := list[i].producer, list[j].producer
		if (pi < 0) != (pj < 0) {
			return pi >= 0 // produced before inputs
		}
		return pi < pj
	})
	node := ref.Scope.Normal() == protocol.ScopeNode
	var candidates []*storedArtifact
	for _, sa := range list {
		if node && sa.art.Host != "" && sa.art.Host != host {
			continue
		}
		candidates = append(candidates, sa)
	}
	for _, sa := range candidates {
		if sa.producer >= 0 && isNeed(sa.producer) {
			return sa
		}
	}
	if len(candidates) > 0 {
		return candidates[0]
	}
	return nil
}

// inputFile is an artifact handed to a job as a file in CP_INPUT_DIR.
type inputFile struct {
	id      string
	name    string
	content []byte
	secret  bool
}

// inputsFor resolves the artifacts an instance requires. Only those are
// handed to it.
func (r *run) inputsFor(ctx context.Context, st *instState) ([]inputFile, error) {
	var out []inputFile
	now := r.cfg.Clock()
	for _, ref := range st.in.Job.Inputs.Requires.Artifacts {
		if ref.Scope.Normal() == protocol.ScopeCluster && r.nodeScopedArtifact(ref.ID) {
			f, err := r.gatheredInput(ctx, ref)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, *f)
			}
			continue
		}
		sa := r.store.pick(ref, st.host, func(i int) bool { return directNeed(st, r.states[i]) })
		if sa == nil {
			if ref.Optional {
				continue
			}
			return nil, fmt.Errorf("requires artifact %s, which no finished job of the plan produced and the run was not given", ref.ID)
		}
		if sa.art.Expired(now) {
			if ref.Optional {
				continue
			}
			return nil, fmt.Errorf("requires artifact %s, which expired at %s; plan the job that produces it again", ref.ID, sa.art.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"))
		}
		value, err := r.artifactValue(ctx, sa)
		if err != nil {
			return nil, err
		}
		name, err := artifactFile(ref.ID, "")
		if err != nil {
			return nil, err
		}
		out = append(out, inputFile{id: ref.ID, name: name, content: value, secret: sa.art.Sensitivity == protocol.SensitivitySecret})
	}
	return out, nil
}

// artifactValue returns a stored value, fetching an input secret given by
// reference on first use.
func (r *run) artifactValue(ctx context.Context, sa *storedArtifact) ([]byte, error) {
	r.store.mu.Lock()
	v := sa.value
	r.store.mu.Unlock()
	if v != nil {
		return v, nil
	}
	var err error
	if r.in.Fetch != nil {
		v, err = r.in.Fetch(ctx, sa.art)
	} else {
		v, err = r.fetchRef(ctx, sa.art.Ref)
	}
	if err != nil {
		return nil, fmt.Errorf("fetch artifact %s from %s: %w", sa.art.ID, sa.art.Ref, err)
	}
	r.cfg.Redactor.Add(string(v))
	if sa.art.Fingerprint != "" && fingerprint(v) != sa.art.Fingerprint {
		return nil, fmt.Errorf("fetch artifact %s from %s: fingerprint %s differs from the recorded %s", sa.art.ID, sa.art.Ref, fingerprint(v), sa.art.Fingerprint)
	}
	r.store.mu.Lock()
	sa.value = v
	r.store.mu.Unlock()
	return v, nil
}

// fetchRef reads "host:path" through the dialer.
func (r *run) fetchRef(ctx context.Context, ref string) ([]byte, error) {
	host, p, ok := protocol.SplitRef(ref)
	if !ok {
		return nil, fmt.Errorf("reference %q is not host:path", ref)
	}
	conn, err := r.conns.get(ctx, host, r.cfg.StepTimeout)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	b, err := conn.Download(sctx, p, r.cfg.StateBecome)
	if err != nil {
		return nil, fmt.Errorf("download %s on host %s: %w", p, host, err)
	}
	return b, nil
}
