package engine

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// instancePaths are the host paths of one instance.
type instancePaths struct {
	run, in, out, work string
	marker, keep       string
	script, scriptSum  string
	scriptSource       bool // the script may be sourced (see sourceable)
}

func (r *run) paths(st *instState, script *jobScript) instancePaths {
	key := instanceKey(st.in)
	rd := r.lay.runDir(r.em.op, st.in.ID)
	p := instancePaths{
		run: rd, in: path.Join(rd, "in"), out: path.Join(rd, "out"), work: path.Join(rd, "work"),
		marker: r.lay.marker(key), keep: r.lay.keepDir(key),
	}
	if script != nil {
		p.scriptSum, p.scriptSource = script.sum, script.source
		p.script = r.lay.script(p.scriptSum)
	}
	return p
}

// env is the environment of the script, evidence and collect commands of
// an instance (protocol script environment contract) plus the engine's
// own CP_* paths its commands use.
func (r *run) env(st *instState, p instancePaths, inputs []inputFile) map[string]string {
	env := map[string]string{
		protocol.EnvInputDir:  p.in,
		protocol.EnvOutputDir: p.out,
		protocol.EnvWorkDir:   p.work,
		protocol.EnvHost:      st.host,
		protocol.EnvOperation: r.em.op,
		protocol.EnvInstance:  st.in.ID,
		"CP_RUN_DIR":          p.run,
		"CP_SCRIPTS_DIR":      r.lay.scriptsDir(),
		"CP_MARKERS_DIR":      r.lay.markersDir(),
		"CP_MARKER":           p.marker,
		"CP_KEEP_DIR":         p.keep,
	}
	if p.script != "" {
		env["CP_SCRIPT"] = p.script
		env["CP_SCRIPT_SHA"] = p.scriptSum
	}
	for k, v := range st.in.Params {
		env[protocol.EnvParamPrefix+protocol.EnvName(k)] = v
	}
	for k, v := range r.hostEnvOf(st.host) {
		env[k] = v
	}
	for _, f := range inputs {
		env[protocol.EnvArtifactPrefix+protocol.EnvName(f.id)] = path.Join(p.in, f.name)
	}
	return env
}

// hostEnvOf is hostEnv of the run's intent for host, with the bound
// cluster. The list of every host is built once per run, not per
// instance, so the environments of a plan stay linear in its hosts.
func (r *run) hostEnvOf(host string) map[string]string {
	r.hostEnvMu.Lock()
	defer r.hostEnvMu.Unlock()
	if r.hostEnvs == nil {
		r.hostEnvs = newHostEnvs(r.plan)
	}
	return r.hostEnvs.of(host)
}

// hostEnv is the part of the environment that comes from the intent: the
// instance's host (address, role, labels, taints), every host, the first
// master and the cluster name. Lists are comma-separated; checkHosts has
// refused every host whose values could hold a separator, so no value
// adds an entry or a field.
func hostEnv(intent *protocol.Intent, host string) map[string]string {
	env := map[string]string{}
	if h, ok := intent.Host(host); ok {
		env[protocol.EnvHostAddress] = h.Address
		env[protocol.EnvHostRole] = h.Role
		env[protocol.EnvHostLabels] = encodeLabels(h.Labels)
		env[protocol.EnvHostTaints] = encodeTaints(h.Taints)
	}
	if len(intent.Hosts) > 0 {
		entries := make([]string, 0, len(intent.Hosts))
		for _, h := range intent.Hosts {
			entries = append(entries, h.Name+" "+h.Address+" "+h.Role)
		}
		env[protocol.EnvHosts] = strings.Join(entries, protocol.EnvListSeparator)
	}
	if m := intent.HostsWithRole(protocol.RoleMaster); len(m) > 0 {
		env[protocol.EnvFirstMaster] = m[0].Name
		env[protocol.EnvFirstMasterAddress] = m[0].Address
	}
	switch {
	case intent.TargetResource != "":
		env[protocol.EnvCluster] = intent.TargetResource
	case intent.Parameters["name"] != "":
		env[protocol.EnvCluster] = intent.Parameters["name"]
	}
	return env
}

// boundCluster is the name of the Kubernetes cluster the plan's
// kubernetes.cluster requirement is bound to (a cp_scenario or cp_tempo on
// a cluster handle), empty when the plan binds none.
func boundCluster(p *protocol.Plan) string {
	for _, b := range p.Bindings {
		if b.Requirement.Key != "kubernetes.cluster" || b.Decision != "bind" || b.Capability == nil {
			continue
		}
		n := b.Capability.Attributes["name"]
		if n == "" {
			n = b.Provider
		}
		// Cluster names are DNS labels (checked at plan); anything else
		// is not passed on.
		if paramtype.Check(protocol.ParamSpec{Type: paramtype.DNSLabel}, n) != nil {
			return ""
		}
		return n
	}
	return ""
}

// encodeLabels is CP_HOST_LABELS: k=v entries sorted by key, separated by
// commas. Only labels checkHosts accepts are encoded this way safely.
func encodeLabels(labels map[string]string) string {
	entries := make([]string, 0, len(labels))
	for _, k := range protocol.SortedKeys(labels) {
		entries = append(entries, k+"="+labels[k])
	}
	return strings.Join(entries, protocol.EnvListSeparator)
}

// encodeTaints is CP_HOST_TAINTS: key[=value]:Effect entries, sorted,
// separated by commas.
func encodeTaints(taints []string) string {
	sorted := append([]string(nil), taints...)
	sort.Strings(sorted)
	return strings.Join(sorted, protocol.EnvListSeparator)
}

var (
	labelKeySpec   = protocol.ParamSpec{Type: paramtype.LabelKey}
	labelValueSpec = protocol.ParamSpec{Type: paramtype.LabelValue}
	taintSpec      = protocol.ParamSpec{Type: paramtype.Taint}
)

// checkHosts refuses, before anything runs, an intent whose hosts could
// break the encoding of CP_HOSTS, CP_HOST_LABELS or CP_HOST_TAINTS: a
// name, address or role holding a separator (space, comma, '=') or a
// control character, a label that is not a Kubernetes label key and
// value, a taint that is not key[=value]:Effect. The checks do not rely
// on the caller having validated the intent.
func checkHosts(intent *protocol.Intent) error {
	var problems []string
	for i, h := range intent.Hosts {
		at := fmt.Sprintf("host %d (%s)", i, paramtype.Quote(h.Name))
		if h.Name == "" {
			problems = append(problems, fmt.Sprintf("host %d: name is empty; give every host a name", i))
		}
		for _, f := range []struct{ what, v string }{{"name", h.Name}, {"address", h.Address}, {"role", h.Role}} {
			if err := fieldChars(f.v); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s", at, f.what, err))
			}
		}
		for _, k := range protocol.SortedKeys(h.Labels) {
			if err := paramtype.Check(labelKeySpec, k); err != nil {
				problems = append(problems, fmt.Sprintf("%s: label key %v", at, err))
				continue
			}
			if err := paramtype.Check(labelValueSpec, h.Labels[k]); err != nil {
				problems = append(problems, fmt.Sprintf("%s: label %s: value %v", at, k, err))
			}
		}
		for j, t := range h.Taints {
			if err := paramtype.Check(taintSpec, t); err != nil {
				problems = append(problems, fmt.Sprintf("%s: taint %d: %v", at, j, err))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s; fix the host in the intent (labels and taints in Kubernetes syntax, names and addresses without spaces, commas or '=')",
			ErrHostValue, strings.Join(problems, "; "))
	}
	return nil
}

// ErrHostValue is a host of the intent refused because one of its values
// cannot be passed to scripts safely.
var ErrHostValue = errors.New("host value not allowed in the script environment")

// fieldChars refuses a host name, address or role that holds a control
// character, white space, a comma or '='.
func fieldChars(v string) error {
	for i, c := range v {
		if unicode.IsControl(c) || unicode.IsSpace(c) || c == ',' || c == '=' || c == unicode.ReplacementChar {
			return fmt.Errorf("%s holds %q at byte %d; control characters, spaces, ',' and '=' are not allowed", paramtype.Quote(v), c, i)
		}
	}
	return nil
}
