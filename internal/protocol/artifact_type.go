package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// An artifact type says what a job's artifact holds; the engine checks
// every value a job produces against its declared type before it records
// it, and a value that does not match fails the job instance. The checks
// never quote the value: a secret artifact's value must not reach an
// error message.
type artifactType struct {
	desc  string
	check func(v []byte) error
}

var (
	reKubeadmToken  = regexp.MustCompile(`^[a-z0-9]{6}\.[a-z0-9]{16}$`)
	reHex64         = regexp.MustCompile(`^[0-9a-f]{64}$`)
	reSHA256        = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	reEnvKey        = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	reKVKey         = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	reMachineID     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	reHostName      = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$`)
	reNodeName      = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$`)
	reAddress       = regexp.MustCompile(`^[A-Za-z0-9.:][A-Za-z0-9.:-]{0,252}$`)
	reRole          = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	reK8sNamespace  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	reK8sObjectName = regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]{0,251}[a-z0-9])?$`)
	reKubeadmAPI    = regexp.MustCompile(`^kubeadm\.k8s\.io/v1beta[0-9]+$`)
	errEmpty        = errors.New("it is empty")
	errNotOneLine   = errors.New("it is not a single line")
	errNotUTF8      = errors.New("it is not UTF-8 text without NUL bytes")
)

var artifactTypes = map[string]artifactType{
	"env_file": {"KEY=VALUE lines, KEY of capitals, digits and _", func(v []byte) error {
		return lines(v, func(n int, l string) error {
			k, _, ok := strings.Cut(l, "=")
			if !ok || !reEnvKey.MatchString(k) {
				return fmt.Errorf("line %d is not KEY=VALUE with KEY matching %s", n, reEnvKey)
			}
			return nil
		})
	}},
	"etcd.snapshot.manifest": {"key=value lines with host, file (an absolute path) and sha256 (64 hex digits)", func(v []byte) error {
		kv, err := keyValues(v)
		if err != nil {
			return err
		}
		switch {
		case kv["host"] == "":
			return errors.New("it has no host= line")
		case !strings.HasPrefix(kv["file"], "/"):
			return errors.New("its file= line is not an absolute path")
		case !reHex64.MatchString(kv["sha256"]):
			return errors.New("its sha256= line is not 64 hex digits")
		}
		return nil
	}},
	"file": {"any content, not empty", func(v []byte) error {
		if len(v) == 0 {
			return errEmpty
		}
		return nil
	}},
	"file_ref": {"host:/absolute/path, one line", func(v []byte) error {
		l, err := oneLine(v)
		if err != nil {
			return err
		}
		host, p, ok := SplitRef(l)
		if !ok || !reHostName.MatchString(host) || !strings.HasPrefix(p, "/") {
			return errors.New("it is not host:/absolute/path")
		}
		return nil
	}},
	"host.identity": {"a machine id (32 hex digits), a space and a host name, one line", func(v []byte) error {
		l, err := oneLine(v)
		if err != nil {
			return err
		}
		id, name, ok := strings.Cut(l, " ")
		if !ok || !reMachineID.MatchString(id) || !reHostName.MatchString(name) {
			return errors.New("it is not a machine id (32 hex digits), a space and a host name")
		}
		return nil
	}},
	"inventory": {`lines "index host address role", index counting from 1`, func(v []byte) error {
		want := 0
		return lines(v, func(n int, l string) error {
			want++
			f := strings.Fields(l)
			if len(f) != 4 || f[0] != fmt.Sprint(want) || !reNodeName.MatchString(f[1]) || !reAddress.MatchString(f[2]) || !reRole.MatchString(f[3]) {
				return fmt.Errorf("line %d is not \"%d host address role\"", n, want)
			}
			return nil
		})
	}},
	"json": {"a JSON document", func(v []byte) error {
		if !json.Valid(bytes.TrimSpace(v)) {
			return errors.New("it is not valid JSON")
		}
		return nil
	}},
	"key_value": {"key=value lines, key of lower case letters, digits and _", func(v []byte) error {
		_, err := keyValues(v)
		return err
	}},
	"kubeadm.certificate_key": {"64 hex digits, one line", func(v []byte) error {
		return matchLine(v, reHex64, "64 hex digits")
	}},
	"kubeadm.config": {"kubeadm configuration YAML documents, one of them a ClusterConfiguration", func(v []byte) error {
		dec := yaml.NewDecoder(bytes.NewReader(v))
		found := false
		for {
			var d struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
			}
			err := dec.Decode(&d)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return errors.New("it is not YAML")
			}
			if d.Kind == "" || d.APIVersion == "" {
				return errors.New("a document has no apiVersion or kind")
			}
			found = found || d.Kind == "ClusterConfiguration" && reKubeadmAPI.MatchString(d.APIVersion)
		}
		if !found {
			return errors.New("it has no ClusterConfiguration of apiVersion kubeadm.k8s.io/v1beta*")
		}
		return nil
	}},
	"kubeadm.token": {"a bootstrap token [a-z0-9]{6}.[a-z0-9]{16}, one line", func(v []byte) error {
		return matchLine(v, reKubeadmToken, "a bootstrap token [a-z0-9]{6}.[a-z0-9]{16}")
	}},
	"kubeconfig": {"a kubeconfig YAML with clusters (each with a server) and users", func(v []byte) error {
		var kc struct {
			Kind     string `yaml:"kind"`
			Clusters []struct {
				Name    string `yaml:"name"`
				Cluster struct {
					Server string `yaml:"server"`
				} `yaml:"cluster"`
			} `yaml:"clusters"`
			Users []struct {
				Name string `yaml:"name"`
			} `yaml:"users"`
		}
		if err := yaml.Unmarshal(v, &kc); err != nil {
			return errors.New("it is not YAML")
		}
		switch {
		case kc.Kind != "" && kc.Kind != "Config":
			return errors.New("its kind is not Config")
		case len(kc.Clusters) == 0:
			return errors.New("it has no clusters")
		case len(kc.Users) == 0:
			return errors.New("it has no users")
		}
		for i, c := range kc.Clusters {
			if c.Name == "" || c.Cluster.Server == "" {
				return fmt.Errorf("clusters[%d] has no name or no cluster.server", i)
			}
		}
		return nil
	}},
	"list": {"one item a line, none empty", func(v []byte) error {
		return lines(v, func(int, string) error { return nil })
	}},
	"secret_ref": {"namespace/name of a Kubernetes Secret, one line", func(v []byte) error {
		l, err := oneLine(v)
		if err != nil {
			return err
		}
		ns, name, ok := strings.Cut(l, "/")
		if !ok || !reK8sNamespace.MatchString(ns) || !reK8sObjectName.MatchString(name) {
			return errors.New("it is not namespace/name of a Kubernetes object")
		}
		return nil
	}},
	"sha256": {"sha256: and 64 hex digits, one line", func(v []byte) error {
		return matchLine(v, reSHA256, "sha256: and 64 hex digits")
	}},
	"string": {"one line, not empty", func(v []byte) error {
		_, err := oneLine(v)
		return err
	}},
	"text": {"UTF-8 text without NUL bytes, not empty", func(v []byte) error {
		if len(bytes.TrimSpace(v)) == 0 {
			return errEmpty
		}
		if !utf8.Valid(v) || bytes.IndexByte(v, 0) >= 0 {
			return errNotUTF8
		}
		return nil
	}},
	"url": {"an http or https URL with a host, one line", func(v []byte) error {
		l, err := oneLine(v)
		if err != nil {
			return err
		}
		u, err := url.Parse(l)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("it is not an http or https URL with a host")
		}
		return nil
	}},
	"wireguard.public_key": {"a WireGuard public key: base64 of 32 bytes, one line", func(v []byte) error {
		l, err := oneLine(v)
		if err != nil {
			return err
		}
		if b, err := base64.StdEncoding.Strict().DecodeString(l); err != nil || len(b) != 32 {
			return errors.New("it is not base64 of 32 bytes")
		}
		return nil
	}},
}

// ArtifactTypes lists the artifact types a job may declare, sorted.
func ArtifactTypes() []string { return SortedKeys(artifactTypes) }

// KnownArtifactType reports whether t is an artifact type, or "" (an
// untyped artifact, whose value is not checked).
func KnownArtifactType(t string) bool {
	_, ok := artifactTypes[t]
	return ok || t == ""
}

// ArtifactTypeDescription says what a value of type t holds.
func ArtifactTypeDescription(t string) string { return artifactTypes[t].desc }

// CheckArtifactValue checks a produced value against its declared type.
// The error says what is wrong without quoting the value.
func CheckArtifactValue(typ string, v []byte) error {
	if typ == "" {
		return nil
	}
	at, ok := artifactTypes[typ]
	if !ok {
		return fmt.Errorf("%q is not an artifact type (one of %s)", typ, strings.Join(ArtifactTypes(), ", "))
	}
	if err := at.check(v); err != nil {
		return fmt.Errorf("not a %s value (%s): %w", typ, at.desc, err)
	}
	return nil
}

// oneLine is v without its final newline, when it is one line of text.
func oneLine(v []byte) (string, error) {
	s := strings.TrimSuffix(strings.TrimSuffix(string(v), "\n"), "\r")
	switch {
	case s == "":
		return "", errEmpty
	case strings.ContainsAny(s, "\r\n"):
		return "", errNotOneLine
	case !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0:
		return "", errNotUTF8
	}
	return s, nil
}

func matchLine(v []byte, re *regexp.Regexp, what string) error {
	l, err := oneLine(v)
	if err != nil {
		return err
	}
	if !re.MatchString(l) {
		return fmt.Errorf("it is not %s", what)
	}
	return nil
}

// lines calls each for every line of v (numbered from 1), refusing an
// empty value, empty lines and text that is not UTF-8.
func lines(v []byte, each func(n int, line string) error) error {
	s := strings.TrimSuffix(string(v), "\n")
	if s == "" {
		return errEmpty
	}
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return errNotUTF8
	}
	for i, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			return fmt.Errorf("line %d is empty", i+1)
		}
		if err := each(i+1, l); err != nil {
			return err
		}
	}
	return nil
}

// keyValues reads key=value lines with lower-case keys, each key once.
func keyValues(v []byte) (map[string]string, error) {
	out := map[string]string{}
	err := lines(v, func(n int, l string) error {
		k, val, ok := strings.Cut(l, "=")
		if !ok || !reKVKey.MatchString(k) {
			return fmt.Errorf("line %d is not key=value with key matching %s", n, reKVKey)
		}
		if _, dup := out[k]; dup {
			return fmt.Errorf("line %d sets key %s again", n, k)
		}
		out[k] = val
		return nil
	})
	return out, err
}
