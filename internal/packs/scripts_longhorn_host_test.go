package packs

import (
	"strings"
	"testing"
)

const longhornBlacklist = "# Written by cp (kubernetes pack): the /dev/sdX devices of Longhorn\n# volumes, which multipathd must not claim.\n" +
	"blacklist {\n    devnode \"^sd[a-z0-9]+\"\n}\n"

// With storage longhorn, both scripts that prepare a node (at create and
// when a node is added) install the missing open-iscsi and nfs-common,
// enable and start iscsid, and, where multipathd is installed, write the
// multipath blacklist drop-in and restart multipathd, once: a second run
// with the drop-in in place restarts nothing. Without multipathd no
// drop-in is written; with storage none nothing of Longhorn's is touched.
func TestLonghornHostPreparation(t *testing.T) {
	scripts := map[string][]string{
		"kubernetes/scripts/install-kubernetes-packages.sh":      {"/etc/apt", "/etc/multipath/conf.d"},
		"kubernetes/scripts/prepare-kubernetes-prerequisites.sh": {"/etc/modules-load.d", "/etc/sysctl.d", "/etc/fstab", "/etc/containerd", "/etc/crictl.yaml", "/etc/apt", "/etc/multipath/conf.d"},
	}
	host := func(t *testing.T, installed, multipathd bool) *scriptHost {
		h := newScriptHost(t)
		h.write("/etc/apt/sources.list.d/.keep", "")
		h.write("/etc/fstab", "UUID=1 / ext4 defaults 0 1\n")
		if installed {
			h.stub("dpkg-query", `printf 'install ok installed'`)
		} else {
			h.stub("dpkg-query", `echo "dpkg-query: no packages found matching $4" >&2; exit 1`)
		}
		if multipathd {
			h.stub("multipathd", ``)
		}
		return h
	}
	for script, rewrite := range scripts {
		t.Run(script, func(t *testing.T) {
			env := packEnv(t, "kubernetes", map[string]string{"storage": "longhorn"})
			h := host(t, false, true)
			succeeded(t, h.run(script, env, rewrite...))
			calls := h.log(h.calls)
			for _, want := range []string{"apt-get install -y open-iscsi nfs-common\n", "systemctl enable --now iscsid.service\n", "systemctl restart multipathd.service\n"} {
				if !strings.Contains(calls, want) {
					t.Errorf("no call %q:\n%s", want, calls)
				}
			}
			if got := h.read("/etc/multipath/conf.d/90-cp-longhorn.conf"); got != longhornBlacklist {
				t.Errorf("multipath drop-in = %q, want %q", got, longhornBlacklist)
			}
			// Run again: the drop-in is there, multipathd is not restarted.
			h.write("/.calls", "")
			succeeded(t, h.run(script, env, rewrite...))
			if calls := h.log(h.calls); strings.Contains(calls, "restart multipathd") {
				t.Errorf("multipathd restarted although its drop-in did not change:\n%s", calls)
			}

			// Packages installed, no multipathd: no install, no drop-in.
			h = host(t, true, false)
			succeeded(t, h.run(script, env, rewrite...))
			calls = h.log(h.calls)
			if strings.Contains(calls, "apt-get install -y open-iscsi") || strings.Contains(calls, "apt-get install -y nfs-common") || strings.Contains(calls, "multipathd") || !strings.Contains(calls, "systemctl enable --now iscsid.service\n") {
				t.Errorf("installed packages and no multipathd: calls\n%s", calls)
			}
			if h.exists("/etc/multipath/conf.d/90-cp-longhorn.conf") {
				t.Errorf("a drop-in was written for a host without multipathd")
			}

			// storage none: nothing of Longhorn's.
			h = host(t, false, true)
			succeeded(t, h.run(script, packEnv(t, "kubernetes", map[string]string{"storage": "none"}), rewrite...))
			if calls := h.log(h.calls); strings.Contains(calls, "iscsid") || strings.Contains(calls, "multipathd") || strings.Contains(calls, "nfs-common") {
				t.Errorf("storage none touched Longhorn's host requirements:\n%s", calls)
			}
		})
	}
}

// The Longhorn host evidence holds only when what it proves holds: both
// packages installed, iscsid enabled and active, and multipathd's running
// configuration (multipath -t) holding the blacklist where multipathd is
// installed; with storage none it holds without looking.
func TestLonghornHostEvidence(t *testing.T) {
	longhorn := map[string]string{"CP_PARAM_STORAGE": "longhorn"}
	for _, file := range []string{"kubernetes/jobs/install-kubernetes-packages.yaml", "kubernetes/jobs/prepare-kubernetes-prerequisites.yaml"} {
		for _, c := range []struct {
			name, id string
			stubs    map[string]string
			env      map[string]string
			want     bool
		}{
			{"both installed", "longhorn_host_packages", map[string]string{"dpkg-query": `printf 'install ok installed\ninstall ok installed\n'`}, longhorn, true},
			{"nfs-common missing", "longhorn_host_packages", map[string]string{"dpkg-query": `printf 'install ok installed\n'; echo 'dpkg-query: no packages found matching nfs-common' >&2; exit 1`}, longhorn, false},
			{"storage none", "longhorn_host_packages", map[string]string{"dpkg-query": `exit 1`}, map[string]string{"CP_PARAM_STORAGE": "none"}, true},
			{"iscsid running", "longhorn_iscsid_running", map[string]string{"systemctl": `case "$1" in is-enabled) echo enabled ;; is-active) echo active ;; esac`}, longhorn, true},
			{"iscsid disabled", "longhorn_iscsid_running", map[string]string{"systemctl": `case "$1" in is-enabled) echo disabled; exit 1 ;; is-active) echo active ;; esac`}, longhorn, false},
			{"iscsid stopped", "longhorn_iscsid_running", map[string]string{"systemctl": `case "$1" in is-enabled) echo enabled ;; is-active) echo inactive; exit 3 ;; esac`}, longhorn, false},
			{"no multipathd", "longhorn_multipath_blacklist", nil, longhorn, true},
			{"blacklisted", "longhorn_multipath_blacklist", map[string]string{"multipathd": ``,
				"multipath": `printf 'blacklist {\n\tdevnode "^(ram|zram|raw|loop|fd|md|dm-|sr|scd|st|dcssblk)[0-9]"\n\tdevnode "^sd[a-z0-9]+"\n}\n'`}, longhorn, true},
			{"not blacklisted", "longhorn_multipath_blacklist", map[string]string{"multipathd": ``,
				"multipath": `printf 'blacklist {\n\tdevnode "^(ram|zram|raw|loop|fd|md|dm-|sr|scd|st|dcssblk)[0-9]"\n}\n'`}, longhorn, false},
		} {
			t.Run(file+" "+c.name, func(t *testing.T) {
				h := newScriptHost(t)
				for name, body := range c.stubs {
					h.stub(name, body)
				}
				if ok, got := h.evidence(file, c.id, c.env); ok != c.want {
					t.Errorf("%s holds %v on %q, want %v", c.id, ok, got, c.want)
				}
			})
		}
	}
}
