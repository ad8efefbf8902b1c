package hostsim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// kubeadmConfig is what the simulator reads from a kubeadm --config file.
type kubeadmConfig struct {
	KubernetesVersion    string
	ControlPlaneEndpoint string
	AdvertiseAddress     string
	NodeName             string
	Tokens               []string
	// JoinConfiguration
	JoinEndpoint   string
	JoinToken      string
	CAHashes       []string
	CertificateKey string
	ControlPlane   bool
}

func parseKubeadmConfig(b []byte) (kubeadmConfig, error) {
	var cfg kubeadmConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return cfg, fmt.Errorf("couldn't parse the kubeadm config: %w", err)
		}
		if doc == nil {
			continue
		}
		api, _ := doc["apiVersion"].(string)
		kind, _ := doc["kind"].(string)
		if strings.HasPrefix(api, "kubeadm.k8s.io/") && api != "kubeadm.k8s.io/v1beta3" && api != "kubeadm.k8s.io/v1beta4" {
			return cfg, fmt.Errorf("no kind %q is registered for version %q in scheme \"k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/scheme/scheme.go:31\"", kind, api)
		}
		switch kind {
		case "ClusterConfiguration":
			cfg.KubernetesVersion = str(doc, "kubernetesVersion")
			cfg.ControlPlaneEndpoint = str(doc, "controlPlaneEndpoint")
		case "InitConfiguration":
			cfg.AdvertiseAddress = str(doc, "localAPIEndpoint", "advertiseAddress")
			cfg.NodeName = str(doc, "nodeRegistration", "name")
			if ts, ok := doc["bootstrapTokens"].([]any); ok {
				for _, t := range ts {
					if m, ok := t.(map[string]any); ok {
						if tok := str(m, "token"); tok != "" {
							cfg.Tokens = append(cfg.Tokens, tok)
						}
					}
				}
			}
		case "JoinConfiguration":
			cfg.NodeName = str(doc, "nodeRegistration", "name")
			cfg.JoinEndpoint = str(doc, "discovery", "bootstrapToken", "apiServerEndpoint")
			cfg.JoinToken = str(doc, "discovery", "bootstrapToken", "token")
			if cfg.JoinToken == "" {
				cfg.JoinToken = str(doc, "discovery", "tlsBootstrapToken")
			}
			cfg.CAHashes = strs(doc, "discovery", "bootstrapToken", "caCertHashes")
			if cp, ok := doc["controlPlane"].(map[string]any); ok {
				cfg.ControlPlane = true
				cfg.CertificateKey = str(cp, "certificateKey")
			}
		}
	}
	return cfg, nil
}

// str digs a scalar out of nested YAML maps.
func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	if cur == nil {
		return ""
	}
	return fmt.Sprint(cur)
}

func strs(m map[string]any, path ...string) []string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	list, _ := cur.([]any)
	var out []string
	for _, v := range list {
		out = append(out, fmt.Sprint(v))
	}
	return out
}
