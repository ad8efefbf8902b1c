package provider

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/diagnose"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var stringType = types.StringType

type providerModel struct {
	Environment        types.String                     `tfsdk:"environment"`
	PackDirs           []types.String                   `tfsdk:"pack_dirs"`
	Parallelism        types.Int64                      `tfsdk:"parallelism"`
	PerHostParallelism types.Int64                      `tfsdk:"per_host_parallelism"`
	Actor              types.String                     `tfsdk:"actor"`
	ActorRoles         []types.String                   `tfsdk:"actor_roles"`
	SSH                *sshModel                        `tfsdk:"ssh"`
	CapabilityPolicy   map[string]capabilityPolicyModel `tfsdk:"capability_policy"`
	Organization       types.String                     `tfsdk:"organization"`
	PolicyRules        []policyRuleListModel            `tfsdk:"policy_rules"`
	Diagnosis          *diagnosisModel                  `tfsdk:"diagnosis"`
	DestroyApprovals   []destroyApprovalModel           `tfsdk:"destroy_approvals"`
	RefreshEvidence    types.Bool                       `tfsdk:"refresh_evidence"`
}

type diagnosisModel struct {
	Command *struct {
		Path    types.String   `tfsdk:"path"`
		Args    []types.String `tfsdk:"args"`
		Timeout types.String   `tfsdk:"timeout"`
	} `tfsdk:"command"`
	HTTP *struct {
		Endpoint  types.String `tfsdk:"endpoint"`
		Model     types.String `tfsdk:"model"`
		APIKeyEnv types.String `tfsdk:"api_key_env"`
		Timeout   types.String `tfsdk:"timeout"`
	} `tfsdk:"http"`
}

type sshModel struct {
	User              types.String  `tfsdk:"user"`
	Port              types.Int64   `tfsdk:"port"`
	PrivateKeyFile    types.String  `tfsdk:"private_key_file"`
	PrivateKeyWO      types.String  `tfsdk:"private_key_wo"`
	KnownHostsFile    types.String  `tfsdk:"known_hosts_file"`
	HostKeyChecking   types.String  `tfsdk:"host_key_checking"`
	Timeout           types.String  `tfsdk:"timeout"`
	BecomePasswordEnv types.String  `tfsdk:"become_password_env"`
	BecomePasswordWO  types.String  `tfsdk:"become_password_wo"`
	Bastion           *bastionModel `tfsdk:"bastion"`
}

type bastionModel struct {
	Address        types.String `tfsdk:"address"`
	Port           types.Int64  `tfsdk:"port"`
	User           types.String `tfsdk:"user"`
	PrivateKeyFile types.String `tfsdk:"private_key_file"`
	PrivateKeyWO   types.String `tfsdk:"private_key_wo"`
}

type capabilityPolicyModel struct {
	Environments map[string]policyRuleModel `tfsdk:"environments"`
}

type policyRuleModel struct {
	AllowedProviders  []types.String `tfsdk:"allowed_providers"`
	DefaultProvider   types.String   `tfsdk:"default_provider"`
	RequireEncryption types.Bool     `tfsdk:"require_encryption"`
	RequireApproval   types.Bool     `tfsdk:"require_approval"`
	ApprovalRoles     []types.String `tfsdk:"approval_roles"`
	ExceptionRoles    []types.String `tfsdk:"exception_roles"`
	MaxMonthlyCost    types.Float64  `tfsdk:"max_monthly_cost_without_confirmation"`
}

// providerData is what Configure hands to data sources and resources:
// plain values, validated, with defaults applied.
type providerData struct {
	Version     string
	Environment string
	Catalog     *packs.Catalog
	Policy      capability.Policy // capability -> environment -> rule
	// Organization and Rules are what policy_rules match on and say.
	Organization string
	Rules        []capability.Rule
	SSH          SSHDefaults
	Parallelism  int
	PerHost      int
	Actor        string
	Roles        []string
	Analyzers    []diagnose.Analyzer
	// DestroyApprovals decide destroy gates without a prior apply.
	DestroyApprovals []destroyApproval
	// RefreshEvidence: refresh checks the recorded evidence of the intent
	// resources again on their hosts (intent_refresh.go).
	RefreshEvidence bool
}

// SSHDefaults are the provider-wide SSH settings. PrivateKey and
// BecomePassword hold the secrets given by private_key_wo and
// become_password_wo; they live only in memory.
type SSHDefaults struct {
	User              string
	Port              int
	PrivateKeyFile    string
	PrivateKey        []byte
	KnownHostsFile    string
	HostKeyChecking   string
	Timeout           time.Duration
	BecomePasswordEnv string
	BecomePassword    string
	Bastion           *Bastion
}

// Bastion is a jump host. PrivateKey is the key material of
// bastion.private_key_wo.
type Bastion struct {
	Address        string
	Port           int
	User           string
	PrivateKeyFile string
	PrivateKey     []byte
}

var envName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

func strOr(v types.String, def string) string {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueString()
}

func intOr(v types.Int64, def int) int {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return int(v.ValueInt64())
}

func strs(vs []types.String) []string {
	var out []string
	for _, v := range vs {
		if !v.IsNull() && !v.IsUnknown() {
			out = append(out, v.ValueString())
		}
	}
	return out
}

// settings validates the configuration and builds providerData. Every
// problem is reported with its attribute path.
func (m providerModel) settings(version string) (*providerData, diag.Diagnostics) {
	var diags diag.Diagnostics
	d := &providerData{
		Version:     version,
		Environment: strOr(m.Environment, "dev"),
		Parallelism: intOr(m.Parallelism, 10),
		PerHost:     intOr(m.PerHostParallelism, 4),
		Actor:       strOr(m.Actor, "terraform"),
		Roles:       strs(m.ActorRoles),
		Policy:      capability.Policy{},
	}
	d.Organization = strOr(m.Organization, "")
	d.RefreshEvidence = m.RefreshEvidence.IsNull() || m.RefreshEvidence.IsUnknown() || m.RefreshEvidence.ValueBool()
	if !envName.MatchString(d.Environment) {
		addAttrError(&diags, path.Root("environment"), "Invalid environment",
			fmt.Sprintf("%s must start with a lower-case letter and hold only lower-case letters, digits and '-', e.g. \"prod\".", paramtype.Quote(d.Environment)))
	}
	if d.Parallelism < 1 || d.Parallelism > 1000 {
		addAttrError(&diags, path.Root("parallelism"), "Invalid parallelism",
			fmt.Sprintf("is %d; set a value between 1 and 1000.", d.Parallelism))
	}
	if d.PerHost < 1 || d.PerHost > 64 {
		addAttrError(&diags, path.Root("per_host_parallelism"), "Invalid per_host_parallelism",
			fmt.Sprintf("is %d; set a value between 1 and 64 (OpenSSH allows 10 sessions per connection by default).", d.PerHost))
	}
	if d.Actor == "" {
		addAttrError(&diags, path.Root("actor"), "Invalid actor", "must not be empty; name the person or pipeline acting, e.g. \"ci\".")
	}
	d.SSH, diags = m.sshSettings(diags)
	checkProviderEnv(d.SSH, &diags)
	m.policySettings(d, &diags)
	d.Analyzers = m.analyzers(&diags)
	d.DestroyApprovals = destroyApprovalsOf(m.DestroyApprovals, &diags)
	d.Catalog = loadCatalog(strs(m.PackDirs), &diags)
	m.policyRules(d, &diags)
	if d.Catalog != nil {
		m.checkAgainstCatalog(d, &diags)
	}
	return d, diags
}

// checkAgainstCatalog refuses policy keys no pack requires and actor
// roles no gate asks for: both would be accepted without any effect.
func (m providerModel) checkAgainstCatalog(d *providerData, diags *diag.Diagnostics) {
	addProblems(diags, intent.CheckPolicyKeys(intent.Root("capability_policy"), protocol.SortedKeys(m.CapabilityPolicy), d.Catalog))
	var policyRoles []string
	for _, envs := range d.Policy {
		for _, rule := range envs {
			policyRoles = append(policyRoles, rule.ApprovalRoles...)
			policyRoles = append(policyRoles, rule.ExceptionRoles...)
		}
	}
	policyRoles = append(policyRoles, intent.RuleRoles(d.Rules)...)
	addProblems(diags, intent.CheckActorRoles(intent.Root("actor_roles"), d.Roles, d.Catalog, policyRoles))
}

func (m providerModel) sshSettings(diags diag.Diagnostics) (SSHDefaults, diag.Diagnostics) {
	s := SSHDefaults{User: "root", Port: 22, HostKeyChecking: "strict", Timeout: 30 * time.Second}
	if home, err := os.UserHomeDir(); err == nil {
		s.KnownHostsFile = home + "/.ssh/known_hosts"
	}
	if m.SSH == nil {
		return s, diags
	}
	p := path.Root("ssh")
	s.User = strOr(m.SSH.User, s.User)
	s.Port = intOr(m.SSH.Port, s.Port)
	s.PrivateKeyFile = strOr(m.SSH.PrivateKeyFile, "")
	s.KnownHostsFile = strOr(m.SSH.KnownHostsFile, s.KnownHostsFile)
	s.HostKeyChecking = strOr(m.SSH.HostKeyChecking, s.HostKeyChecking)
	s.BecomePasswordEnv = strOr(m.SSH.BecomePasswordEnv, "")
	sshSecrets(m.SSH, &s, &diags)
	if s.Port < 1 || s.Port > 65535 {
		addAttrError(&diags, p.AtName("port"), "Invalid SSH port", fmt.Sprintf("%d is not between 1 and 65535; 22 is SSH's port.", s.Port))
	}
	if !slices.Contains([]string{"strict", "accept-new"}, s.HostKeyChecking) {
		addAttrError(&diags, p.AtName("host_key_checking"), "Invalid host_key_checking",
			fmt.Sprintf("%s is not a mode; use \"strict\" (default) or \"accept-new\".", paramtype.Quote(s.HostKeyChecking)))
	}
	if t := strOr(m.SSH.Timeout, ""); t != "" {
		v, err := time.ParseDuration(t)
		if err != nil || v <= 0 {
			addAttrError(&diags, p.AtName("timeout"), "Invalid SSH timeout",
				fmt.Sprintf("%s is not a positive duration; use a value such as \"30s\" or \"2m\".", paramtype.Quote(t)))
		} else {
			s.Timeout = v
		}
	}
	if b := m.SSH.Bastion; b != nil {
		if port, set := portOf(b.Port); set {
			addProblems(&diags, intent.CheckPort(intent.Root("ssh").Attr("bastion").Attr("port"), port, "the bastion's SSH port"))
		}
		s.Bastion = &Bastion{
			Address:        strOr(b.Address, ""),
			Port:           intOr(b.Port, 22),
			User:           strOr(b.User, s.User),
			PrivateKeyFile: strOr(b.PrivateKeyFile, s.PrivateKeyFile),
		}
		if s.Bastion.PrivateKeyFile == s.PrivateKeyFile {
			s.Bastion.PrivateKey = s.PrivateKey
		}
		bastionSecret(b, s.Bastion, &diags)
		if s.Bastion.Address == "" {
			addAttrError(&diags, p.AtName("bastion").AtName("address"), "Missing bastion address", "set the address of the jump host.")
		}
	}
	return s, diags
}

func (m providerModel) policySettings(d *providerData, diags *diag.Diagnostics) {
	for _, capKey := range protocol.SortedKeys(m.CapabilityPolicy) {
		envs := m.CapabilityPolicy[capKey].Environments
		d.Policy[capKey] = map[string]capability.EnvPolicy{}
		for _, env := range protocol.SortedKeys(envs) {
			r := envs[env]
			p := path.Root("capability_policy").AtMapKey(capKey).AtName("environments").AtMapKey(env)
			rule := capability.EnvPolicy{
				AllowedProviders:  strs(r.AllowedProviders),
				DefaultProvider:   strOr(r.DefaultProvider, ""),
				RequireEncryption: r.RequireEncryption.ValueBool(),
				RequireApproval:   r.RequireApproval.ValueBool(),
				ApprovalRoles:     strs(r.ApprovalRoles),
				ExceptionRoles:    strs(r.ExceptionRoles),
			}
			if !r.MaxMonthlyCost.IsNull() && !r.MaxMonthlyCost.IsUnknown() {
				c := r.MaxMonthlyCost.ValueFloat64()
				if c < 0 {
					addAttrError(diags, p.AtName("max_monthly_cost_without_confirmation"), "Negative cost threshold",
						fmt.Sprintf("capability %s in %s: the monthly cost up to which a provider is created without confirmation is at least 0 (USD), e.g. 50.", capKey, env))
				}
				rule.MaxMonthlyCostWithoutConfirmation = &c
			}
			if !envName.MatchString(env) {
				addAttrError(diags, p, "Invalid environment name",
					fmt.Sprintf("%s must start with a lower-case letter and hold only lower-case letters, digits and '-'.", paramtype.Quote(env)))
			}
			if len(rule.AllowedProviders) == 0 {
				addAttrError(diags, p.AtName("allowed_providers"), "No allowed providers",
					fmt.Sprintf("capability %s in %s allows no provider; list at least one, e.g. [\"dedicated_minio\"].", capKey, env))
			}
			if rule.DefaultProvider != "" && !slices.Contains(rule.AllowedProviders, rule.DefaultProvider) {
				addAttrError(diags, p.AtName("default_provider"), "Default provider not allowed",
					fmt.Sprintf("%s is not one of allowed_providers %q; add it there or pick one of them.", paramtype.Quote(rule.DefaultProvider), rule.AllowedProviders))
			}
			if rule.RequireApproval && len(rule.ApprovalRoles) == 0 {
				rule.ApprovalRoles = []string{"platform_admin", "sre"}
			}
			d.Policy[capKey][env] = rule
		}
	}
}

func loadCatalog(dirs []string, diags *diag.Diagnostics) *packs.Catalog {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		diags.AddError("Embedded scenario packs are invalid", err.Error())
		return nil
	}
	for i, dir := range dirs {
		p := path.Root("pack_dirs").AtListIndex(i)
		user, err := packs.LoadDir(dir)
		if err != nil {
			addAttrError(diags, p, "Invalid scenario pack directory",
				fmt.Sprintf("%s\n\nFix the problems above in %s, or remove the directory from pack_dirs.", err, dir))
			continue
		}
		if err := cat.Merge(user); err != nil {
			addAttrError(diags, p, "Conflicting scenario pack", err.Error())
		}
	}
	return cat
}

// addAttrError attaches an error to an attribute and names the attribute
// path in the detail, so the message reads well in CLI output too.
func addAttrError(diags *diag.Diagnostics, p path.Path, summary, detail string) {
	diags.AddAttributeError(p, summary, p.String()+": "+detail)
}

func durationOr(v types.String, def time.Duration, p path.Path, diags *diag.Diagnostics) time.Duration {
	s := strOr(v, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		addAttrError(diags, p, "Invalid timeout", fmt.Sprintf("%s is not a positive duration such as \"30s\".", paramtype.Quote(s)))
		return def
	}
	return d
}

func (m providerModel) analyzers(diags *diag.Diagnostics) []diagnose.Analyzer {
	if m.Diagnosis == nil {
		return nil
	}
	var out []diagnose.Analyzer
	p := path.Root("diagnosis")
	dg := intent.Diagnosis{Command: m.Diagnosis.Command != nil, HTTP: m.Diagnosis.HTTP != nil}
	if c := m.Diagnosis.Command; c != nil {
		dg.CommandPath = strOr(c.Path, "")
	}
	if h := m.Diagnosis.HTTP; h != nil {
		dg.Endpoint, dg.Model, dg.APIKeyEnv = strOr(h.Endpoint, ""), strOr(h.Model, ""), strOr(h.APIKeyEnv, "")
	}
	addProblems(diags, intent.CheckDiagnosis(intent.Root("diagnosis"), dg, os.LookupEnv, exec.LookPath))
	if c := m.Diagnosis.Command; c != nil {
		out = append(out, &diagnose.CommandAnalyzer{Path: strOr(c.Path, ""), Args: strs(c.Args),
			Timeout: durationOr(c.Timeout, 30*time.Second, p.AtName("command").AtName("timeout"), diags)})
	}
	if h := m.Diagnosis.HTTP; h != nil {
		out = append(out, &diagnose.HTTPAnalyzer{Endpoint: strOr(h.Endpoint, ""), Model: strOr(h.Model, ""), APIKeyEnv: strOr(h.APIKeyEnv, ""),
			Timeout: durationOr(h.Timeout, 60*time.Second, p.AtName("http").AtName("timeout"), diags)})
	}
	return out
}
