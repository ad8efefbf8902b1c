package packs

import (
	"strings"
	"testing"
)

// TestRestoreEtcdSnapshotNodeAddress: the restored member's peer URL is the
// master's node address (node_addresses), the address kubeadm advertised,
// not its SSH address; without an entry it is the SSH address; a manifest
// whose peer URL differs from the node address is refused before anything
// stops.
func TestRestoreEtcdSnapshotNodeAddress(t *testing.T) {
	const script = "kubernetes/scripts/restore-etcd-snapshot.sh"
	h, env := restoreHost(t)
	env["CP_PARAM_NODE_ADDRESSES"] = "worker-1=192.168.10.21,node-1=192.168.10.11"
	h.write("/etc/kubernetes/manifests/etcd.yaml", "    - --initial-advertise-peer-urls=https://192.168.10.11:2380\n    - hostPath:\n        path: "+h.path("/var/lib/etcd")+"\n")
	succeeded(t, h.run(script, env, restorePaths...))
	calls := h.log(h.calls)
	if want := " --name node-1 --initial-cluster node-1=https://192.168.10.11:2380 --initial-advertise-peer-urls https://192.168.10.11:2380\n"; !strings.Contains(calls, want) {
		t.Errorf("the restore does not use node-1's node address 192.168.10.11:\n%s", calls)
	}
	if strings.Contains(calls, "10.0.0.11:2380") {
		t.Errorf("the restore uses node-1's SSH address:\n%s", calls)
	}

	// No entry for this host: its SSH address.
	h, env = restoreHost(t)
	env["CP_PARAM_NODE_ADDRESSES"] = "worker-1=192.168.10.21"
	succeeded(t, h.run(script, env, restorePaths...))
	if calls := h.log(h.calls); !strings.Contains(calls, "--initial-cluster node-1=https://10.0.0.11:2380 --initial-advertise-peer-urls https://10.0.0.11:2380\n") {
		t.Errorf("without a node address the restore does not use the SSH address:\n%s", calls)
	}

	// The manifest's peer URL is another address: refused, nothing stopped.
	h, env = restoreHost(t)
	h.write("/etc/kubernetes/manifests/etcd.yaml", "    - --initial-advertise-peer-urls=https://192.168.10.11:2380\n    - hostPath:\n        path: "+h.path("/var/lib/etcd")+"\n")
	refused(t, h, h.run(script, env, restorePaths...), "advertises the peer URL https://192.168.10.11:2380, not https://10.0.0.11:2380 of node address 10.0.0.11; set node_address of node-1")
	if calls := h.log(h.calls); strings.Contains(calls, "snapshot restore") || !h.exists("/etc/kubernetes/manifests/etcd.yaml") {
		t.Errorf("restored or moved the manifests despite the refusal:\n%s", calls)
	}
	// A node address that is no IPv4 address is refused.
	h, env = restoreHost(t)
	env["CP_PARAM_NODE_ADDRESSES"] = "node-1=10.0.0.1;touch " + h.canary
	refused(t, h, h.run(script, env, restorePaths...), `node address of host node-1 "10.0.0.1;touch`)
}

// TestValidateInputsNodeAddress: without control_plane_endpoint the
// normalized endpoint is the first master's node address, the one
// render-kubeadm-config advertises, not its SSH address; node_addresses
// entries must name hosts of the intent, once, with an IPv4 address.
func TestValidateInputsNodeAddress(t *testing.T) {
	const script = "kubernetes/scripts/validate-inputs.sh"
	hosts := map[string]string{
		"CP_HOSTS":                "m-1 203.0.113.10 master,node-1 203.0.113.11 worker",
		"CP_FIRST_MASTER":         "m-1",
		"CP_FIRST_MASTER_ADDRESS": "203.0.113.10",
	}
	run := func(addrs string) (*scriptHost, scriptResult) {
		h := newScriptHost(t)
		env := packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod", "node_addresses": addrs})
		for k, v := range hosts {
			env[k] = v
		}
		return h, h.run(script, env, "/var/lib/cp")
	}
	for addrs, want := range map[string]string{
		"m-1=10.0.0.10,node-1=10.0.0.11": "control_plane_endpoint=10.0.0.10:6443\n",
		"node-1=10.0.0.11":               "control_plane_endpoint=203.0.113.10:6443\n",
		"":                               "control_plane_endpoint=203.0.113.10:6443\n",
	} {
		h, res := run(addrs)
		succeeded(t, res)
		if got := h.read("/var/lib/cp/kubernetes/normalized_parameters"); !strings.Contains(got, want) {
			t.Errorf("node_addresses %q: normalized_parameters\n%s\nwant %q", addrs, got, want)
		}
		if !strings.Contains(res.stdout, "endpoint "+strings.TrimSuffix(strings.TrimPrefix(want, "control_plane_endpoint="), "\n")) {
			t.Errorf("node_addresses %q: stdout %q does not name the endpoint", addrs, res.stdout)
		}
	}
	for addrs, want := range map[string]string{
		"m-2=10.0.0.12":               "node_addresses names m-2, which is no host of the intent",
		"m-1=10.0.0.10,m-1=10.0.0.20": "node_addresses gives host m-1 two addresses",
		"m-1=10.0.0.300":              `node_addresses entry "m-1=10.0.0.300" is not name=IPv4`,
		"m-1":                         `node_addresses entry "m-1" is not name=IPv4`,
		"m-1=$(touch CANARY)":         `node_addresses entry "m-1=$(touch`,
	} {
		h := newScriptHost(t)
		env := packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod", "node_addresses": strings.ReplaceAll(addrs, "CANARY", h.canary)})
		for k, v := range hosts {
			env[k] = v
		}
		refused(t, h, h.run(script, env, "/var/lib/cp"), want)
		if h.exists("/var/lib/cp/kubernetes/normalized_parameters") {
			t.Errorf("node_addresses %q: normalized_parameters written despite the refusal", addrs)
		}
	}
}

// TestRemoveEtcdMemberNodeAddress: remove-etcd-member and its evidence
// reach the remaining masters' etcd at their node addresses (where kubeadm
// made it serve clients), not their SSH addresses; a master without an
// entry at its SSH address.
func TestRemoveEtcdMemberNodeAddress(t *testing.T) {
	env := map[string]string{"CP_HOST_ROLE": "master", "CP_PARAM_NODE_ADDRESSES": "master-1=192.168.10.1,node-1=192.168.10.11",
		"CP_HOSTS": "master-1 203.0.113.1 master,node-1 203.0.113.11 master,master-3 203.0.113.3 master,worker-1 203.0.113.21 worker"}
	h := etcdHost(t)
	h.stub("etcdctl", `case " $* " in *" member list "*) echo '91bc3c398fb3c146, started, node-1, https://192.168.10.11:2380, https://192.168.10.11:2379, false' ;; esac`)
	succeeded(t, h.run("kubernetes/scripts/remove-etcd-member.sh", env, "/etc/kubernetes/pki/etcd"))
	if calls := h.log(h.calls); !strings.Contains(calls, "etcdctl --endpoints=https://192.168.10.1:2379,https://203.0.113.3:2379 ") || strings.Contains(calls, "203.0.113.1:") {
		t.Errorf("etcdctl not called at master-1's node address and master-3's SSH address:\n%s", calls)
	}

	h = newScriptHost(t)
	h.stub("etcdctl", `echo '8e9e05c52164694d, started, master-1, https://192.168.10.1:2380, https://192.168.10.1:2379, false'`)
	if held, got := h.evidence("kubernetes/jobs/remove-etcd-member.yaml", "member_not_listed", env); !held {
		t.Errorf("member_not_listed fails (%q) with node-1 gone", got)
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "--endpoints=https://192.168.10.1:2379,https://203.0.113.3:2379 ") {
		t.Errorf("the evidence did not ask master-1 at its node address:\n%s", calls)
	}
}
