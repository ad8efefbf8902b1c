package operation

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Facts are what a host says about itself.
type Facts struct {
	Hostname    string
	OS          string // os-release ID, e.g. ubuntu, debian
	OSVersion   string // os-release VERSION_ID, e.g. 24.04
	OSName      string // os-release PRETTY_NAME
	Kernel      string
	Arch        string
	CPUs        int
	MemoryMB    int
	DiskTotalGB int
	DiskFreeGB  int
}

// factsScript prints key=value lines; it only reads.
const factsScript = `set -u
if [ -r /etc/os-release ]; then . /etc/os-release; fi
echo "os=${ID:-unknown}"
echo "os_version=${VERSION_ID:-}"
echo "os_name=${PRETTY_NAME:-}"
echo "kernel=$(uname -r)"
echo "arch=$(uname -m)"
echo "cpus=$(nproc)"
awk '/^MemTotal:/ {print "memory_mb=" int($2/1024)}' /proc/meminfo
df -Pk / | awk 'NR==2 {print "disk_total_gb=" int($2/1048576); print "disk_free_gb=" int($4/1048576)}'
echo "hostname=$(hostname)"
`

// GatherFacts reads the facts of one host.
func GatherFacts(ctx context.Context, h HostAccess, redactor *transport.Redactor) (Facts, error) {
	pool, err := Pool([]HostAccess{h}, redactor)
	if err != nil {
		return Facts{}, err
	}
	defer pool.Close()
	conn, err := pool.Dial(ctx, h.Host.Name)
	if err != nil {
		return Facts{}, fmt.Errorf("gather facts of %s: %w", h.Host.Name, err)
	}
	res, err := conn.Run(ctx, transport.Command{Cmd: "sh -s", Stdin: strings.NewReader(factsScript)})
	if err != nil {
		return Facts{}, fmt.Errorf("gather facts of %s: %w", h.Host.Name, err)
	}
	if res.ExitCode != 0 {
		return Facts{}, fmt.Errorf("gather facts of %s: exit %d: %s", h.Host.Name, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return parseFacts(string(res.Stdout)), nil
}

func parseFacts(out string) Facts {
	var f Facts
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(v)
		switch k {
		case "os":
			f.OS = v
		case "os_version":
			f.OSVersion = v
		case "os_name":
			f.OSName = v
		case "kernel":
			f.Kernel = v
		case "arch":
			f.Arch = v
		case "cpus":
			f.CPUs = n
		case "memory_mb":
			f.MemoryMB = n
		case "disk_total_gb":
			f.DiskTotalGB = n
		case "disk_free_gb":
			f.DiskFreeGB = n
		case "hostname":
			f.Hostname = v
		}
	}
	return f
}
