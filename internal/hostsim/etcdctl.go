package hostsim

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// etcdctl emulates the etcd v3 client of Debian's etcd-client package
// (etcdctl 3.4) against the simulated stacked etcd (State.Etcd): endpoint
// health, member list and remove, snapshot save, status and restore, as
// the kubernetes pack runs them. See README.md for how it differs.

// etcdSnapshotMagic starts every snapshot file etcdctl snapshot save
// writes here; the sha256 of the body follows it on the first line.
const etcdSnapshotMagic = "cp-hostsim etcd snapshot v1 sha256:"

// etcdSnapshot is a snapshot's body: the keyspace of the simulated
// cluster (what the API server stores in etcd) and the membership.
type etcdSnapshot struct {
	Cluster    string              `json:"cluster"`
	ClusterID  string              `json:"cluster_id"`
	Members    []EtcdMember        `json:"members"`
	Nodes      map[string]*Node    `json:"nodes,omitempty"`
	Namespaces []string            `json:"namespaces,omitempty"`
	Objects    map[string]*Object  `json:"objects,omitempty"`
	Releases   map[string]*Release `json:"releases,omitempty"`
	Tokens     []Token             `json:"tokens,omitempty"`
}

// keys counts the snapshot's keys: one per node, namespace, object,
// Helm release and bootstrap token.
func (sn etcdSnapshot) keys() int {
	return len(sn.Nodes) + len(sn.Namespaces) + len(sn.Objects) + len(sn.Releases) + len(sn.Tokens)
}

var etcdEndpointRE = regexp.MustCompile(`^https://(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:]+\]):2379$`)

// etcdAPI refuses the v2 API, which the simulator does not emulate.
func (s *sim) etcdAPI() int {
	if v := s.getenv("ETCDCTL_API"); v != "" && v != "3" {
		return s.notEmulated("etcdctl", "ETCDCTL_API="+v)
	}
	return 0
}

// etcdConnect checks what a client connection needs, as etcd would
// refuse it: the simulated etcd exists, --endpoints are https://IP:2379
// URLs, --cacert is the etcd CA and --cert/--key a client pair it
// signed. It returns the endpoints, or an exit code.
func (s *sim) etcdConnect(st *State, p flags) ([]string, int) {
	if code := s.etcdAPI(); code != 0 {
		return nil, code
	}
	raw := p.get("endpoints")
	if raw == "" {
		return nil, s.fail(2, "cp-hostsim: not emulated: etcdctl without --endpoints (the default http://127.0.0.1:2379 has no TLS, which a kubeadm etcd refuses); name https://127.0.0.1:2379 (see internal/hostsim/README.md)")
	}
	eps := strings.Split(raw, ",")
	for _, ep := range eps {
		if !etcdEndpointRE.MatchString(ep) {
			return nil, s.notEmulated("etcdctl", "--endpoints="+ep+" (the simulator answers https://IP:2379)")
		}
	}
	for _, f := range []string{"cacert", "cert", "key"} {
		if p.get(f) == "" {
			return nil, s.fail(1, "Error: --%s is not set: the kubeadm etcd on %s requires TLS client authentication (cp-hostsim: give --cacert, --cert and --key)", f, strings.Join(eps, ","))
		}
	}
	if st.Etcd == nil {
		return nil, s.etcdUnreachable(eps)
	}
	files := map[string][]byte{}
	for _, f := range []string{"cacert", "cert", "key"} {
		b, err := s.readHostFile(p.get(f))
		if err != nil {
			return nil, s.fail(1, "Error: open %s: %v", p.get(f), errors.Unwrap(err))
		}
		files[f] = b
	}
	caPEM, pair, key := files["cacert"], files["cert"], files["key"]
	if strings.TrimSpace(string(caPEM)) != strings.TrimSpace(st.Etcd.CA.CertPEM) {
		return nil, s.fail(1, "Error: context deadline exceeded (x509: certificate signed by unknown authority: %s is not the CA of the etcd cluster)", p.get("cacert"))
	}
	if _, err := tls.X509KeyPair(pair, key); err != nil {
		return nil, s.fail(1, "Error: %s and %s: %v", p.get("cert"), p.get("key"), err)
	}
	if err := verifyEtcdClient(st.Etcd.CA, pair); err != nil {
		return nil, s.fail(1, "Error: context deadline exceeded (remote error: tls: bad certificate: %s: %v)", p.get("cert"), err)
	}
	return eps, 0
}

// verifyEtcdClient checks that certPEM is a client certificate the etcd
// CA signed.
func verifyEtcdClient(ca *CA, certPEM []byte) error {
	b, _ := pem.Decode(certPEM)
	if b == nil {
		return errors.New("not a PEM certificate")
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(ca.CertPEM)) {
		return errors.New("the simulated etcd CA is not PEM")
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err
}

// etcdMemberAt returns the member an endpoint reaches, if it serves:
// 127.0.0.1 is this host's member, an address the member with it. A
// member on this host serves only while its static Pod manifest is in
// /etc/kubernetes/manifests (the kubelet runs it).
func (s *sim) etcdMemberAt(st *State, ep string) (EtcdMember, bool) {
	host := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(ep, "https://"), ":2379"), "[]")
	for _, m := range st.Etcd.Members {
		local := m.Host == s.host.Host
		if (host == "127.0.0.1" && local) || (host != "127.0.0.1" && net.ParseIP(host).Equal(net.ParseIP(m.Address))) {
			if local {
				if _, err := os.Stat(s.path("/etc/kubernetes/manifests/etcd.yaml")); err != nil {
					return EtcdMember{}, false
				}
			}
			return m, true
		}
	}
	return EtcdMember{}, false
}

// etcdServing returns a serving member among the endpoints (etcdctl's
// balancer picks any).
func (s *sim) etcdServing(st *State, eps []string) (EtcdMember, bool) {
	for _, ep := range eps {
		if m, ok := s.etcdMemberAt(st, ep); ok {
			return m, true
		}
	}
	return EtcdMember{}, false
}

func (s *sim) etcdUnreachable(eps []string) int {
	for _, ep := range eps {
		fmt.Fprintf(s.err, "{\"level\":\"warn\",\"msg\":\"retrying of unary invoker failed\",\"target\":\"endpoint://client/%s\",\"error\":\"rpc error: code = DeadlineExceeded desc = latest balancer error: all SubConns are in TransientFailure\"}\n", ep)
	}
	return s.fail(1, "Error: context deadline exceeded")
}

// etcdctlEndpointHealth is etcdctl endpoint health: each endpoint.
func (s *sim) etcdctlEndpointHealth(p flags) int {
	code := 0
	err := s.st.view(func(st *State) error {
		eps, c := s.etcdConnect(st, p)
		if c != 0 {
			code = c
			return nil
		}
		for _, ep := range eps {
			if _, ok := s.etcdMemberAt(st, ep); ok {
				s.printf("%s is healthy: successfully committed proposal: took = 1.234567ms\n", ep)
				continue
			}
			fmt.Fprintf(s.err, "%s is unhealthy: failed to commit proposal: context deadline exceeded\n", ep)
			code = 1
		}
		if code != 0 {
			code = s.fail(1, "Error: unhealthy cluster")
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim etcdctl: %v", err)
	}
	return code
}

// etcdctlMemberList is etcdctl member list [-w simple]: ID, status,
// name, peer URLs, client URLs, is learner.
func (s *sim) etcdctlMemberList(p flags) int {
	if len(p.pos) != 2 {
		return s.fail(1, "Error: member list command needs no arguments")
	}
	code := 0
	err := s.st.view(func(st *State) error {
		eps, c := s.etcdConnect(st, p)
		if c != 0 {
			code = c
			return nil
		}
		if _, ok := s.etcdServing(st, eps); !ok {
			code = s.etcdUnreachable(eps)
			return nil
		}
		members := append([]EtcdMember(nil), st.Etcd.Members...)
		sort.Slice(members, func(i, j int) bool { return members[i].ID < members[j].ID })
		for _, m := range members {
			s.printf("%s, started, %s, %s, %s, false\n", m.ID, m.Name, m.PeerURL(), m.ClientURL())
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim etcdctl: %v", err)
	}
	return code
}

// etcdctlMemberRemove is etcdctl member remove ID.
func (s *sim) etcdctlMemberRemove(p flags) int {
	if len(p.pos) != 3 {
		return s.fail(1, "Error: member remove command needs 1 argument and no flags")
	}
	id, err := strconv.ParseUint(p.arg(2), 16, 64)
	if err != nil {
		return s.fail(128, "Error: bad member ID arg (%v), expecting ID in Hex", err)
	}
	code := 0
	err = s.st.update(func(st *State) error {
		eps, c := s.etcdConnect(st, p)
		if c != 0 {
			code = c
			return nil
		}
		if _, ok := s.etcdServing(st, eps); !ok {
			code = s.etcdUnreachable(eps)
			return nil
		}
		for i, m := range st.Etcd.Members {
			if mid, _ := strconv.ParseUint(m.ID, 16, 64); mid == id {
				if len(st.Etcd.Members) == 1 {
					code = s.fail(1, "Error: etcdserver: re-configuration failed due to not enough started members")
					return nil
				}
				st.Etcd.Members = append(st.Etcd.Members[:i], st.Etcd.Members[i+1:]...)
				cid, _ := strconv.ParseUint(st.Etcd.ClusterID, 16, 64)
				s.printf("Member %16x removed from cluster %16x\n", id, cid)
				return nil
			}
		}
		code = s.fail(1, "Error: etcdserver: member not found")
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim etcdctl: %v", err)
	}
	return code
}

// etcdctlSnapshotSave is etcdctl snapshot save FILE: the simulated
// keyspace and membership, written 0600 through FILE.part.
func (s *sim) etcdctlSnapshotSave(p flags) int {
	if len(p.pos) != 3 {
		return s.fail(1, "Error: snapshot save expects one argument")
	}
	file := p.arg(2)
	code := 0
	var body []byte
	err := s.st.view(func(st *State) error {
		eps, c := s.etcdConnect(st, p)
		if c != 0 {
			code = c
			return nil
		}
		if len(eps) != 1 {
			code = s.fail(128, "Error: snapshot must be requested to one selected node, not multiple %v", eps)
			return nil
		}
		if _, ok := s.etcdServing(st, eps); !ok {
			code = s.etcdUnreachable(eps)
			return nil
		}
		b, err := json.MarshalIndent(etcdSnapshot{
			Cluster: st.Cluster, ClusterID: st.Etcd.ClusterID, Members: st.Etcd.Members,
			Nodes: st.Nodes, Namespaces: st.Namespaces, Objects: st.Objects, Releases: st.Releases, Tokens: st.Tokens,
		}, "", " ")
		body = append(b, '\n')
		return err
	})
	if err != nil {
		return s.fail(1, "cp-hostsim etcdctl: %v", err)
	}
	if code != 0 {
		return code
	}
	sum := sha256.Sum256(body)
	content := append([]byte(etcdSnapshotMagic+hex.EncodeToString(sum[:])+"\n"), body...)
	part := file + ".part"
	full := s.hostPath(part)
	if err := os.WriteFile(full, content, 0o600); err != nil {
		return s.fail(1, "Error: could not open %s (%v)", part, err)
	}
	if err := os.Chmod(full, 0o600); err != nil {
		return s.fail(1, "Error: %v", err)
	}
	if err := os.Rename(full, s.hostPath(file)); err != nil {
		return s.fail(1, "Error: could not rename %s to %s (%v)", part, file, err)
	}
	s.printf("Snapshot saved at %s\n", file)
	return 0
}

// hostPath maps a path an invocation names (relative to the working
// directory, or absolute on the host) to the simulator's view.
func (s *sim) hostPath(p string) string {
	if filepath.IsAbs(p) {
		return s.path(p)
	}
	if s.root != "/" {
		return filepath.Join(s.root, p)
	}
	return p
}

// readEtcdSnapshot reads and checks a snapshot file etcdctl snapshot
// save wrote; anything else is refused as etcd refuses a file that is not
// its database, or whose integrity hash does not match.
func (s *sim) readEtcdSnapshot(file string) (etcdSnapshot, []byte, error) {
	var sn etcdSnapshot
	b, err := s.readHostFile(file)
	if err != nil {
		return sn, nil, err
	}
	head, body, ok := strings.Cut(string(b), "\n")
	want, isSnap := strings.CutPrefix(head, etcdSnapshotMagic)
	if !ok || !isSnap {
		return sn, nil, fmt.Errorf("invalid database (cp-hostsim: %s is not a snapshot etcdctl snapshot save wrote on a test host)", file)
	}
	sum := sha256.Sum256([]byte(body))
	if hex.EncodeToString(sum[:]) != want {
		return sn, nil, errors.New("snapshot file integrity check failed")
	}
	if err := json.Unmarshal([]byte(body), &sn); err != nil {
		return sn, nil, fmt.Errorf("snapshot file integrity check failed (%v)", err)
	}
	return sn, b, nil
}

// etcdctlSnapshotStatus is etcdctl snapshot status FILE -w json: hash
// (CRC-32C of the file), revision (the simulator counts no writes: the
// number of keys), total keys and total size in bytes.
func (s *sim) etcdctlSnapshotStatus(p flags) int {
	if code := s.etcdAPI(); code != 0 {
		return code
	}
	if len(p.pos) != 3 {
		return s.fail(1, "Error: snapshot status expects one argument")
	}
	if p.get("w") != "json" {
		return s.notEmulated("etcdctl", "snapshot", "status", "without -w json")
	}
	sn, raw, err := s.readEtcdSnapshot(p.arg(2))
	if err != nil {
		return s.fail(1, "Error: %v", err)
	}
	hash := crc32.Checksum(raw, crc32.MakeTable(crc32.Castagnoli))
	s.printf("{\"hash\":%d,\"revision\":%d,\"totalKey\":%d,\"totalSize\":%d}\n", hash, sn.keys(), sn.keys(), len(raw))
	return 0
}

// etcdctlSnapshotRestore is etcdctl snapshot restore FILE --data-dir D
// --name N --initial-cluster N=URL --initial-advertise-peer-urls URL: it
// writes D/member/snap/db and D/member/wal, and the simulated cluster
// takes the snapshot's keyspace and a new one-member membership at once
// (the simulated etcd reads no data directory).
func (s *sim) etcdctlSnapshotRestore(p flags) int {
	if code := s.etcdAPI(); code != 0 {
		return code
	}
	if len(p.pos) != 3 {
		return s.fail(1, "Error: snapshot restore expects one argument")
	}
	dir, name, peer := p.get("data-dir"), p.get("name"), p.get("initial-advertise-peer-urls")
	for f, v := range map[string]string{"data-dir": dir, "name": name, "initial-advertise-peer-urls": peer, "initial-cluster": p.get("initial-cluster")} {
		if v == "" {
			return s.notEmulated("etcdctl", "snapshot", "restore", "without --"+f)
		}
	}
	urls := map[string]string{}
	for _, e := range strings.Split(p.get("initial-cluster"), ",") {
		n, u, ok := strings.Cut(e, "=")
		if !ok {
			return s.fail(1, "Error: --initial-cluster %q: each member is name=peer-url", p.get("initial-cluster"))
		}
		urls[n] = u
	}
	if len(urls) != 1 || urls[name] != peer {
		return s.fail(1, "Error: --initial-cluster must name only %s=%s (cp-hostsim restores one member; got %q)", name, peer, p.get("initial-cluster"))
	}
	addr := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(peer, "https://"), ":2380"), "[]")
	if net.ParseIP(addr) == nil || !strings.HasSuffix(peer, ":2380") {
		return s.notEmulated("etcdctl", "snapshot", "restore", "--initial-advertise-peer-urls="+peer+" (the simulator takes https://IP:2380)")
	}
	sn, raw, err := s.readEtcdSnapshot(p.arg(2))
	if err != nil {
		return s.fail(1, "Error: %v", err)
	}
	full := s.hostPath(dir)
	if _, err := os.Stat(full); err == nil {
		return s.fail(1, "Error: data-dir %q exists", dir)
	}
	code := 0
	err = s.st.update(func(st *State) error {
		if st.Etcd == nil {
			code = s.fail(1, "cp-hostsim: no simulated etcd cluster to restore into (kubeadm init creates it)")
			return nil
		}
		if err := os.MkdirAll(filepath.Join(full, "member", "wal"), 0o700); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(full, "member", "snap"), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(full, "member", "snap", "db"), raw, 0o600); err != nil {
			return err
		}
		st.Etcd.ClusterID = memberID()
		st.Etcd.Members = []EtcdMember{{ID: memberID(), Name: name, Host: s.host.Host, Address: addr}}
		st.Nodes, st.Namespaces, st.Objects, st.Releases, st.Tokens = sn.Nodes, sn.Namespaces, sn.Objects, sn.Releases, sn.Tokens
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim etcdctl snapshot restore: %v", err)
	}
	if code != 0 {
		return code
	}
	fmt.Fprintf(s.err, "{\"level\":\"info\",\"msg\":\"restored snapshot\",\"path\":%q,\"wal-dir\":%q,\"data-dir\":%q,\"snap-dir\":%q}\n",
		p.arg(2), filepath.Join(dir, "member", "wal"), dir, filepath.Join(dir, "member", "snap"))
	return 0
}
