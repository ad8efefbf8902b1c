package packs

import (
	"regexp"
	"strings"
	"testing"
)

// TestDeployPostgresqlOfficialImage: PostgreSQL runs the official image
// at the pinned postgres_image as a StatefulSet applied with kubectl (no
// Bitnami chart, whose images moved to a legacy repository in 2025); the
// application user and database reach the init script only through the
// environment; a tag that floats is refused before anything is applied.
func TestDeployPostgresqlOfficialImage(t *testing.T) {
	const script = "postgresql/scripts/deploy-postgresql.sh"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	h := newScriptHost(t)
	succeeded(t, h.run(script, h.artifactEnv(packEnv(t, "postgresql", map[string]string{"username": "shop", "database": "orders"}), arts)))
	calls, applied := h.log(h.calls), h.log(h.stdin)
	if strings.Contains(calls, "helm ") || strings.Contains(calls, "bitnami") || strings.Contains(applied, "bitnami") {
		t.Errorf("PostgreSQL still comes from the Bitnami chart:\n%s", calls)
	}
	var sts, svc map[string]any
	for _, d := range yamlDocs(t, applied) {
		switch d["kind"] {
		case "StatefulSet":
			sts = d
		case "Service":
			svc = d
		}
	}
	if sts == nil || svc == nil {
		t.Fatalf("no StatefulSet and Service applied:\n%s", applied)
	}
	c := dig(sts, "spec", "template", "spec", "containers", 0).(map[string]any)
	env := containerEnv(c)
	if c["image"] != "postgres:17.6-bookworm" || env["POSTGRES_PASSWORD"] != "secret:postgresql-auth/postgres-password" ||
		env["APP_PASSWORD"] != "secret:postgresql-auth/password" || env["APP_USER"] != "shop" || env["APP_DATABASE"] != "orders" {
		t.Errorf("postgresql container image %v env %v", c["image"], env)
	}
	if dig(svc, "metadata", "name") != "postgresql" || dig(sts, "metadata", "labels", "app.kubernetes.io/instance") != "postgresql" {
		t.Errorf("Service %v, StatefulSet labels %v", dig(svc, "metadata", "name"), dig(sts, "metadata", "labels"))
	}
	if !strings.Contains(calls, "create configmap postgresql-init --from-file=10-app-user.sh=") {
		t.Errorf("no init script ConfigMap:\n%s", calls)
	}
	for _, img := range []string{"postgres:17", "postgres:latest", "postgres"} {
		h := newScriptHost(t)
		refused(t, h, h.run(script, h.artifactEnv(packEnv(t, "postgresql", map[string]string{"postgres_image": img}), arts)), "pin one such as")
		if applied := h.log(h.stdin); applied != "" {
			t.Errorf("%s: applied\n%s", img, applied)
		}
	}
}

// TestConfigureBackupsRestoreCheck: the backups dump with the server's own
// image (pg_dump is never older than the server), a backup is taken now,
// and the latest one is restored into a scratch database by a Job whose
// success is the evidence.
func TestConfigureBackupsRestoreCheck(t *testing.T) {
	const script, file = "postgresql/scripts/configure-backups.sh", "postgresql/jobs/configure-backups.yaml"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n", "object_storage.s3.endpoint": "https://s3.eu-central-1.amazonaws.com",
		"object_storage.s3.credentials": "AWS_ACCESS_KEY_ID=k\nAWS_SECRET_ACCESS_KEY=s\n"}
	h := newScriptHost(t)
	env := h.artifactEnv(packEnv(t, "postgresql", map[string]string{"postgres_image": "postgres:17.6-bookworm"}), arts)
	succeeded(t, h.run(script, env))
	docs := map[string]map[string]any{}
	for _, d := range yamlDocs(t, h.log(h.stdin)) {
		docs[d["kind"].(string)+"/"+dig(d, "metadata", "name").(string)] = d
	}
	cron, now, restore := docs["CronJob/postgresql-backup"], docs["Job/postgresql-backup-now"], docs["Job/postgresql-restore-check"]
	if cron == nil || now == nil || restore == nil {
		t.Fatalf("want the CronJob, the backup now and the restore check; applied %v", protocolKeys(docs))
	}
	if img := dig(cron, "spec", "jobTemplate", "spec", "template", "spec", "initContainers", 0, "image"); img != "postgres:17.6-bookworm" {
		t.Errorf("the CronJob dumps with %v, not the server's image", img)
	}
	if img := dig(now, "spec", "template", "spec", "initContainers", 0, "image"); img != "postgres:17.6-bookworm" {
		t.Errorf("the backup now dumps with %v, not the server's image", img)
	}
	rc := dig(restore, "spec", "template", "spec", "containers", 0).(map[string]any)
	args := strings.Join(strList(rc["args"]), " ")
	if rc["image"] != "postgres:17.6-bookworm" || !strings.Contains(args, "pg_restore --exit-on-error --no-owner --no-privileges -d cp_restore_check /dump/latest.dump") {
		t.Errorf("restore check %v: %s", rc["image"], args)
	}
	// The restore check reads back the very dump the backup now wrote
	// (an older one sorting last proves nothing about this run).
	fetchC := dig(restore, "spec", "template", "spec", "initContainers", 0).(map[string]any)
	fetch := strings.Join(strList(fetchC["args"]), " ")
	uploadC := dig(now, "spec", "template", "spec", "containers", 0).(map[string]any)
	dump := containerEnv(uploadC)["DUMP"]
	if !regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\.dump$`).MatchString(dump) || containerEnv(fetchC)["DUMP"] != dump ||
		!strings.Contains(fetch, `mc cp "s3/$BUCKET/$DUMP" /dump/latest.dump`) {
		t.Errorf("the restore check fetches %s (DUMP %q), want the backup now's dump %q", fetch, containerEnv(fetchC)["DUMP"], dump)
	}
	if up := strings.Join(strList(uploadC["args"]), " "); !strings.Contains(up, `"s3/$BUCKET/${DUMP:-$(date -u +%Y%m%dT%H%M%SZ).dump}"`) {
		t.Errorf("the backup now does not upload to DUMP: %s", up)
	}
	if _, ok := containerEnv(dig(cron, "spec", "jobTemplate", "spec", "template", "spec", "containers", 0).(map[string]any))["DUMP"]; ok {
		t.Errorf("the CronJob's dumps are all named alike: DUMP is set")
	}
	calls := h.log(h.calls)
	backup, check := callIndex(calls, "wait --for=condition=complete job/postgresql-backup-now"), callIndex(calls, "wait --for=condition=complete job/postgresql-restore-check")
	if backup < 0 || check < backup {
		t.Errorf("the script does not wait for the backup and the restore check:\n%s", calls)
	}

	// The evidence is the backup now's and the restore check's success,
	// not the CronJob.
	for _, c := range []struct {
		succeeded string
		ok        bool
	}{{"1", true}, {"", false}, {"0", false}} {
		h := newScriptHost(t)
		h.stub("kubectl", `case " $* " in *" job postgresql-backup-now "*) printf '`+c.succeeded+`' ;; *" cronjob "*) echo cronjob.batch/postgresql-backup ;; esac`)
		if ok, got := h.evidence(file, "backup_now_succeeded", h.artifactEnv(packEnv(t, "postgresql", nil), arts)); ok != c.ok {
			t.Errorf("backup_now_succeeded with succeeded=%q: %v (%q), want %v", c.succeeded, ok, got, c.ok)
		}
	}
	if ok, got := newScriptHost(t).evidence(file, "backup_now_succeeded", packEnv(t, "postgresql", nil)); !ok || got != "disabled" {
		t.Errorf("backup_now_succeeded without object storage: %v (%q), want disabled", ok, got)
	}
	for _, c := range []struct {
		succeeded string
		ok        bool
	}{{"1", true}, {"", false}} {
		h := newScriptHost(t)
		h.stub("kubectl", `case " $* " in *" job postgresql-restore-check "*) printf '`+c.succeeded+`' ;; *" cronjob "*) echo cronjob.batch/postgresql-backup ;; esac`)
		if ok, got := h.evidence(file, "latest_backup_restores", h.artifactEnv(packEnv(t, "postgresql", nil), arts)); ok != c.ok {
			t.Errorf("latest_backup_restores with succeeded=%q: %v (%q), want %v", c.succeeded, ok, got, c.ok)
		}
	}
}

func protocolKeys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
