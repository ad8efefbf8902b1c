package hostsim

import (
	"slices"
	"strings"
)

const defaultContainerdConfig = `disabled_plugins = []
imports = []
oom_score = 0
required_plugins = []
root = "/var/lib/containerd"
state = "/run/containerd"
temp = ""
version = 2

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = false

    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = ""

      [plugins."io.containerd.grpc.v1.cri".registry.auths]

      [plugins."io.containerd.grpc.v1.cri".registry.configs]

      [plugins."io.containerd.grpc.v1.cri".registry.headers]
`

// containerd emulates `containerd config default` and `containerd --version`.
func (s *sim) containerd(args []string) int {
	p := parseFlags(args)
	switch {
	case p.has("v", "version") || p.arg(0) == "--version":
		s.printf("containerd github.com/containerd/containerd v%s 7f7fdf5fed64eb6a7caf99b3e12efcf9d60e311c\n", containerdVersion)
		return 0
	case p.arg(0) == "config" && p.arg(1) == "default":
		s.printf("%s", defaultContainerdConfig)
		return 0
	}
	return s.fail(1, "cp-hostsim containerd: only `containerd config default` and `containerd --version` are simulated; the daemon runs via systemctl start containerd")
}

// ctr emulates `ctr version`, `ctr plugins ls` and `ctr images ls|pull`.
// Like the real one it talks to containerd's socket, which needs root and
// a running containerd.
func (s *sim) ctr(args []string) int {
	p := parseFlags(args, "n", "namespace", "address", "a")
	const sock = "/run/containerd/containerd.sock"
	var hs *HostState
	_ = s.st.view(func(st *State) error { hs = st.host(s.host.Host); return nil })
	down := func() int {
		return s.fail(1, "ctr: failed to dial %q: context deadline exceeded: connection error: desc = \"transport: error while dialing: dial unix %s: connect: no such file or directory\"", sock, sock)
	}
	active := false
	if svc := hs.Services["containerd.service"]; svc != nil && svc.Active {
		active = true
	}
	if active && s.euid != 0 && p.arg(0) != "--version" {
		return s.fail(1, "ctr: failed to dial %q: connection error: desc = \"transport: error while dialing: dial unix %s: connect: permission denied\"", sock, sock)
	}
	switch p.arg(0) {
	case "version":
		s.printf("Client:\n  Version:  v%s\n  Revision: 7f7fdf5fed64eb6a7caf99b3e12efcf9d60e311c\n  Go version: go1.22.7\n\n", containerdVersion)
		if !active {
			return down()
		}
		s.printf("Server:\n  Version:  v%s\n  Revision: 7f7fdf5fed64eb6a7caf99b3e12efcf9d60e311c\n  UUID: %s\n", containerdVersion, shortHash(s.host.Host))
		return 0
	case "--version", "-v":
		s.printf("ctr github.com/containerd/containerd v%s\n", containerdVersion)
		return 0
	case "plugins", "plugin":
		if sub := p.arg(1); sub != "" && sub != "ls" && sub != "list" {
			return s.fail(1, "cp-hostsim ctr plugins: only ls is simulated")
		}
		if !active {
			return down()
		}
		rows := [][]string{
			{"io.containerd.content.v1", "content", "-", "ok"},
			{"io.containerd.snapshotter.v1", "overlayfs", "linux/amd64", "ok"},
			{"io.containerd.metadata.v1", "bolt", "-", "ok"},
			{"io.containerd.runtime.v2", "task", "linux/amd64", "ok"},
			{"io.containerd.grpc.v1", "containers", "-", "ok"},
			{"io.containerd.grpc.v1", "images", "-", "ok"},
		}
		// A plugin listed in disabled_plugins is not loaded at all.
		if !hs.CRIDisabled {
			rows = append(rows, []string{"io.containerd.grpc.v1", "cri", "linux/amd64", "ok"})
		}
		s.printf("%s", table([]string{"TYPE", "ID", "PLATFORMS", "STATUS"}, rows, false))
		return 0
	case "images", "image", "i":
		if !active {
			return down()
		}
		if p.arg(1) == "pull" {
			return s.crictl([]string{"pull", p.arg(2)})
		}
		return s.crictl([]string{"images"})
	}
	return s.fail(1, "cp-hostsim ctr: only version, plugins ls and images ls|pull are simulated")
}

// crictl emulates crictl info, version, pull, images and ps.
func (s *sim) crictl(args []string) int {
	p := parseFlags(args, "runtime-endpoint", "r", "image-endpoint", "i", "o", "output", "timeout")
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		if msg := s.criDown(hs); msg != "" && p.arg(0) != "--version" {
			code = s.fail(1, "%s", strings.Replace(msg, "level=fatal msg=\"", "level=fatal msg=\"", 1))
			return nil
		}
		switch p.arg(0) {
		case "info":
			s.printf("{\n  \"status\": {\n    \"conditions\": [\n      {\n        \"type\": \"RuntimeReady\",\n        \"status\": true\n      },\n      {\n        \"type\": \"NetworkReady\",\n        \"status\": %t\n      }\n    ]\n  },\n  \"config\": {\n    \"containerd\": {\n      \"runtimes\": {\n        \"runc\": {\n          \"options\": {\n            \"SystemdCgroup\": %t\n          }\n        }\n      }\n    }\n  }\n}\n", st.CNI != "", hs.SystemdCgroup)
		case "version":
			s.printf("Version:  0.1.0\nRuntimeName:  containerd\nRuntimeVersion:  v%s\nRuntimeApiVersion:  v1\n", containerdVersion)
		case "pull":
			img := p.arg(1)
			if img == "" {
				code = s.fail(1, "image name cannot be empty")
				return nil
			}
			img = normalizeImage(img)
			if msg := s.pullError(st, hs, img); msg != "" {
				code = s.fail(1, "E%s pulling image: rpc error: code = Unknown desc = %s", s.now().UTC().Format("0102 15:04:05.000000"), msg)
				return nil
			}
			if !slices.Contains(hs.Images, img) {
				hs.Images = append(hs.Images, img)
				slices.Sort(hs.Images)
			}
			s.printf("Image is up to date for sha256:%s\n", randomHex(32))
		case "inspecti":
			img := normalizeImage(p.arg(1))
			if !slices.Contains(hs.Images, img) {
				code = s.fail(1, "E%s no such image %q present", s.now().UTC().Format("0102 15:04:05.000000"), p.arg(1))
				return nil
			}
			s.printf("{\n  \"status\": {\n    \"repoTags\": [\n      \"%s\"\n    ]\n  }\n}\n", img)
		case "images", "img":
			rows := [][]string{}
			for _, img := range hs.Images {
				i := strings.LastIndex(img, ":")
				rows = append(rows, []string{img[:i], img[i+1:], shortHash(img) + "0123456", "25.3MB"})
			}
			s.printf("%s", table([]string{"IMAGE", "TAG", "IMAGE ID", "SIZE"}, rows, false))
		case "ps", "pods":
			s.printf("%s", table([]string{"CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD"}, nil, false))
		default:
			code = s.fail(1, "cp-hostsim crictl: %q is not simulated (info, version, pull, images, ps)", p.arg(0))
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim crictl: %v", err)
	}
	return code
}

// kubelet emulates `kubelet --version`.
func (s *sim) kubelet(args []string) int {
	p := parseFlags(args)
	if p.has("version") {
		v := "v" + defaultKubeVersion
		_ = s.st.view(func(st *State) error {
			if k := kubeVersion(st.host(s.host.Host).Packages["kubelet"]); k != "" {
				v = k
			}
			return nil
		})
		s.printf("Kubernetes %s\n", v)
		return 0
	}
	return s.fail(1, "cp-hostsim kubelet: only --version is simulated; the kubelet runs via systemctl")
}

// normalizeImage expands a short image reference like containerd does
// (nginx -> docker.io/library/nginx:latest).
func normalizeImage(img string) string {
	if first := strings.Split(img, "/")[0]; !strings.Contains(first, ".") && !strings.Contains(first, ":") && first != "localhost" {
		if !strings.Contains(img, "/") {
			img = "library/" + img
		}
		img = "docker.io/" + img
	}
	if !strings.Contains(img[strings.LastIndex(img, "/")+1:], ":") && !strings.Contains(img, "@") {
		img += ":latest"
	}
	return img
}
