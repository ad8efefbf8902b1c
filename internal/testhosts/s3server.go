package testhosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// S3Server is a real S3-compatible server (SeaweedFS `weed server -s3`)
// on 127.0.0.1 with one identity. Test hosts share the machine's network
// namespace (only their mounts and hostname are their own), so a host
// reaches it at Endpoint as the machine does.
type S3Server struct {
	// Endpoint is the S3 API URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are the identity's keys; it may do
	// everything (Admin, Read, Write, List, Tagging).
	AccessKey, SecretKey string
	// Region is what the server accepts in signatures (any; us-east-1 is
	// what the clients default to).
	Region string
	// Dir holds the server's data, configuration and log.
	Dir string

	cmd       *exec.Cmd
	grpcPorts []int // weed leaves /tmp/seaweedfs-<service>-grpc-<port>.sock
	done      chan struct{}
	err       error // the server's exit, once done is closed
}

// S3Options configure StartS3.
type S3Options struct {
	// Binary is the weed executable; empty: WeedBinary().
	Binary string
	// Dir holds the data; empty: a new directory under /var/tmp/cp-testhosts.
	Dir string
	// AccessKey and SecretKey of the identity; empty: generated.
	AccessKey, SecretKey string
	// More are further identities with the same rights, e.g. the keys a
	// rotation moves to.
	More []S3Keys
	// StartTimeout bounds the start until the S3 API answers a signed
	// request; 0 means 90s.
	StartTimeout time.Duration
}

// S3Keys are an identity's access and secret key.
type S3Keys struct{ AccessKey, SecretKey string }

// ErrNoWeed says the weed binary is missing; RequireS3 skips on it unless
// CI=true.
var ErrNoWeed = errors.New("the SeaweedFS weed binary is missing")

// WeedBinary is $CP_WEED when set, else bin/weed of the repository this
// test runs in (found by walking up from the working directory to go.mod).
func WeedBinary() (string, error) {
	if p := os.Getenv("CP_WEED"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: CP_WEED=%s: %v", ErrNoWeed, p, err)
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find bin/weed: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "weed")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%w: %s does not exist; run `make bin/weed` (builds it from tools/seaweedfs) or set CP_WEED", ErrNoWeed, p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: no go.mod above the working directory to find bin/weed in; set CP_WEED", ErrNoWeed)
		}
		dir = parent
	}
}

// s3Identity is one entry of weed's -s3.config identities.
type s3Identity struct {
	Name        string         `json:"name"`
	Credentials []s3Credential `json:"credentials"`
	Actions     []string       `json:"actions"`
}

type s3Credential struct {
	AccessKey string `json:"accessKey"`
	SecretKey string `json:"secretKey"`
}

// s3Config renders weed's -s3.config file: identity cp-test with the
// first keys, cp-test-2... with the others, all with every right.
func s3Config(keys ...S3Keys) ([]byte, error) {
	var cfg struct {
		Identities []s3Identity `json:"identities"`
	}
	for i, k := range keys {
		name := "cp-test"
		if i > 0 {
			name += "-" + strconv.Itoa(i+1)
		}
		cfg.Identities = append(cfg.Identities, s3Identity{
			Name:        name,
			Credentials: []s3Credential{{AccessKey: k.AccessKey, SecretKey: k.SecretKey}},
			Actions:     []string{"Admin", "List", "Read", "Tagging", "Write"},
		})
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// freePorts returns n distinct free TCP ports on 127.0.0.1 (held until
// all are picked, so none is returned twice).
func freePorts(n int) ([]int, error) {
	var out []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	for len(out) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port on 127.0.0.1: %w", err)
		}
		held = append(held, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// StartS3 starts weed's master, volume, filer and S3 gateway in one
// process on free 127.0.0.1 ports and returns once the S3 API accepts a
// request signed with the identity's keys.
func StartS3(ctx context.Context, opts S3Options) (*S3Server, error) {
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = WeedBinary(); err != nil {
			return nil, err
		}
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	dir := opts.Dir
	if dir == "" {
		if err := os.MkdirAll("/var/tmp/cp-testhosts", 0o755); err != nil {
			return nil, fmt.Errorf("start S3 server: %w", err)
		}
		var err error
		if dir, err = os.MkdirTemp("/var/tmp/cp-testhosts", "s3-"); err != nil {
			return nil, fmt.Errorf("start S3 server: %w", err)
		}
	}
	s := &S3Server{Dir: dir, AccessKey: opts.AccessKey, SecretKey: opts.SecretKey, Region: "us-east-1", done: make(chan struct{})}
	if s.AccessKey == "" {
		s.AccessKey = "CPTEST" + strings.ToUpper(randHex(7))
	}
	if s.SecretKey == "" {
		s.SecretKey = randHex(20)
	}
	cfg, err := s3Config(append([]S3Keys{{s.AccessKey, s.SecretKey}}, opts.More...)...)
	if err != nil {
		return nil, fmt.Errorf("start S3 server: render the identities: %w", err)
	}
	cfgPath := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		return nil, fmt.Errorf("start S3 server: %w", err)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, fmt.Errorf("start S3 server: %w", err)
	}
	ports, err := freePorts(8)
	if err != nil {
		return nil, fmt.Errorf("start S3 server: %w", err)
	}
	port := func(i int) string { return strconv.Itoa(ports[i]) }
	s.grpcPorts = []int{ports[1], ports[3], ports[5], ports[7]}
	s.Endpoint = "http://127.0.0.1:" + port(6)
	logf, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start S3 server: %w", err)
	}
	// Every listener on a port of its own (gRPC ones included), nothing
	// optional started, no telemetry, and buckets only by CreateBucket.
	args := []string{"server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + data,
		"-master.port=" + port(0), "-master.port.grpc=" + port(1), "-master.volumeSizeLimitMB=64", "-master.telemetry=false",
		"-volume.port=" + port(2), "-volume.port.grpc=" + port(3), "-volume.max=500",
		"-filer", "-filer.port=" + port(4), "-filer.port.grpc=" + port(5), "-filer.localSocket=" + filepath.Join(dir, "filer.sock"),
		"-s3", "-s3.port=" + port(6), "-s3.port.grpc=" + port(7), "-s3.config=" + cfgPath, "-s3.autoCreateBucket=false",
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.localSocket=" + filepath.Join(dir, "s3.sock")}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start S3 server: run %s: %w", bin, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		_ = logf.Close()
		close(s.done)
	}()
	wctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	if err := s.waitReady(wctx); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("start S3 server (log %s): %w\n%s", s.LogPath(), err, tail(s.LogPath(), 20))
	}
	return s, nil
}

// LogPath is the server's combined output.
func (s *S3Server) LogPath() string { return filepath.Join(s.Dir, "weed.log") }

// waitReady polls until a signed ListBuckets answers 200.
func (s *S3Server) waitReady(ctx context.Context) error {
	var last error
	for {
		status, body, err := s.Do(ctx, http.MethodGet, "/", s.AccessKey, s.SecretKey)
		switch {
		case err == nil && status == http.StatusOK:
			return nil
		case err == nil:
			last = fmt.Errorf("signed ListBuckets answered %d: %.200s", status, body)
		default:
			last = err
		}
		select {
		case <-s.done:
			return fmt.Errorf("weed exited: %v", s.err)
		case <-ctx.Done():
			return fmt.Errorf("the S3 API at %s did not accept a signed request in time: %v", s.Endpoint, last)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// Do sends one request with an empty body to the S3 API, signed (AWS
// Signature Version 4) with the given keys, and returns its status and
// body. p is the path, e.g. "/" (ListBuckets) or "/bucket/key".
func (s *S3Server) Do(ctx context.Context, method, p, access, secret string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.Endpoint+p, nil)
	if err != nil {
		return 0, "", fmt.Errorf("S3 request %s %s: %w", method, p, err)
	}
	signV4(req, access, secret, s.Region, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("S3 request %s %s: %w", method, p, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for b.Len() < 1<<16 {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String(), nil
}

// Stop ends the server (SIGTERM to its process group, SIGKILL after 10s)
// and removes its directory.
func (s *S3Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
	}
	for _, p := range s.grpcPorts {
		for _, svc := range []string{"master", "volume", "filer", "s3"} {
			_ = os.Remove(fmt.Sprintf("/tmp/seaweedfs-%s-grpc-%d.sock", svc, p))
		}
	}
	if err := os.RemoveAll(s.Dir); err != nil {
		return fmt.Errorf("remove S3 server directory: %w", err)
	}
	return nil
}
