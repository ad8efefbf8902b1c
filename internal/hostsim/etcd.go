package hostsim

import (
	"fmt"
	"net"
	"time"
)

// Etcd is the simulated stacked etcd cluster of the control plane: its
// CA (kubeadm's /etc/kubernetes/pki/etcd/ca.crt) and its members. kubeadm
// init creates it with the first master, a control-plane join adds the
// joining master, kubeadm reset on a master removes that master's member
// (kubeadm's remove-etcd-member phase), etcdctl member remove removes one.
type Etcd struct {
	CA        *CA          `json:"ca"`
	ClusterID string       `json:"cluster_id"` // 16 hex digits
	Members   []EtcdMember `json:"members"`
}

// EtcdMember is one member of the simulated etcd cluster.
type EtcdMember struct {
	ID      string `json:"id"` // 16 hex digits, as etcdctl prints it
	Name    string `json:"name"`
	Host    string `json:"host"`    // the test host it runs on
	Address string `json:"address"` // the IP its URLs name
}

// PeerURL and ClientURL are the URLs kubeadm gives a stacked member.
func (m EtcdMember) PeerURL() string {
	return "https://" + net.JoinHostPort(m.Address, "2380")
}

func (m EtcdMember) ClientURL() string {
	return "https://" + net.JoinHostPort(m.Address, "2379")
}

// memberID returns a member id etcdctl prints without padding (16 hex
// digits, the first not 0).
func memberID() string {
	for {
		if id := randomHex(8); id[0] != '0' {
			return id
		}
	}
}

// etcdPKIFiles joins the master nodeName to the simulated etcd cluster
// (creating the cluster on the first master) and returns the etcd files
// kubeadm writes on a master that etcdctl's flags name: the etcd CA and
// the health-check client certificate and key.
func (s *sim) etcdPKIFiles(st *State, nodeName string, now time.Time) (map[string]string, error) {
	n := st.Nodes[nodeName]
	if n == nil {
		return nil, fmt.Errorf("etcd member %s: the node is not registered", nodeName)
	}
	if st.Etcd == nil {
		ca, err := newCA(now)
		if err != nil {
			return nil, fmt.Errorf("etcd CA: %w", err)
		}
		st.Etcd = &Etcd{CA: ca, ClusterID: memberID()}
	}
	members := st.Etcd.Members[:0]
	for _, m := range st.Etcd.Members {
		if m.Name != nodeName && m.Host != n.Host {
			members = append(members, m)
		}
	}
	st.Etcd.Members = append(members, EtcdMember{ID: memberID(), Name: nodeName, Host: n.Host, Address: n.Address})
	crt, key, err := st.Etcd.CA.clientCert(now, "kube-etcd-healthcheck-client")
	if err != nil {
		return nil, fmt.Errorf("etcd health-check client certificate: %w", err)
	}
	return map[string]string{
		"/etc/kubernetes/pki/etcd/ca.crt":                 st.Etcd.CA.CertPEM,
		"/etc/kubernetes/pki/etcd/ca.key":                 st.Etcd.CA.KeyPEM,
		"/etc/kubernetes/pki/etcd/healthcheck-client.crt": crt,
		"/etc/kubernetes/pki/etcd/healthcheck-client.key": key,
	}, nil
}

// removeEtcdMembersOf removes the members running on host (kubeadm
// reset on a master).
func (st *State) removeEtcdMembersOf(host string) {
	if st.Etcd == nil {
		return
	}
	members := st.Etcd.Members[:0]
	for _, m := range st.Etcd.Members {
		if m.Host != host {
			members = append(members, m)
		}
	}
	st.Etcd.Members = members
}
