package hostsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// State is what the hosts of one simulated cluster share.
type State struct {
	Cluster string `json:"cluster"`
	// CA signs the cluster's kubeconfigs; every kubeadm init creates a
	// new one, so a kubeconfig from an earlier cluster is refused.
	CA         *CA              `json:"ca,omitempty"`
	API        *APIServer       `json:"api_server,omitempty"`
	Nodes      map[string]*Node `json:"nodes,omitempty"`
	CNI        string           `json:"cni,omitempty"`
	Namespaces []string         `json:"namespaces,omitempty"`
	// Objects are the API objects other than nodes, pods and namespaces,
	// keyed by resource/namespace/name.
	Objects        map[string]*Object    `json:"objects,omitempty"`
	Releases       map[string]*Release   `json:"releases,omitempty"` // key namespace/name
	Tokens         []Token               `json:"tokens,omitempty"`
	CertificateKey string                `json:"certificate_key,omitempty"`
	CertKeyExpires time.Time             `json:"certificate_key_expires,omitzero"`
	Hosts          map[string]*HostState `json:"hosts,omitempty"`
	// Etcd is the control plane's stacked etcd (kubeadm init creates it).
	Etcd   *Etcd   `json:"etcd,omitempty"`
	Faults []Fault `json:"faults,omitempty"`
	// Buckets are the objects of simulated MinIO releases' buckets, keyed
	// by ENDPOINT/BUCKET and then by object key (tempo_store.go).
	Buckets map[string]map[string]string `json:"buckets,omitempty"`
}

// CA is the cluster certificate authority (PEM).
type CA struct {
	CertPEM string `json:"cert_pem"`
	KeyPEM  string `json:"key_pem"`
	// Hash is kubeadm's discovery hash: "sha256:" + hex of the SPKI.
	Hash string `json:"hash"`
}

// APIServer is the simulated control plane endpoint.
type APIServer struct {
	Host     string    `json:"host"`
	Endpoint string    `json:"endpoint"` // host:port
	Version  string    `json:"version"`  // v1.31.2
	Since    time.Time `json:"since"`
}

// Node is a registered Kubernetes node.
type Node struct {
	Name          string            `json:"name"`
	Host          string            `json:"host"`
	Address       string            `json:"address"`
	ControlPlane  bool              `json:"control_plane"`
	Version       string            `json:"version"`
	Labels        map[string]string `json:"labels,omitempty"`
	Taints        []string          `json:"taints,omitempty"` // key[=value]:Effect
	Unschedulable bool              `json:"unschedulable,omitempty"`
	Joined        time.Time         `json:"joined"`
}

// Release is a Helm release.
type Release struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Chart     string    `json:"chart"`
	Version   string    `json:"version,omitempty"`
	Revision  int       `json:"revision"`
	Status    string    `json:"status"`
	Updated   time.Time `json:"updated"`
	// StorageClass is the values' persistence.storageClass, which the
	// release's volume claims name ("" for the cluster's default).
	StorageClass string `json:"storageClass,omitempty"`
	// Values are the release's --values files merged in order (not the
	// chart's defaults), as `helm get values` shows them.
	Values map[string]any `json:"values,omitempty"`
}

// Token is a kubeadm bootstrap token.
type Token struct {
	ID      string    `json:"id"`
	Secret  string    `json:"secret"`
	Expires time.Time `json:"expires"`
}

// String is the token as kubeadm prints it.
func (t Token) String() string { return t.ID + "." + t.Secret }

// HostState is what the simulator knows of one host.
type HostState struct {
	Packages map[string]string   `json:"packages,omitempty"` // name -> version
	Services map[string]*Service `json:"services,omitempty"`
	Sysctl   map[string]string   `json:"sysctl,omitempty"`
	Modules  []string            `json:"modules,omitempty"`
	SwapOff  bool                `json:"swap_off,omitempty"`
	// Containerd settings read when containerd last (re)started.
	MirrorConfigured bool     `json:"mirror_configured,omitempty"`
	CRIDisabled      bool     `json:"cri_disabled,omitempty"`
	Images           []string `json:"images,omitempty"`
	// WireGuard holds the interfaces wg-quick brought up, by name.
	WireGuard map[string]*WGInterface `json:"wireguard,omitempty"`
}

// Service is a systemd unit.
type Service struct {
	Enabled bool      `json:"enabled"`
	Active  bool      `json:"active"`
	Since   time.Time `json:"since,omitzero"`
}

func (s *State) host(name string) *HostState {
	if s.Hosts == nil {
		s.Hosts = map[string]*HostState{}
	}
	h := s.Hosts[name]
	if h == nil {
		h = &HostState{}
		s.Hosts[name] = h
	}
	if h.Packages == nil {
		h.Packages = map[string]string{}
	}
	if h.Services == nil {
		h.Services = map[string]*Service{}
	}
	if h.Sysctl == nil {
		h.Sysctl = map[string]string{}
	}
	return h
}

const (
	stateFile = "state.json"
	lockFile  = "state.lock"
)

// store reads and writes a state directory under flock.
type store struct{ dir string }

func (st store) lock(how int) (*os.File, error) {
	p := filepath.Join(st.dir, lockFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open simulator state lock %s: %w; is the state directory (%s) mounted and writable?", p, err, EnvStateDir)
	}
	_ = f.Chmod(0o666)
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock simulator state %s: %w", p, err)
	}
	return f, nil
}

func (st store) load() (*State, error) {
	p := filepath.Join(st.dir, stateFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &State{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read simulator state %s: %w", p, err)
	}
	s := &State{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("parse simulator state %s: %w; remove it to start over", p, err)
	}
	return s, nil
}

// view runs fn on the current state under a shared lock.
func (st store) view(fn func(*State) error) error {
	f, err := st.lock(syscall.LOCK_SH)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := st.load()
	if err != nil {
		return err
	}
	return fn(s)
}

// update runs fn under an exclusive lock and saves the state when fn
// returns nil.
func (st store) update(fn func(*State) error) error {
	f, err := st.lock(syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := st.load()
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode simulator state: %w", err)
	}
	p := filepath.Join(st.dir, stateFile)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		return fmt.Errorf("write simulator state %s: %w", tmp, err)
	}
	_ = os.Chmod(tmp, 0o666)
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("replace simulator state %s: %w", p, err)
	}
	return nil
}

// InitState creates (or keeps) the state of a simulated cluster in dir.
func InitState(dir, cluster string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("create simulator state directory %s: %w", dir, err)
	}
	return store{dir}.update(func(s *State) error {
		if s.Cluster == "" {
			s.Cluster = cluster
		}
		return nil
	})
}

// ReadState returns a copy of the state in dir, for tests and tools.
func ReadState(dir string) (*State, error) {
	var out *State
	err := store{dir}.view(func(s *State) error { out = s; return nil })
	return out, err
}
