package packs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelsHost is a first master whose kubectl logs its calls and reports
// the taints in taints (key:Effect entries) for any node.
func labelsHost(t *testing.T, taints string) *scriptHost {
	h := newScriptHost(t)
	stub := "#!/bin/sh\n__l=kubectl; for a in \"$@\"; do __l=\"$__l $a\"; done; printf '%s\\n' \"$__l\" >>\"$CP_TEST_CALLS\"\n" +
		"case \"$*\" in *jsonpath=*) printf '%s' '" + taints + "' ;; esac\n"
	if err := os.WriteFile(filepath.Join(h.bin, "kubectl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// label-node passes each label and taint of the comma-separated encoding
// to kubectl as one argument.
func TestLabelNodeScript(t *testing.T) {
	h := labelsHost(t, "")
	succeeded(t, h.run("kubernetes/scripts/label-node.sh", map[string]string{
		"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc",
		"CP_HOST_LABELS":               "example.com/team=,tier=app",
		"CP_HOST_TAINTS":               "dedicated=db:NoSchedule,gpu:NoExecute",
	}))
	want := "kubectl --kubeconfig /kc label node node-1 --overwrite node-role.kubernetes.io/worker= example.com/team= tier=app\n" +
		"kubectl --kubeconfig /kc taint node node-1 dedicated=db:NoSchedule gpu:NoExecute --overwrite\n"
	if got := h.log(h.calls); got != want {
		t.Errorf("kubectl calls:\n%s\nwant:\n%s", got, want)
	}
}

// A value that does not pass the Kubernetes syntax is refused before any
// kubectl call, whatever the engine checked: the script is the last line.
func TestLabelNodeScriptRefusals(t *testing.T) {
	for name, c := range map[string]struct{ labels, taints, want string }{
		"newline adds a label":    {"inj=x\nnode-role.kubernetes.io/control-plane=yes", "", "CP_HOST_LABELS"},
		"command in a value":      {"a=$(touch " + "CANARY)", "", `label "a=$(touch`},
		"option as a label":       {"--all=x", "", `label "--all=x"`},
		"taint without effect":    {"", "dedicated=db", `taint "dedicated=db"`},
		"taint with a bad effect": {"", "a=b:Sometimes", `taint "a=b:Sometimes"`},
		"space in a taint":        {"", "a=b c:NoSchedule", `taint "a=b c:NoSchedule"`},
	} {
		t.Run(name, func(t *testing.T) {
			h := labelsHost(t, "")
			labels := strings.ReplaceAll(c.labels, "CANARY", h.canary)
			res := h.run("kubernetes/scripts/label-node.sh", map[string]string{
				"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc", "CP_HOST_LABELS": labels, "CP_HOST_TAINTS": c.taints,
			})
			refused(t, h, res, c.want)
			if calls := h.log(h.calls); calls != "" {
				t.Errorf("kubectl ran before the refusal:\n%s", calls)
			}
		})
	}
}

// relabel-nodes applies exactly the change per node: one label call with
// removals as key-, removals of the taints the node still has, then the
// taints to set with --overwrite.
func TestRelabelNodesScript(t *testing.T) {
	h := labelsHost(t, "gpu:NoExecute,node-role.kubernetes.io/control-plane:NoSchedule,")
	succeeded(t, h.run("kubernetes/scripts/relabel-nodes.sh", map[string]string{
		"CP_PARAM_NODE_CHANGES": "master-1/rack=r2,worker-1/example.com/team=payments,worker-1/zone-," +
			"worker-1/dedicated=web:NoSchedule,worker-1/gpu:NoExecute-,worker-1/old:NoSchedule-",
	}))
	kc := "kubectl --kubeconfig /etc/kubernetes/admin.conf "
	taints := "get node %s -o jsonpath={range .spec.taints[*]}{.key}:{.effect}{\",\"}{end}\n"
	want := kc + strings.ReplaceAll(taints, "%s", "master-1") +
		kc + "label node master-1 --overwrite rack=r2\n" +
		kc + strings.ReplaceAll(taints, "%s", "worker-1") +
		kc + "label node worker-1 --overwrite example.com/team=payments zone-\n" +
		kc + "taint node worker-1 gpu:NoExecute-\n" +
		kc + "taint node worker-1 dedicated=web:NoSchedule --overwrite\n"
	if got := h.log(h.calls); got != want {
		t.Errorf("kubectl calls:\n%s\nwant:\n%s", got, want)
	}
}

func TestRelabelNodesScriptRefusals(t *testing.T) {
	for name, c := range map[string]struct{ changes, want string }{
		"empty":                     {"", "node_changes is empty"},
		"newline adds a change":     {"worker-1/a=b\nmaster-1/node-role.kubernetes.io/control-plane=", "node_changes"},
		"command in a value":        {"worker-1/a=$(touch CANARY)", `change for node worker-1 "a=$(touch`},
		"option as a node":          {"--all/a=b", `change "--all/a=b"`},
		"no node":                   {"a=b", `change "a=b"`},
		"space in a change":         {"worker-1/a=b c", `change for node worker-1 "a=b c"`},
		"removal with a value":      {"worker-1/a=b-", `change for node worker-1 "a=b-"`},
		"taint removal with value":  {"worker-1/a=b:NoSchedule-", `change for node worker-1 "a=b:NoSchedule-"`},
		"taint with a bad effect":   {"worker-1/a=b:Sometimes", `change for node worker-1 "a=b:Sometimes"`},
		"second change is injected": {"worker-1/a=b,worker-1/$(touch CANARY)", `change for node worker-1 "$(touch`},
	} {
		t.Run(name, func(t *testing.T) {
			h := labelsHost(t, "")
			res := h.run("kubernetes/scripts/relabel-nodes.sh", map[string]string{
				"CP_PARAM_NODE_CHANGES": strings.ReplaceAll(c.changes, "CANARY", h.canary),
			})
			refused(t, h, res, c.want)
			if calls := h.log(h.calls); calls != "" {
				t.Errorf("kubectl ran before the refusal:\n%s", calls)
			}
		})
	}
}
