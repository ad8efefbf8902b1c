package hostsim

// Paths inside a test host.
const (
	// StateDirInHost is where the cluster's shared state directory is
	// mounted in every host.
	StateDirInHost = "/var/lib/cp-hostsim"
	// HostConfigPath holds the host's HostConfig (JSON).
	HostConfigPath = "/etc/cp-hostsim/host.json"
	// LogPath gets one line per simulated command run on the host.
	LogPath = "/var/log/cp-hostsim.log"
	// BinaryPathInHost is the simulator binary; tools are links to it.
	BinaryPathInHost = "/usr/local/lib/cp-hostsim/cp-hostsim"
)

// Environment variables the simulator reads (mostly for running it outside
// a host, as the tests do).
const (
	EnvStateDir = "CP_HOSTSIM_STATE"   // state directory; default StateDirInHost
	EnvRoot     = "CP_HOSTSIM_ROOT"    // filesystem root of the host; default "/"
	EnvHost     = "CP_HOSTSIM_HOST"    // host name; default from HostConfigPath
	EnvCluster  = "CP_HOSTSIM_CLUSTER" // cluster name; default from HostConfigPath
	EnvAddress  = "CP_HOSTSIM_ADDRESS" // host address; default from HostConfigPath
	EnvEUID     = "CP_HOSTSIM_EUID"    // effective uid to assume; default the real one
)

// HostConfig identifies the host a simulator invocation runs on.
type HostConfig struct {
	Host    string `json:"host"`
	Cluster string `json:"cluster"`
	Address string `json:"address"`
}

// Shadows are the links to the simulator present on every host from the
// start (tools a real host always has); the other tools appear when
// `apt-get install` installs their package.
func Shadows() []string {
	return []string{
		"/usr/local/bin/apt-cache",
		"/usr/local/bin/apt-get",
		"/usr/local/bin/curl",
		"/usr/local/bin/getent",
		"/usr/local/bin/systemctl",
		"/usr/local/bin/timedatectl",
		"/usr/local/bin/wg",
		"/usr/local/sbin/apt-get",
		"/usr/local/sbin/modprobe",
		"/usr/local/sbin/swapoff",
		"/usr/local/sbin/sysctl",
		"/usr/local/sbin/systemctl",
	}
}
