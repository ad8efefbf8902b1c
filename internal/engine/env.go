package engine

import (
	"path"
	"sort"
	"strings"

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
	intent := &r.plan.Intent
	if h, ok := intent.Host(st.host); ok {
		env[protocol.EnvHostAddress] = h.Address
		env[protocol.EnvHostRole] = h.Role
		var labels []string
		for _, k := range protocol.SortedKeys(h.Labels) {
			labels = append(labels, k+"="+h.Labels[k])
		}
		env[protocol.EnvHostLabels] = strings.Join(labels, "\n")
		taints := append([]string(nil), h.Taints...)
		sort.Strings(taints)
		env[protocol.EnvHostTaints] = strings.Join(taints, "\n")
	}
	if len(intent.Hosts) > 0 {
		lines := make([]string, 0, len(intent.Hosts))
		for _, h := range intent.Hosts {
			lines = append(lines, h.Name+" "+h.Address+" "+h.Role)
		}
		env[protocol.EnvHosts] = strings.Join(lines, "\n")
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
	for _, f := range inputs {
		env[protocol.EnvArtifactPrefix+protocol.EnvName(f.id)] = path.Join(p.in, f.name)
	}
	return env
}
