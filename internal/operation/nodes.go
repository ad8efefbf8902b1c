package operation

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Node is a Kubernetes node as the API server reports it.
type Node struct {
	Name           string
	InternalIP     string
	ControlPlane   bool
	Ready          bool
	KubeletVersion string
	// Labels are the node's labels; Taints its taints as
	// key[=value]:Effect, in the API server's order.
	Labels map[string]string
	Taints []string
}

// nodesCommand reads the node list with the admin kubeconfig on a master.
const nodesCommand = "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o json"

// ListNodes asks the API server, through a master, for the nodes.
func ListNodes(ctx context.Context, master HostAccess, redactor *transport.Redactor) ([]Node, error) {
	pool, err := Pool([]HostAccess{master}, redactor)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	conn, err := pool.Dial(ctx, master.Host.Name)
	if err != nil {
		return nil, fmt.Errorf("list nodes through %s: %w", master.Host.Name, err)
	}
	res, err := conn.Run(ctx, transport.Command{Cmd: nodesCommand, Become: master.Access.User != "root"})
	if err != nil {
		return nil, fmt.Errorf("list nodes through %s: %w", master.Host.Name, err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("list nodes through %s: %s exited %d: %s", master.Host.Name, nodesCommand, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return parseNodes(res.Stdout)
}

func parseNodes(b []byte) ([]Node, error) {
	var list struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Taints []struct {
					Key    string `json:"key"`
					Value  string `json:"value"`
					Effect string `json:"effect"`
				} `json:"taints"`
			} `json:"spec"`
			Status struct {
				Conditions []struct {
					Type   string `json:"type"`
					Status string `json:"status"`
				} `json:"conditions"`
				Addresses []struct {
					Type    string `json:"type"`
					Address string `json:"address"`
				} `json:"addresses"`
				NodeInfo struct {
					KubeletVersion string `json:"kubeletVersion"`
				} `json:"nodeInfo"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("parse node list: %w", err)
	}
	var out []Node
	for _, it := range list.Items {
		n := Node{Name: it.Metadata.Name, KubeletVersion: it.Status.NodeInfo.KubeletVersion, Labels: it.Metadata.Labels}
		for _, t := range it.Spec.Taints {
			kv := t.Key
			if t.Value != "" {
				kv += "=" + t.Value
			}
			n.Taints = append(n.Taints, kv+":"+t.Effect)
		}
		_, n.ControlPlane = it.Metadata.Labels["node-role.kubernetes.io/control-plane"]
		for _, c := range it.Status.Conditions {
			if c.Type == "Ready" {
				n.Ready = c.Status == "True"
			}
		}
		for _, a := range it.Status.Addresses {
			if a.Type == "InternalIP" {
				n.InternalIP = a.Address
			}
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
