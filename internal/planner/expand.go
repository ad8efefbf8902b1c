package planner

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// hostsFor returns the host names a job expands to, in intent order; a
// single "" means one instance without a host.
func hostsFor(in *protocol.Intent, e protocol.Expansion) ([]string, error) {
	var out []string
	switch e {
	case protocol.ExpandOnce:
		return []string{""}, nil
	case protocol.ExpandFirstMaster:
		if m := in.HostsWithRole(protocol.RoleMaster); len(m) > 0 {
			out = append(out, m[0].Name)
		}
	case protocol.ExpandOtherMasters:
		if m := in.HostsWithRole(protocol.RoleMaster); len(m) > 1 {
			for _, h := range m[1:] {
				out = append(out, h.Name)
			}
		}
	case protocol.ExpandEachMaster:
		for _, h := range in.HostsWithRole(protocol.RoleMaster) {
			out = append(out, h.Name)
		}
	case protocol.ExpandEachWorker:
		for _, h := range in.HostsWithRole(protocol.RoleWorker) {
			out = append(out, h.Name)
		}
	case protocol.ExpandEachNode:
		for _, h := range in.Hosts {
			out = append(out, h.Name)
		}
	case protocol.ExpandTargetNodes:
		for _, h := range in.Hosts {
			if in.IsTarget(h.Name) {
				out = append(out, h.Name)
			}
		}
	case protocol.ExpandOtherNodes:
		for _, h := range in.Hosts {
			if !in.IsTarget(h.Name) {
				out = append(out, h.Name)
			}
		}
	default:
		return nil, fmt.Errorf("unknown scope.expand %q (use one of %v)", e, protocol.Expansions)
	}
	return out, nil
}

// runOnHost returns the host a job with scope.run_on executes on, or ""
// when its instances run on their own hosts.
func runOnHost(in *protocol.Intent, s protocol.JobScope) (string, error) {
	switch s.RunOn {
	case "":
		return "", nil
	case protocol.RunOnFirstMaster:
		m := in.HostsWithRole(protocol.RoleMaster)
		if len(m) == 0 {
			return "", fmt.Errorf("scope.run_on first_master, but the intent has no host with role %s; add a master to the hosts", protocol.RoleMaster)
		}
		return m[0].Name, nil
	}
	return "", fmt.Errorf("unknown scope.run_on %q (use one of %v)", s.RunOn, protocol.RunOns)
}

// instanceID is job-id for a hostless instance, job-id[host] otherwise.
func instanceID(key, host string) string {
	if host == "" {
		return key
	}
	return key + "[" + host + "]"
}

// expand creates the instances of a job unit. It returns an error when
// the unit's parameters do not validate.
func (b *builder) expand(u *unit) error {
	params, err := jobParams(u)
	if err != nil {
		return err
	}
	u.params = params
	hosts, err := hostsFor(&b.in.Intent, u.job.Scope.Expand)
	if err != nil {
		return fmt.Errorf("job %s: %w", u.key, err)
	}
	runOn, err := runOnHost(&b.in.Intent, u.job.Scope)
	if err != nil {
		return fmt.Errorf("job %s: %w", u.key, err)
	}
	ref := u.pack.Ref()
	for _, h := range hosts {
		ji := &protocol.JobInstance{
			ID: instanceID(u.key, h), JobID: u.job.ID, Stage: u.stage.id, Host: h, Pack: ref,
			Params: params, Origin: u.origin, Because: u.because, SubOperation: u.subOp, Job: u.job,
		}
		if runOn != h {
			ji.RunOn = runOn
		}
		ji.IdempotencyKey = renderKey(u.job.Controls.Idempotency.Key, u.job.ID, h, b.cluster, b.in.PlanID, params)
		b.addNode(u, ji)
	}
	return nil
}

// renderKey fills an idempotency key template such as
// install-containerd:{node_id}:{version}.
func renderKey(tmpl, jobID, host, cluster, operation string, params map[string]string) string {
	if tmpl == "" {
		return ""
	}
	var sb strings.Builder
	sb.Grow(len(tmpl) + 16)
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		sb.WriteString(tmpl[:i])
		name := tmpl[i+1 : i+j]
		switch name {
		case "node_id", "host":
			if host == "" {
				host = "cluster"
			}
			sb.WriteString(host)
		case "cluster":
			sb.WriteString(cluster)
		case "job_id":
			sb.WriteString(jobID)
		case "operation":
			sb.WriteString(operation)
		default:
			if v, ok := params[name]; ok {
				sb.WriteString(v)
			} else {
				sb.WriteString(tmpl[i : i+j+1])
			}
		}
		tmpl = tmpl[i+j+1:]
	}
}

// clusterName is what {cluster} renders to.
func clusterName(in *protocol.Intent) string {
	for _, v := range []string{in.TargetResource, in.Parameters["cluster_name"], in.Parameters["name"], in.ID} {
		if v != "" {
			return v
		}
	}
	return "cluster"
}
