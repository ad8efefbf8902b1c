package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const mirror = "https://mirror.gcr.io"

// registryPatch is the PlanPatch of seed 000 §4: configure a registry
// mirror in containerd, restart it, pre-pull the images, retry init.
func registryPatch() protocol.PlanPatch {
	return protocol.PlanPatch{ID: "patch-registry-mirror", Author: "ai-agent:sre",
		Reason: "init-control-plane cannot pull images from registry.k8s.io; pull through a mirror.",
		Changes: []protocol.PatchChange{
			{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{
				{ID: "configure-containerd-registry-mirror", Parameters: map[string]string{"registry_mirrors": mirror}},
				{ID: "restart-containerd"},
				{ID: "pre-pull-kubernetes-images"},
			}},
			{Retry: &protocol.RetryChange{Job: "init-control-plane"}},
		},
		Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}, ApprovedBy: "alice"},
	}
}

// TestImagePullFaultAndRegistryMirrorPatch: with image pulls failing,
// kubeadm init fails with its image-pull error; the seed's patch
// configures a registry mirror and the same operation then completes.
func TestImagePullFaultAndRegistryMirrorPatch(t *testing.T) {
	const name = "pull-k8s"
	e := startHosts(t, name, "master-1", "worker-1")
	if err := e.c.SetFault(hostsim.Fault{Kind: hostsim.FaultImagePull}); err != nil {
		t.Fatal(err)
	}
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	req := e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"

	first := e.compose(req)
	res := e.run(first.Plan, engine.RunInput{})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("with the image-pull fault: %s, want Failed\n%s", res.Operation.Status, describe(res))
	}
	initRes := instance(t, res, "init-control-plane[master-1]")
	if initRes.Status != engine.StatusFailed {
		t.Fatalf("init-control-plane: %s, want failed", initRes.Status)
	}
	tail := strings.Join(initRes.LogTail, "\n")
	if !strings.Contains(tail, "[ERROR ImagePull]: failed to pull image registry.k8s.io/kube-apiserver:v1.31.2") {
		t.Errorf("init-control-plane log tail lacks kubeadm's image-pull error:\n%s", tail)
	}
	if got := res.Failed; len(got) != 1 || got[0] != "init-control-plane[master-1]" {
		t.Errorf("failed instances = %v, want only init-control-plane", got)
	}

	req.Patches = []protocol.PlanPatch{registryPatch()}
	patched := e.compose(req)
	for _, job := range []string{"configure-containerd-registry-mirror", "restart-containerd", "pre-pull-kubernetes-images"} {
		if n := len(jobInstances(patched.Plan, job)); n != 2 {
			t.Errorf("patched plan has %d instances of %s, want one per host", n, job)
		}
	}
	res = e.runCompleted(patched.Plan, engine.RunInput{})
	for _, in := range res.Instances {
		if in.Job == "validate-inputs" && in.Status != engine.StatusSatisfied {
			t.Errorf("%s: %s, want satisfied (it completed in the first run)", in.ID, in.Status)
		}
	}
	if in := instance(t, res, "init-control-plane[master-1]"); in.Status != engine.StatusDone {
		t.Errorf("init-control-plane: %s, want done", in.Status)
	}
	for _, h := range hosts {
		conf, err := e.hostFile(h.Name, "etc/containerd/config.toml")
		if err != nil || !strings.Contains(conf, `config_path = "/etc/containerd/certs.d"`) {
			t.Errorf("%s: containerd config.toml does not use certs.d (%v)", h.Name, err)
		}
		for _, reg := range []string{"registry.k8s.io", "docker.io", "quay.io"} {
			ht, err := e.hostFile(h.Name, "etc/containerd/certs.d/"+reg+"/hosts.toml")
			if err != nil || !strings.Contains(ht, `[host."`+mirror+`"]`) {
				t.Errorf("%s: %s hosts.toml has no mirror %s (%v):\n%s", h.Name, reg, mirror, err, ht)
			}
		}
		if st := e.simState(); !st.Hosts[h.Name].MirrorConfigured {
			t.Errorf("%s: containerd did not load the mirror when it restarted", h.Name)
		}
	}
	if st := e.simState(); !st.NodeReady("master-1") || !st.NodeReady("worker-1") {
		t.Errorf("nodes not Ready: %v", e.nodes())
	}
}

// TestDNSFault: with the host's resolver broken, validate-credentials
// fails to resolve the registry; once resolv.conf is repaired the same
// operation completes.
func TestDNSFault(t *testing.T) {
	const name = "dns-k8s"
	e := startHosts(t, name, "master-1")
	if err := e.c.SetFault(hostsim.Fault{Kind: hostsim.FaultDNS, Host: "master-1"}); err != nil {
		t.Fatal(err)
	}
	req := e.clusterRequest("create", "1.31.2", e.intentHosts([]string{"master-1"}, nil), nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"
	plan := e.compose(req).Plan

	res := e.run(plan, engine.RunInput{})
	in := instance(t, res, "validate-credentials[master-1]")
	if in.Status != engine.StatusFailed || !strings.Contains(in.Reason, "cannot resolve registry host registry.k8s.io") {
		t.Fatalf("validate-credentials with a broken resolver: %s %s", in.Status, in.Reason)
	}
	root, err := e.c.RootPath("master-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/resolv.conf"), []byte("nameserver 10.0.0.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.runCompleted(plan, engine.RunInput{})
}
