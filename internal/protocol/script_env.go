package protocol

import "strings"

// The environment a job script and its evidence commands run with. The
// engine sets these; pack scripts read them. Values never appear in the
// command line itself.
const (
	// EnvParamPrefix + upper-cased parameter name, e.g. CP_PARAM_KUBERNETES_VERSION.
	EnvParamPrefix = "CP_PARAM_"
	// EnvArtifactPrefix + upper-cased artifact id with '.' and '-' as '_':
	// the path of a file holding the input artifact's value,
	// e.g. CP_ARTIFACT_KUBEADM_JOIN_TOKEN=/var/lib/cp/run/<op>/<instance>/in/kubeadm.join_token.
	EnvArtifactPrefix = "CP_ARTIFACT_"
	// EnvOutputDir is the directory the script writes produced artifacts
	// into, one file per artifact named by ArtifactSpec.File or its id.
	EnvOutputDir = "CP_OUTPUT_DIR"
	// EnvInputDir holds the input artifacts, one file per artifact id.
	EnvInputDir = "CP_INPUT_DIR"
	// EnvWorkDir is a scratch directory for the job instance.
	EnvWorkDir = "CP_WORK_DIR"
	// EnvHost is the name of the host the instance runs on (node_id).
	EnvHost = "CP_HOST"
	// EnvHostAddress is the address of that host as given in the intent.
	EnvHostAddress = "CP_HOST_ADDRESS"
	// EnvHostRole is master, worker or a pack-specific role.
	EnvHostRole = "CP_HOST_ROLE"
	// EnvCluster is the name of the target resource (cluster name).
	EnvCluster = "CP_CLUSTER"
	// EnvBoundCluster is the name of the Kubernetes cluster the plan is
	// bound to through its kubernetes.cluster requirement (a scenario or
	// Tempo on a cluster); unset when nothing binds one.
	EnvBoundCluster = "CP_BOUND_CLUSTER"
	// EnvFirstMaster is the name and EnvFirstMasterAddress the address of the
	// first master of the intent, when it has masters.
	EnvFirstMaster        = "CP_FIRST_MASTER"
	EnvFirstMasterAddress = "CP_FIRST_MASTER_ADDRESS"
	// EnvHosts lists every host of the intent in intent order, entries
	// separated by EnvListSeparator, each "name address role" separated by
	// single spaces: "master-1 10.0.0.11 master,worker-1 10.0.0.21 worker".
	// The engine refuses a host whose name, address or role holds a
	// space, a comma, '=' or a control character, so no value adds an
	// entry or a field.
	EnvHosts = "CP_HOSTS"
	// EnvHostLabels is the host's labels as k=v entries sorted by key and
	// separated by EnvListSeparator ("tier=app,zone=a"); EnvHostTaints its
	// taints as key[=value]:Effect entries, sorted, separated the same way
	// ("dedicated=db:NoSchedule"). Both are empty when the host has none.
	// The engine refuses a label that is not a Kubernetes label key and
	// value, and a taint not in Kubernetes syntax: neither can hold a
	// comma, a second '=' or a control character.
	EnvHostLabels = "CP_HOST_LABELS"
	EnvHostTaints = "CP_HOST_TAINTS"
	// EnvListSeparator separates the entries of EnvHosts, EnvHostLabels
	// and EnvHostTaints.
	EnvListSeparator = ","
	// EnvOperation is the operation id, EnvInstance the job instance id.
	EnvOperation = "CP_OPERATION"
	EnvInstance  = "CP_INSTANCE"
)

// EnvName turns a parameter or artifact name into the suffix of its
// environment variable: upper case, '.', '-' and '/' become '_'.
func EnvName(name string) string {
	r := strings.NewReplacer(".", "_", "-", "_", "/", "_")
	return strings.ToUpper(r.Replace(name))
}
