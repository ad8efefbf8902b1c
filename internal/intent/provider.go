package intent

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Env looks up an environment variable (os.LookupEnv).
type Env func(name string) (string, bool)

// CheckPolicyKeys refuses capability_policy keys that no pack of the
// catalog requires: such a rule would never apply, and a typo in a key
// would silently leave the capability without its policy.
func CheckPolicyKeys(base Path, keys []string, cat Catalog) Problems {
	var ps Problems
	known := RequiredCapabilities(cat)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			ps.add(base.Key(k), "Unknown capability",
				"%s is not a capability any scenario pack requires, so this policy would never apply; use one of %s.",
				paramtype.Quote(k), quoteList(known))
		}
	}
	return ps
}

// CheckActorRoles refuses actor roles that no gate can ask for: roles
// required by a gate of a pack template, or allowed to approve by the
// capability policy (policyRoles).
func CheckActorRoles(base Path, roles []string, cat Catalog, policyRoles []string) Problems {
	var ps Problems
	known := GateRoles(cat)
	for _, r := range policyRoles {
		if !slices.Contains(known, r) {
			known = append(known, r)
		}
	}
	slices.Sort(known)
	for i, r := range roles {
		if !slices.Contains(known, r) {
			ps.add(base.Index(i), "Unknown role",
				"%s is a role no gate asks for (gates of the packs and approvals of the capability policy name %s); remove it or name one of those.",
				paramtype.Quote(r), quoteList(known))
		}
	}
	return ps
}

// CheckEnvVar refuses a variable name that is not set, or set empty, in
// the provider's environment; what is the value it should hold.
func CheckEnvVar(p Path, name, what string, env Env) Problems {
	var ps Problems
	if name == "" {
		return ps
	}
	if v, ok := env(name); !ok || v == "" {
		state := "is not set"
		if ok {
			state = "is empty"
		}
		ps.add(p, "Environment variable not set",
			"%s names the environment variable that holds %s, but it %s where OpenTofu/Terraform runs; export it before plan and apply, or remove the attribute.",
			paramtype.Quote(name), what, state)
	}
	return ps
}

// Diagnosis is the provider's diagnosis block as configured.
type Diagnosis struct {
	Command     bool // a command block is set
	CommandPath string
	HTTP        bool // an http block is set
	Endpoint    string
	Model       string
	APIKeyEnv   string
}

// CheckDiagnosis checks the analyzers: the command exists and is
// executable (as exec finds it: a path, or a name on PATH), the endpoint
// is an http(s) URL, a model is named, the API key variable is set.
func CheckDiagnosis(base Path, d Diagnosis, env Env, lookPath func(string) (string, error)) Problems {
	var ps Problems
	if d.Command {
		p := base.Attr("command").Attr("path")
		if d.CommandPath == "" {
			ps.add(p, "Missing analyzer command", "set the path of the executable that reads a failure on stdin.")
		} else if _, err := lookPath(d.CommandPath); err != nil {
			where := "is not an executable file"
			if !strings.Contains(d.CommandPath, "/") {
				where = "is not an executable on PATH"
			}
			ps.add(p, "Analyzer command not found", "%s %s; give the path of an executable that exists on the machine running OpenTofu/Terraform.",
				paramtype.Quote(d.CommandPath), where)
		}
	}
	if d.HTTP {
		h := base.Attr("http")
		if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.URL}, d.Endpoint); err != nil {
			ps.add(h.Attr("endpoint"), "Invalid analyzer endpoint", "%s is not an http(s) URL such as \"http://127.0.0.1:8080/v1\".", paramtype.Quote(d.Endpoint))
		}
		if strings.TrimSpace(d.Model) == "" {
			ps.add(h.Attr("model"), "Missing analyzer model", "name the model the server should answer with.")
		}
		ps = append(ps, CheckEnvVar(h.Attr("api_key_env"), d.APIKeyEnv, "the analyzer's API key", env)...)
	}
	return ps
}
