package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"golang.org/x/crypto/ssh"
)

// TestSecretsStayOffWorkers creates a cluster of one master and two
// workers, removes worker-2 and upgrades the rest, and after each completed
// run searches every host's own files (its overlay upper directory):
//   - the admin kubeconfig's client key is on no worker, ever: label-node,
//     drain-node, delete-node, drain-node-for-upgrade and uncordon-node run
//     their kubectl on the first master (scope.run_on);
//   - neither the client key nor the join token is anywhere under
//     /var/lib/cp/run on any host: run directories leave with their jobs;
//   - what stays under /var/lib/cp (kept artifacts, markers) cannot be read
//     by the login user without sudo.
func TestSecretsStayOffWorkers(t *testing.T) {
	const name = "sec-k8s"
	e := startHosts(t, name, "master-1", "worker-1", "worker-2")
	all := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	req := func(action, version string, hosts []protocol.Host, targets []string, st planner.State) planner.Request {
		r := e.clusterRequest(action, version, hosts, targets, st)
		r.PlanID = name + "." + action
		r.Intent.ID, r.Intent.TargetResource = name, name
		r.Intent.Parameters["cluster_name"] = name
		return r
	}
	create := e.compose(req("create", "1.31.2", all, nil, planner.State{})).Plan
	noAdminKubeconfigOnWorkers(t, create)
	res := e.runCompleted(create, engine.RunInput{})
	arts := res.Artifacts
	kubeconfig, ok := res.SecretValue("kubeconfig.admin", "")
	if !ok {
		t.Fatal("no kubeconfig.admin value")
	}
	token, ok := res.SecretValue("kubeadm.join_token", "")
	if !ok || token == "" {
		t.Fatal("no kubeadm.join_token value")
	}
	clientKey := kubeconfigField(t, kubeconfig, "client-key-data")
	secrets := map[string]string{"the admin kubeconfig's client key": clientKey, "the join token": token}
	e.checkSecretsOnHosts(t, "create", clientKey, secrets)

	c := e.compose(req("remove_node", "1.31.2", all, []string{"worker-2"}, clusterState(arts)))
	noAdminKubeconfigOnWorkers(t, c.Plan)
	for _, id := range []string{"drain-node[worker-2]", "delete-node[worker-2]"} {
		if in, ok := c.Plan.Instance(id); !ok || in.RunOn != "master-1" {
			t.Fatalf("%s: %+v; want it planned on master-1", id, in)
		}
	}
	res = e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
		{Gate: "confirm-node-removal", Option: "remove node", Actor: "alice", Roles: []string{"sre"}}}})
	arts = protocol.MergeArtifacts(arts, res.Artifacts)
	if in := instance(t, res, "drain-node[worker-2]"); in.Status != engine.StatusDone {
		t.Errorf("drain-node[worker-2]: %s", in.Status)
	}
	e.checkSecretsOnHosts(t, "remove_node", clientKey, secrets)

	rest := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	upgrade := e.compose(req("upgrade", "1.32.2", rest, nil, clusterState(arts))).Plan
	noAdminKubeconfigOnWorkers(t, upgrade)
	res = e.runCompleted(upgrade, engine.RunInput{
		Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{{Gate: "approve-upgrade", Option: "upgrade", Actor: "alice", Roles: []string{"sre"}}}})
	for _, id := range []string{"drain-node-for-upgrade[worker-1]", "upgrade-node[worker-1]", "uncordon-node[worker-1]"} {
		if in := instance(t, res, id); in.Status != engine.StatusDone {
			t.Errorf("%s: %s (%s)", id, in.Status, in.Reason)
		}
	}
	if v := e.simState().Hosts["worker-1"].Packages["kubelet"]; !strings.HasPrefix(v, "1.32.2-") {
		t.Errorf("kubelet on worker-1 is %q, want 1.32.2", v)
	}
	if n := e.simState().Nodes["worker-1"]; n == nil || n.Unschedulable {
		t.Errorf("worker-1 after the upgrade: %+v; want a schedulable node", n)
	}
	e.checkSecretsOnHosts(t, "upgrade", clientKey, secrets)
}

// noAdminKubeconfigOnWorkers fails when an instance that executes on a
// worker requires the admin kubeconfig: the engine would write it into
// that instance's input directory there.
func noAdminKubeconfigOnWorkers(t *testing.T, p *protocol.Plan) {
	t.Helper()
	for _, in := range p.Instances {
		if in.Job == nil {
			continue
		}
		exec := in.Host
		if in.RunOn != "" {
			exec = in.RunOn
		}
		h, ok := p.Intent.Host(exec)
		if !ok || h.Role != protocol.RoleWorker {
			continue
		}
		for _, a := range in.Job.Inputs.Requires.Artifacts {
			if a.ID == "kubeconfig.admin" {
				t.Errorf("plan %s: %s executes on worker %s and requires kubeconfig.admin", p.ID, in.ID, exec)
			}
		}
	}
}

// kubeconfigField returns the value of a "field: value" line of a kubeconfig.
func kubeconfigField(t *testing.T, kc, field string) string {
	t.Helper()
	for _, l := range strings.Split(kc, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("the admin kubeconfig has no %s", field)
	return ""
}

// checkSecretsOnHosts searches every host's own files after a run.
func (e *env) checkSecretsOnHosts(t *testing.T, after, clientKey string, secrets map[string]string) {
	t.Helper()
	for name, h := range e.hosts {
		files := filesIn(t, h.Upper, "")
		if len(files) == 0 {
			t.Fatalf("after %s: no file in the upper directory of %s; the search looked at the wrong place", after, name)
		}
		for p, b := range files {
			if strings.HasPrefix(name, "worker-") && bytes.Contains(b, []byte(clientKey)) {
				t.Errorf("after %s: worker %s has the admin kubeconfig's client key in %s", after, name, p)
			}
			if !strings.HasPrefix(p, "/var/lib/cp/run/") {
				continue
			}
			for what, v := range secrets {
				if bytes.Contains(b, []byte(v)) {
					t.Errorf("after %s: %s of %s holds %s", after, p, name, what)
				}
			}
		}
		// No simulated command on a worker was given an admin kubeconfig.
		if strings.HasPrefix(name, "worker-") {
			lines, err := e.c.SimLog(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if strings.Contains(l, "kubeconfig.admin") || strings.Contains(l, "admin.conf") {
					t.Errorf("after %s: worker %s ran %s", after, name, l)
				}
			}
		}
		// What stays is root's: the login user reads none of it.
		out, err := e.loginRun(name, "find /var/lib/cp -mindepth 1 -type f -exec cat {} + 2>&1; ls /var/lib/cp/artifacts/* /var/lib/cp/markers 2>&1")
		if err != nil {
			t.Fatalf("after %s: run as the login user on %s: %v", after, name, err)
		}
		for what, v := range secrets {
			if strings.Contains(out, v) {
				t.Errorf("after %s: the login user of %s reads %s under /var/lib/cp", after, name, what)
			}
		}
		if name == "master-1" && !strings.Contains(out, "Permission denied") {
			t.Errorf("after %s: the login user of master-1 was refused nothing under /var/lib/cp: %q", after, out)
		}
	}
}

// filesIn reads every regular file under dir/sub (an overlay upper
// directory: deleted files are whiteouts, not regular files), keyed by
// their path on the host.
func filesIn(t *testing.T, dir, sub string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) || os.IsPermission(err) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 16<<20 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out["/"+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return out
}

// loginRun runs a command on a host as its login user, without sudo, and
// returns its combined output.
func (e *env) loginRun(host, cmd string) (string, error) {
	h := e.hosts[host]
	cfg, err := h.ClientConfig()
	if err != nil {
		return "", err
	}
	cl, err := ssh.Dial("tcp", h.Target(), cfg)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	s, err := cl.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	if _, exit := err.(*ssh.ExitError); exit {
		err = nil
	}
	return string(out), err
}
