package intent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

func builtin(t *testing.T) *packs.Catalog {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func ref(id, version, action, destroy string) PackRef {
	return PackRef{ID: id, Version: version, Action: action, DestroyAction: destroy,
		IDPath: Root("pack"), VersionPath: Root("version"), ActionPath: Root("action"), DestroyActionPath: Root("destroy_action")}
}

func TestCheckPackRef(t *testing.T) {
	cat := builtin(t)
	if p, ps := CheckPackRef(cat, ref("tempo", ">= 1.0.0", "install", "uninstall")); p == nil || len(ps) != 0 {
		t.Fatalf("got: %v, %v want: the tempo pack, no problems", p, ps)
	}
	cases := []struct {
		name string
		r    PackRef
		path string
		frag string
	}{
		{"unknown pack", ref("nope", "", "install", ""), "pack", `"nope" is not in the catalog`},
		{"no matching version", ref("tempo", ">= 9.0.0", "install", ""), "version", `no version of pack tempo satisfies it`},
		{"action without a template", ref("kubernetes", "", "explode", ""), "action", `no plan template for "explode"`},
		{"destroy action without a template", ref("kubernetes", "", "create", "uninstall"), "destroy_action", `"uninstall", so destroy_action could not run`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := CheckPackRef(cat, tc.r)
			wantProblem(t, ps, tc.path, tc.frag)
		})
	}
}

func TestCheckPolicyKeys(t *testing.T) {
	cat := builtin(t)
	if !slices.Contains(RequiredCapabilities(cat), "object_storage.s3") {
		t.Fatalf("got: %v want: object_storage.s3 among the required capabilities", RequiredCapabilities(cat))
	}
	if ps := CheckPolicyKeys(Root("capability_policy"), []string{"object_storage.s3"}, cat); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
	wantProblem(t, CheckPolicyKeys(Root("capability_policy"), []string{"object_storage.S3"}, cat), `capability_policy["object_storage.S3"]`,
		"not a capability any scenario pack requires", `"object_storage.s3"`)
}

func TestCheckActorRoles(t *testing.T) {
	cat := builtin(t)
	if ps := CheckActorRoles(Root("actor_roles"), []string{"sre", "platform_admin"}, cat, nil); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
	wantProblem(t, CheckActorRoles(Root("actor_roles"), []string{"sre", "admin"}, cat, nil), "actor_roles[1]", `"admin" is a role no gate asks for`)
	// A role the capability policy lets approve is one a gate asks for.
	if ps := CheckActorRoles(Root("actor_roles"), []string{"security"}, cat, []string{"security"}); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
}

func TestCheckEnvVar(t *testing.T) {
	env := func(vals map[string]string) Env {
		return func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
	}
	p := Root("ssh").Attr("become_password_env")
	if ps := CheckEnvVar(p, "SUDO_PW", "the sudo password", env(map[string]string{"SUDO_PW": "x"})); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
	wantProblem(t, CheckEnvVar(p, "SUDO_PW", "the sudo password", env(nil)), "ssh.become_password_env", `"SUDO_PW"`, "is not set")
	wantProblem(t, CheckEnvVar(p, "SUDO_PW", "the sudo password", env(map[string]string{"SUDO_PW": ""})), "ssh.become_password_env", "is empty")
}

func TestCheckDiagnosis(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "analyze")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	look := func(p string) (string, error) {
		if p == exe {
			return p, nil
		}
		return "", errors.New("not found")
	}
	none := func(string) (string, bool) { return "", false }
	base := Root("diagnosis")
	good := Diagnosis{Command: true, CommandPath: exe, HTTP: true, Endpoint: "http://127.0.0.1:8080/v1", Model: "m"}
	if ps := CheckDiagnosis(base, good, none, look); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
	bad := good
	bad.CommandPath = filepath.Join(dir, "missing")
	wantProblem(t, CheckDiagnosis(base, bad, none, look), "diagnosis.command.path", "is not an executable file")
	bad = good
	bad.Endpoint = "127.0.0.1:8080"
	wantProblem(t, CheckDiagnosis(base, bad, none, look), "diagnosis.http.endpoint", `"127.0.0.1:8080" is not an http(s) URL`)
	bad = good
	bad.APIKeyEnv = "CP_TEST_NO_SUCH_KEY"
	wantProblem(t, CheckDiagnosis(base, bad, none, look), "diagnosis.http.api_key_env", "is not set")
}

func TestParamProblems(t *testing.T) {
	pp := ParamPaths{
		Own:     map[string]Path{"kubernetes_version": Root("kubernetes_version")},
		Base:    Root("parameters"),
		Patches: []PatchParams{{Path: Root("plan_patches").Index(0).Attr("changes").Index(1).Attr("parameters"), Jobs: []string{"restart-containerd"}}},
	}
	errs := planner.ParamErrors{
		{Pack: "kubernetes@1.0.0", Name: "kubernetes_version", Msg: `"1.20.0" is outside the supported versions >= 1.29.0`},
		{Pack: "kubernetes@1.0.0", Name: "min_cpus", Msg: `"lots" is not a decimal number`},
		{Pack: "kubernetes@1.0.0", Job: "restart-containerd", Name: "timeout", Msg: `"soon" is not a positive duration`},
		{Pack: "tempo@1.0.0", Name: "minio.bucket", Msg: `"A B" is not a DNS label`},
	}
	ps := ParamProblems(errs, pp)
	want := []string{"kubernetes_version", `parameters["min_cpus"]`, `plan_patches[0].changes[1].parameters["timeout"]`, `parameters["minio.bucket"]`}
	if len(ps) != len(want) {
		t.Fatalf("got: %v want: %d problems", ps, len(want))
	}
	for i, w := range want {
		if ps[i].Path.String() != w {
			t.Fatalf("got: problem %d at %s want: %s", i, ps[i].Path, w)
		}
	}
	// Without a parameters map the fallback takes them.
	fb := ParamPaths{Own: map[string]Path{}, Fallback: Root("cluster_handle")}
	if got := fb.Of(errs[1]).String(); got != "cluster_handle" {
		t.Fatalf("got: %s want: cluster_handle", got)
	}
}
