package packs

import (
	"strings"
	"testing"
)

// pullingCrictl makes crictl a store: pull adds the image, inspecti
// finds only what was pulled (or put in $HOME/.pulled by the test).
func pullingCrictl(h *scriptHost) {
	h.stub("crictl", `case "$1" in
  pull) printf '%s\n' "$2" >>"$HOME/.pulled" ;;
  inspecti) grep -qxF "$2" "$HOME/.pulled" 2>/dev/null ;;
esac`)
}

// TestPrePullImagesImageRepository: with image_repository, pre-pull-images
// pulls the images kubeadm lists under it, and nothing from
// registry.k8s.io; without it, kubeadm's own. The evidence of both library
// jobs asks kubeadm the same way: images present only under
// registry.k8s.io do not satisfy it when image_repository is set.
func TestPrePullImagesImageRepository(t *testing.T) {
	const script = "kubernetes/scripts/pre-pull-images.sh"
	upstream := []string{"registry.k8s.io/kube-apiserver:v1.34.2", "registry.k8s.io/coredns:v1.12.1", "registry.k8s.io/pause:3.10.1", "registry.k8s.io/etcd:3.6.5-0"}
	mirrored := make([]string, len(upstream))
	for i, img := range upstream {
		mirrored[i] = imageRepo + strings.TrimPrefix(img, "registry.k8s.io")
	}
	for _, c := range []struct {
		name, repo, list string
		pulled           []string
	}{
		{"with image_repository", imageRepo, "kubeadm config images list --kubernetes-version v1.34.2 --image-repository " + imageRepo + "\n", mirrored},
		{"without image_repository", "", "kubeadm config images list --kubernetes-version v1.34.2\n", upstream},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			kubeadmImages(h)
			pullingCrictl(h)
			env := packEnv(t, "kubernetes", map[string]string{"image_repository": c.repo})
			succeeded(t, h.run(script, env))
			calls := h.log(h.calls)
			if !strings.Contains(calls, c.list) {
				t.Errorf("kubeadm was not asked %q:\n%s", c.list, calls)
			}
			if got, want := h.read("/.pulled"), strings.Join(c.pulled, "\n")+"\n"; got != want {
				t.Errorf("pulled:\n%s\nwant:\n%s", got, want)
			}
			for _, job := range []string{"kubernetes/jobs/pre-pull-images.yaml", "kubernetes/jobs/pre-pull-kubernetes-images.yaml"} {
				if ok, got := h.evidence(job, "images_present", env); !ok {
					t.Errorf("%s images_present fails (%q) with the images pulled", job, got)
				}
			}
		})
	}

	// Images pulled from registry.k8s.io do not satisfy an air-gapped
	// cluster's evidence.
	h := newScriptHost(t)
	kubeadmImages(h)
	pullingCrictl(h)
	h.write("/.pulled", strings.Join(upstream, "\n")+"\n")
	env := packEnv(t, "kubernetes", map[string]string{"image_repository": imageRepo})
	for _, job := range []string{"kubernetes/jobs/pre-pull-images.yaml", "kubernetes/jobs/pre-pull-kubernetes-images.yaml"} {
		if ok, got := h.evidence(job, "images_present", env); ok {
			t.Errorf("%s images_present holds (%q) with the images only under registry.k8s.io", job, got)
		}
		if ok, got := h.evidence(job, "images_present", packEnv(t, "kubernetes", map[string]string{"image_repository": ""})); !ok {
			t.Errorf("%s images_present fails (%q) without image_repository, the images under registry.k8s.io", job, got)
		}
	}

	// A refused image_repository asks kubeadm nothing; a kubeadm listing
	// an image outside image_repository pulls nothing.
	for name, c := range map[string]struct{ repo, kubeadm, want string }{
		"image_repository with an option": {"--image-repository=evil.example", "", "image_repository "},
		"image_repository with a space":   {imageRepo + " evil.example", "", "image_repository "},
		"an image outside it":             {imageRepo, `echo ` + imageRepo + `/pause:3.10.1; echo registry.k8s.io/etcd:3.6.5-0`, "kubeadm lists registry.k8s.io/etcd:3.6.5-0, which is not under image_repository " + imageRepo},
		"an image that is no image name":  {imageRepo, `echo '` + imageRepo + `/pause:3.10.1 $(touch $HOME/.canary)'`, "kubeadm's image "},
	} {
		t.Run(name, func(t *testing.T) {
			h := newScriptHost(t)
			if c.kubeadm != "" {
				h.stub("kubeadm", c.kubeadm)
			}
			pullingCrictl(h)
			refused(t, h, h.run(script, packEnv(t, "kubernetes", map[string]string{"image_repository": c.repo})), c.want)
			calls := h.log(h.calls)
			if strings.Contains(calls, "crictl pull") {
				t.Errorf("images pulled after the refusal:\n%s", calls)
			}
			if c.kubeadm == "" && strings.Contains(calls, "kubeadm") {
				t.Errorf("kubeadm asked with a refused image_repository:\n%s", calls)
			}
		})
	}
}
