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
	// EnvFirstMaster is the name and EnvFirstMasterAddress the address of the
	// first master of the intent, when it has masters.
	EnvFirstMaster        = "CP_FIRST_MASTER"
	EnvFirstMasterAddress = "CP_FIRST_MASTER_ADDRESS"
	// EnvHosts lists every host of the intent, one per line in intent
	// order: "name address role" separated by single spaces.
	EnvHosts = "CP_HOSTS"
	// EnvHostLabels is the host's labels as k=v lines, EnvHostTaints its
	// taints, one per line.
	EnvHostLabels = "CP_HOST_LABELS"
	EnvHostTaints = "CP_HOST_TAINTS"
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
