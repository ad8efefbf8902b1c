package hostsim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// The real PostgreSQL clusters. On a test host whose machine has Debian's
// postgresql-common, systemctl starts, restarts and stops the unit
// postgresql@VERSION-CLUSTER by running pg_ctlcluster as the unit's
// ExecStart and ExecStop do (with --skip-systemctl-redirect), and
// is-active asks pg_ctlcluster status, so it reflects the real
// postmaster. postgresql.service, the distribution's umbrella unit,
// starts every cluster whose start.conf says auto, as its systemd
// generator does.
const (
	pgCtlcluster   = "/usr/bin/pg_ctlcluster"
	pgConfRoot     = "/etc/postgresql"
	pgUmbrellaUnit = "postgresql.service"
)

var pgUnitRE = regexp.MustCompile(`^postgresql@([0-9]+)-([A-Za-z0-9_][A-Za-z0-9_.-]*)\.service$`)

// pgCluster returns the version and cluster of a postgresql@ unit.
func pgCluster(unit string) (version, cluster string, ok bool) {
	m := pgUnitRE.FindStringSubmatch(unit)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// realPostgres reports whether PostgreSQL runs for real here: inside a
// host (root "/") with the real pg_ctlcluster.
func (s *sim) realPostgres() bool {
	if s.root != "/" {
		return false
	}
	fi, err := os.Lstat(pgCtlcluster)
	return err == nil && fi.Mode().IsRegular()
}

// pgUnit reports whether unit is a PostgreSQL unit run for real here.
func (s *sim) pgUnit(unit string) bool {
	if unit == pgUmbrellaUnit {
		return s.realPostgres()
	}
	_, _, ok := pgCluster(unit)
	return ok && s.realPostgres()
}

// pgCtl runs pg_ctlcluster VERSION CLUSTER ACTION. Its output goes to a
// file, not a pipe: the postmaster it starts must not hold this
// process's output open (the SSH session would wait for it).
func (s *sim) pgCtl(version, cluster, action string) (string, error) {
	f, err := os.CreateTemp("", "cp-hostsim-pg-*.log")
	if err != nil {
		return "", fmt.Errorf("create pg_ctlcluster log: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	args := []string{"--skip-systemctl-redirect"}
	if action == "stop" || action == "restart" {
		args = append(args, "-m", "fast")
	}
	cmd := exec.Command(pgCtlcluster, append(args, version, cluster, action)...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	return strings.TrimSpace(string(out)), err
}

// pgRunning reports whether the cluster's postmaster runs: the pid in
// the unit's PIDFile (/run/postgresql/VERSION-CLUSTER.pid, the
// external_pid_file Debian sets, readable by everyone, as is-active needs
// no root) is a live postgres of the distribution's packages.
func (s *sim) pgRunning(version, cluster string) bool {
	b, err := os.ReadFile("/run/postgresql/" + version + "-" + cluster + ".pid")
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !strings.HasPrefix(string(cmdline), "/usr/lib/postgresql/"+version+"/bin/postgres\x00") {
		return false
	}
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i:]), ") Z") {
			return false // a zombie no longer runs
		}
	}
	return true
}

// pgAutoClusters lists the clusters postgresql.service starts: those
// whose start.conf says auto (the default without one), sorted.
func (s *sim) pgAutoClusters() [][2]string {
	confs, _ := filepath.Glob(filepath.Join(pgConfRoot, "*", "*", "postgresql.conf"))
	sort.Strings(confs)
	var out [][2]string
	for _, c := range confs {
		dir := filepath.Dir(c)
		if b, err := os.ReadFile(filepath.Join(dir, "start.conf")); err == nil && !pgStartAuto(string(b)) {
			continue
		}
		out = append(out, [2]string{filepath.Base(filepath.Dir(dir)), filepath.Base(dir)})
	}
	return out
}

// pgStartAuto reads start.conf: its first word outside comments.
func pgStartAuto(conf string) bool {
	for _, line := range strings.Split(conf, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			return f[0] == "auto"
		}
	}
	return true
}

// pgUnitState is is-active of a real PostgreSQL unit: a cluster is active
// while its postmaster runs, failed once it stopped after a start; the
// umbrella unit is a oneshot that stays active once started.
func (s *sim) pgUnitState(svc *Service, unit string) string {
	started := svc != nil && svc.Active
	if unit == pgUmbrellaUnit {
		if started {
			return "active"
		}
		return "inactive"
	}
	version, cluster, _ := pgCluster(unit)
	switch {
	case s.pgRunning(version, cluster):
		return "active"
	case started:
		return "failed"
	}
	return "inactive"
}

// pgStart queues the (re)start of a real PostgreSQL unit after the state
// lock: pg_ctlcluster restart of the cluster, or of every auto cluster
// for postgresql.service. A cluster that does not start fails the
// command with pg_ctlcluster's message and the log's tail.
func (s *sim) pgStart(unit string) {
	clusters := s.pgAutoClusters()
	if v, c, ok := pgCluster(unit); ok {
		clusters = [][2]string{{v, c}}
	}
	s.afterUnlock = append(s.afterUnlock, func() int {
		var errs []error
		for _, vc := range clusters {
			if out, err := s.pgCtl(vc[0], vc[1], "restart"); err != nil {
				log := filepath.Join("/var/log/postgresql", "postgresql-"+vc[0]+"-"+vc[1]+".log")
				errs = append(errs, fmt.Errorf("pg_ctlcluster %s %s restart: %v\n%s\n%s", vc[0], vc[1], err, out, logTail(log, 10)))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return s.fail(1, "Job for %s failed because the control process exited with error code.\nSee \"systemctl status %s\" and \"journalctl -xeu %s\" for details.\n%v", unit, unit, unit, err)
		}
		return 0
	})
}

// pgStop stops a real cluster (pg_ctlcluster stop -m fast), or every
// running one for postgresql.service.
func (s *sim) pgStop(unit string) {
	clusters := s.pgAutoClusters()
	if v, c, ok := pgCluster(unit); ok {
		clusters = [][2]string{{v, c}}
	}
	s.afterUnlock = append(s.afterUnlock, func() int {
		for _, vc := range clusters {
			if s.pgRunning(vc[0], vc[1]) {
				if out, err := s.pgCtl(vc[0], vc[1], "stop"); err != nil {
					return s.fail(1, "Failed to stop %s: pg_ctlcluster %s %s stop: %v\n%s", unit, vc[0], vc[1], err, out)
				}
			}
		}
		return 0
	})
}
