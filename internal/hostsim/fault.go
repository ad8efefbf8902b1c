package hostsim

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// FaultKind names a fault switch.
type FaultKind string

const (
	// FaultImagePull: image pulls (kubeadm init/join, crictl pull) fail
	// unless containerd's config had a registry mirror when it last
	// (re)started.
	FaultImagePull FaultKind = "image-pull"
	// FaultNodeNotReady: the node never becomes Ready.
	FaultNodeNotReady FaultKind = "node-not-ready"
	// FaultDNS: name resolution fails on the host until its
	// /etc/resolv.conf has a nameserver other than Fault.Nameserver.
	FaultDNS FaultKind = "dns"
	// FaultHang: the command named by Fault.Command sleeps until killed.
	FaultHang FaultKind = "hang"
	// FaultSlow: the command named by Fault.Command (every simulated
	// command when empty) waits Fault.Delay before running.
	FaultSlow FaultKind = "slow"
)

// FaultKinds lists every kind, sorted.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultDNS, FaultHang, FaultImagePull, FaultNodeNotReady, FaultSlow}
}

// BrokenNameserver is what a DNS fault writes into resolv.conf by default.
const BrokenNameserver = "203.0.113.53"

// Fault is one switched-on fault.
type Fault struct {
	Kind FaultKind `json:"kind"`
	// Host the fault applies to; empty means every host of the cluster.
	Host string `json:"host,omitempty"`
	// Command for hang and slow: a tool name optionally followed by
	// leading arguments ("kubeadm join", "helm upgrade").
	Command string `json:"command,omitempty"`
	// Delay for slow.
	Delay time.Duration `json:"delay,omitempty"`
	// Nameserver written into resolv.conf by dns.
	Nameserver string `json:"nameserver,omitempty"`
	// Applied lists the hosts whose resolv.conf the dns fault rewrote.
	Applied []string `json:"applied,omitempty"`
}

func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	if f.Host == "" {
		b.WriteString(" cluster")
	} else {
		b.WriteString(" host=" + f.Host)
	}
	if f.Command != "" {
		b.WriteString(fmt.Sprintf(" command=%q", f.Command))
	}
	if f.Delay != 0 {
		b.WriteString(" delay=" + f.Delay.String())
	}
	if f.Nameserver != "" {
		b.WriteString(" nameserver=" + f.Nameserver)
	}
	return b.String()
}

func (f Fault) validate() error {
	if !slices.Contains(FaultKinds(), f.Kind) {
		return fmt.Errorf("unknown fault %q; kinds are %v", f.Kind, FaultKinds())
	}
	if f.Kind == FaultHang && f.Command == "" {
		return fmt.Errorf("fault hang needs a command (e.g. --command \"kubeadm join\")")
	}
	if f.Kind == FaultSlow && f.Delay <= 0 {
		return fmt.Errorf("fault slow needs a positive delay (e.g. --delay 5s)")
	}
	return nil
}

// SetFault switches a fault on in the state directory; a fault of the same
// kind, host and command is replaced.
func SetFault(dir string, f Fault) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("set fault: %w", err)
	}
	if f.Kind == FaultDNS && f.Nameserver == "" {
		f.Nameserver = BrokenNameserver
	}
	return store{dir}.update(func(s *State) error {
		s.Faults = slices.DeleteFunc(s.Faults, func(g Fault) bool {
			return g.Kind == f.Kind && g.Host == f.Host && g.Command == f.Command
		})
		s.Faults = append(s.Faults, f)
		sortFaults(s.Faults)
		return nil
	})
}

// ClearFaults switches off faults of a kind ("" for every kind) set for
// host; host "" clears cluster-wide faults and those of every host.
func ClearFaults(dir string, kind FaultKind, host string) error {
	return store{dir}.update(func(s *State) error {
		s.Faults = slices.DeleteFunc(s.Faults, func(g Fault) bool {
			return (kind == "" || g.Kind == kind) && (host == "" || g.Host == host)
		})
		return nil
	})
}

// Faults lists the switched-on faults, sorted.
func Faults(dir string) ([]Fault, error) {
	var out []Fault
	err := store{dir}.view(func(s *State) error { out = s.Faults; return nil })
	return out, err
}

func sortFaults(fs []Fault) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Kind != fs[j].Kind {
			return fs[i].Kind < fs[j].Kind
		}
		if fs[i].Host != fs[j].Host {
			return fs[i].Host < fs[j].Host
		}
		return fs[i].Command < fs[j].Command
	})
}

// fault returns the fault of kind that applies to host, if any.
func (s *State) fault(kind FaultKind, host string) (Fault, bool) {
	for _, f := range s.Faults {
		if f.Kind == kind && (f.Host == "" || f.Host == host) {
			return f, true
		}
	}
	return Fault{}, false
}

// ApplyDNSFault writes the broken nameserver of the dns fault into
// root/etc/resolv.conf of host (root is the host's filesystem root as
// seen by the caller) and records that it did, so the simulator does
// not do it again after the user repaired the file.
func ApplyDNSFault(dir, host, root string) error {
	return store{dir}.update(func(s *State) error {
		return applyDNS(s, host, root)
	})
}

func applyDNS(s *State, host, root string) error {
	for i, f := range s.Faults {
		if f.Kind != FaultDNS || (f.Host != "" && f.Host != host) || slices.Contains(f.Applied, host) {
			continue
		}
		p := filepath.Join(root, "etc/resolv.conf")
		content := "# written by the cp-hostsim dns fault\nnameserver " + f.Nameserver + "\n"
		_ = os.Remove(p) // resolv.conf may be a symlink into /run
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("apply dns fault on host %s: write %s: %w", host, p, err)
		}
		s.Faults[i].Applied = append(s.Faults[i].Applied, host)
		sort.Strings(s.Faults[i].Applied)
	}
	return nil
}

// dnsBroken reports whether name resolution fails on the host: a dns
// fault applies and resolv.conf has no nameserver other than the broken
// one. It returns the nameserver used for error messages.
func dnsBroken(s *State, host, root string) (bool, string) {
	f, ok := s.fault(FaultDNS, host)
	if !ok {
		return false, ""
	}
	b, _ := os.ReadFile(filepath.Join(root, "etc/resolv.conf"))
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) >= 2 && fs[0] == "nameserver" && fs[1] != f.Nameserver {
			return false, ""
		}
	}
	return true, f.Nameserver
}
