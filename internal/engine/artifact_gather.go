package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A job of the plan that declares an artifact with scope node produces one
// value per host (a node's WireGuard public key). A consumer that requires
// such an artifact with scope cluster gets every host's value in one file,
// a line "host value" per host, sorted by host: the value produced in this
// run, or else the one given to the run for that host. Values must be one
// line each; hosts whose value is absent are simply not listed.

// nodeScopedArtifact reports whether a job of the plan declares artifact id
// with scope node.
func (r *run) nodeScopedArtifact(id string) bool {
	for _, st := range r.states {
		if st.in.Job == nil {
			continue
		}
		if spec, ok := st.in.Job.ProducesArtifact(id); ok && spec.Scope.Normal() == protocol.ScopeNode {
			return true
		}
	}
	return false
}

// perHost returns, for each host, the artifact a cluster-scoped consumer
// of a node-scoped artifact gets: produced in this run (first in plan
// order) before one given to the run.
func (s *artifactStore) perHost(id string) map[string]*storedArtifact {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]*storedArtifact{}
	for _, sa := range s.byID[id] {
		h := sa.art.Host
		if h == "" {
			continue
		}
		old, ok := out[h]
		switch {
		case !ok:
			out[h] = sa
		case old.producer < 0 && sa.producer >= 0:
			out[h] = sa
		case old.producer >= 0 && sa.producer >= 0 && sa.producer < old.producer:
			out[h] = sa
		}
	}
	return out
}

// gatherNodeArtifact builds the "host value" lines of a node-scoped
// artifact for a cluster-scoped requirement; ok is false when no host has
// a value yet.
func (r *run) gatherNodeArtifact(ctx context.Context, ref protocol.ArtifactRef) (content []byte, secret, ok bool, err error) {
	now := r.cfg.Clock()
	byHost := r.store.perHost(ref.ID)
	hosts := make([]string, 0, len(byHost))
	for h, sa := range byHost {
		if !sa.art.Expired(now) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil, false, false, nil
	}
	sort.Strings(hosts)
	var b strings.Builder
	for _, h := range hosts {
		sa := byHost[h]
		if strings.ContainsAny(h, " \t\r\n") {
			return nil, false, false, fmt.Errorf("artifact %s: host name %q holds white space; it cannot be listed as a line \"host value\"", ref.ID, h)
		}
		v, err := r.artifactValue(ctx, sa)
		if err != nil {
			return nil, false, false, err
		}
		line := strings.TrimSuffix(string(v), "\n")
		if strings.ContainsAny(line, "\r\n") {
			return nil, false, false, fmt.Errorf("artifact %s of host %s holds more than one line; a node-scoped artifact required with scope cluster must be one line per host", ref.ID, h)
		}
		secret = secret || sa.art.Sensitivity == protocol.SensitivitySecret
		b.WriteString(h + " " + line + "\n")
	}
	return []byte(b.String()), secret, true, nil
}

// gatheredInput is the input file of a cluster-scoped requirement of a
// node-scoped artifact; nil when it is optional and no host has a value.
func (r *run) gatheredInput(ctx context.Context, ref protocol.ArtifactRef) (*inputFile, error) {
	content, secret, ok, err := r.gatherNodeArtifact(ctx, ref)
	if err != nil {
		return nil, err
	}
	if !ok {
		if ref.Optional {
			return nil, nil
		}
		return nil, fmt.Errorf("requires artifact %s from every host, which no finished job of the plan produced and the run was not given", ref.ID)
	}
	name, err := artifactFile(ref.ID, "")
	if err != nil {
		return nil, err
	}
	return &inputFile{id: ref.ID, name: name, content: content, secret: secret}, nil
}
