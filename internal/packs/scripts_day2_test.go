package packs

import (
	"strings"
	"testing"
	"time"
)

// kubeadmExpiry is kubeadm certs check-expiration's text with admin.conf
// expiring at adminExpiry and the rest in a year.
func kubeadmExpiry(adminExpiry time.Time) string {
	f := func(t time.Time) string { return t.UTC().Format("Jan 02, 2006 15:04 UTC") }
	year := time.Now().Add(365 * 24 * time.Hour)
	return `[check-expiration] Reading configuration from the cluster...

CERTIFICATE                EXPIRES                  RESIDUAL TIME   CERTIFICATE AUTHORITY   EXTERNALLY MANAGED
admin.conf                 ` + f(adminExpiry) + `   9d              ca                      no
apiserver                  ` + f(year) + `   364d            ca                      no
etcd-server                ` + f(year) + `   364d            etcd-ca                 no

CERTIFICATE AUTHORITY   EXPIRES                  RESIDUAL TIME   EXTERNALLY MANAGED
ca                      ` + f(year.Add(9*365*24*time.Hour)) + `   9y              no
`
}

func certsHost(t *testing.T, adminExpiry time.Time) *scriptHost {
	h := newScriptHost(t)
	h.write("/.expiry", kubeadmExpiry(adminExpiry))
	h.stub("kubeadm", `case " $* " in *" certs check-expiration "*) cat "$CP_TEST_EXPIRY" ;; esac`)
	return h
}

// check-certificates fails naming each certificate that expires within
// certificate_min_days, passes when none does, and its evidence agrees.
func TestCheckCertificatesScriptAndEvidence(t *testing.T) {
	soon := time.Now().Add(9 * 24 * time.Hour)
	for _, c := range []struct {
		days string
		ok   bool
	}{{"30", false}, {"8", true}} {
		h := certsHost(t, soon)
		env := packEnv(t, "kubernetes", map[string]string{"certificate_min_days": c.days})
		env["CP_TEST_EXPIRY"] = h.path("/.expiry")
		res := h.run("kubernetes/scripts/check-certificates.sh", env, "/var/lib/cp/kubernetes")
		if c.ok {
			succeeded(t, res)
			if !strings.Contains(res.stdout, "4 certificates on node-1 valid for more than 8 days") {
				t.Errorf("days %s: stdout %q", c.days, res.stdout)
			}
		} else {
			refused(t, h, res, "certificates expiring within 30 days: admin.conf (expires "+soon.UTC().Format("2006-01-02T15:04Z")+"); run the renew_certificates action")
			if strings.Contains(res.stderr, "apiserver") || strings.Contains(res.stderr, "etcd-server") {
				t.Errorf("a certificate valid for a year is reported: %s", res.stderr)
			}
		}
		report := h.read("/var/lib/cp/kubernetes/certificates-expiry")
		if !strings.HasPrefix(report, "admin.conf ") || strings.Count(report, "\n") != 4 || !strings.Contains(report, "\nca ") {
			t.Errorf("report:\n%s", report)
		}
		for _, job := range []string{"check-certificates", "renew-certificates"} {
			held, got := h.evidence("kubernetes/jobs/"+job+".yaml", "no_certificate_expires_within_threshold", env)
			if held != c.ok {
				t.Errorf("%s evidence with certificate_min_days %s: held %v (%q), want %v", job, c.days, held, got, c.ok)
			}
			if !c.ok && got != "expiring: admin.conf" {
				t.Errorf("%s evidence says %q, want the expiring certificate", job, got)
			}
		}
	}
	// kubeadm failing or listing nothing is no proof.
	h := newScriptHost(t)
	h.stub("kubeadm", `exit 1`)
	env := packEnv(t, "kubernetes", nil)
	refused(t, h, h.run("kubernetes/scripts/check-certificates.sh", env, "/var/lib/cp/kubernetes"), "kubeadm certs check-expiration failed")
	if held, got := h.evidence("kubernetes/jobs/check-certificates.yaml", "no_certificate_expires_within_threshold", env); held {
		t.Errorf("evidence held with kubeadm failing: %q", got)
	}
	h.stub("kubeadm", `echo 'CERTIFICATE   EXPIRES'`)
	refused(t, h, h.run("kubernetes/scripts/check-certificates.sh", env, "/var/lib/cp/kubernetes"), "printed no certificate table")
	if held, got := h.evidence("kubernetes/jobs/check-certificates.yaml", "no_certificate_expires_within_threshold", env); held {
		t.Errorf("evidence held with no certificate listed: %q", got)
	}
	// An unreadable expiry is a failure, never a pass.
	h = newScriptHost(t)
	h.write("/.expiry", strings.Replace(kubeadmExpiry(time.Now().Add(400*24*time.Hour)), "apiserver                  ", "apiserver                  Someday ", 1))
	h.stub("kubeadm", `cat "$CP_TEST_EXPIRY"`)
	env["CP_TEST_EXPIRY"] = h.path("/.expiry")
	refused(t, h, h.run("kubernetes/scripts/check-certificates.sh", env, "/var/lib/cp/kubernetes"), "apiserver (expiry unreadable")
	if held, got := h.evidence("kubernetes/jobs/check-certificates.yaml", "no_certificate_expires_within_threshold", env); held {
		t.Errorf("evidence held with an unreadable expiry: %q", got)
	}
}

func TestCheckCertificatesScriptRefusals(t *testing.T) {
	for _, days := range []string{"0", "1e3", "-5", "30 ", "30$(touch CANARY)", "99999"} {
		t.Run(days, func(t *testing.T) {
			h := certsHost(t, time.Now().Add(400*24*time.Hour))
			env := packEnv(t, "kubernetes", map[string]string{"certificate_min_days": strings.ReplaceAll(days, "CANARY", h.canary)})
			env["CP_TEST_EXPIRY"] = h.path("/.expiry")
			refused(t, h, h.run("kubernetes/scripts/check-certificates.sh", env, "/var/lib/cp/kubernetes"), "certificate_min_days")
			if strings.Contains(h.log(h.calls), "kubeadm") {
				t.Errorf("kubeadm ran before the refusal")
			}
			if held, _ := h.evidence("kubernetes/jobs/check-certificates.yaml", "no_certificate_expires_within_threshold", env); held && days != "99999" {
				t.Errorf("evidence held with certificate_min_days %q", days)
			}
		})
	}
}

// renew-certificates renews, then takes each control-plane static pod
// down for longer than the kubelet's file check and back, waiting for
// the API after each.
func TestRenewCertificatesScript(t *testing.T) {
	h := newScriptHost(t)
	h.stub("sleep", ``)
	h.stub("kubectl", `echo ok`)
	h.stub("kubeadm", ``)
	// Each time sleep runs, the manifest being restarted must be out of
	// the directory.
	h.stub("sleep", `ls "$CP_TEST_MANIFESTS" | tr '\n' ' ' >>"$CP_TEST_VALUES"; echo >>"$CP_TEST_VALUES"`)
	pods := []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"}
	for _, m := range pods {
		h.write("/etc/kubernetes/manifests/"+m+".yaml", "kind: Pod\n")
	}
	env := map[string]string{"CP_TEST_MANIFESTS": h.path("/etc/kubernetes/manifests")}
	succeeded(t, h.run("kubernetes/scripts/renew-certificates.sh", env, "/etc/kubernetes/manifests", "/var/lib/cp/kubernetes", "/etc/kubernetes/admin.conf"))
	calls := h.log(h.calls)
	if !strings.HasPrefix(calls, "kubeadm certs renew all\n") {
		t.Errorf("renew is not first:\n%s", calls)
	}
	if n := strings.Count(calls, "sleep 25\n"); n != 4 {
		t.Errorf("%d restarts, want 4:\n%s", n, calls)
	}
	if n := strings.Count(calls, "get --raw=/readyz"); n != 4 {
		t.Errorf("%d API waits, want one per restart:\n%s", n, calls)
	}
	seen := strings.Split(strings.TrimSpace(h.log(h.values)), "\n")
	for i, m := range pods {
		if i >= len(seen) || strings.Contains(seen[i], m+".yaml") || strings.Count(seen[i], ".yaml") != 3 {
			t.Errorf("restart %d (%s): manifests present %q, want the other three", i, m, seen)
		}
		if !h.exists("/etc/kubernetes/manifests/" + m + ".yaml") {
			t.Errorf("%s.yaml not put back", m)
		}
	}
	// A host without the static pods is not a kubeadm master.
	h = newScriptHost(t)
	h.stub("sleep", ``)
	h.write("/etc/kubernetes/manifests/kube-apiserver.yaml", "kind: Pod\n")
	res := h.run("kubernetes/scripts/renew-certificates.sh", nil, "/etc/kubernetes/manifests", "/var/lib/cp/kubernetes", "/etc/kubernetes/admin.conf")
	refused(t, h, res, "kube-controller-manager.yaml is missing")
}

// cordon, drain and uncordon act on CP_HOST through the admin kubeconfig;
// a drain a PodDisruptionBudget blocks uncordons the node again and fails
// naming the node, the pod and the budget.
func TestCordonDrainUncordonScripts(t *testing.T) {
	h := newScriptHost(t)
	env := map[string]string{"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc", "CP_FIRST_MASTER": "master-1", "CP_CLUSTER": "prod", "CP_PARAM_DRAIN_TIMEOUT": "2m",
		"CP_PARAM_NODE_READY_TIMEOUT": "5m"}
	succeeded(t, h.run("kubernetes/scripts/cordon-node.sh", env))
	h.stub("kubectl", `case " $* " in *"{.spec.unschedulable}"*) printf true ;; esac`)
	succeeded(t, h.run("kubernetes/scripts/drain-cordoned-node.sh", env))
	succeeded(t, h.run("kubernetes/scripts/uncordon-target-node.sh", env))
	want := "kubectl --kubeconfig /kc get node node-1 -o name\nkubectl --kubeconfig /kc cordon node-1\n" +
		"kubectl --kubeconfig /kc get node node-1 -o jsonpath={.spec.unschedulable}\n" +
		"kubectl --kubeconfig /kc drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=2m\n" +
		"kubectl --kubeconfig /kc get node node-1 -o name\nkubectl --kubeconfig /kc uncordon node-1\n" +
		"kubectl --kubeconfig /kc wait --for=condition=Ready node/node-1 --timeout=5m\n"
	if got := h.log(h.calls); got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}

	// Blocked by a PDB until the timeout: the budget is named from the API
	// server (only the one allowing no disruption), the node uncordoned.
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in
  *"{.spec.unschedulable}"*) printf true ;;
  *" drain "*) echo 'evicting pod shop/web-7d4b9c-abcde'
    echo 'error when evicting pods/"web-7d4b9c-abcde" -n "shop" (will retry after 5s): Cannot evict pod as it would violate the pod'"'"'s disruption budget.' >&2
    echo 'error: unable to drain node "node-1" due to error: [error when evicting pods/"web-7d4b9c-abcde" -n "shop": global timeout reached: 2m0s], continuing command...' >&2
    exit 1 ;;
  *" get pdb -n shop "*) printf 'web-pdb 0\nother-pdb 1\n' ;;
esac`)
	res := h.run("kubernetes/scripts/drain-cordoned-node.sh", env)
	refused(t, h, res, "PodDisruptionBudget shop/web-pdb allows no eviction of shop/web-7d4b9c-abcde from node node-1 within drain_timeout 2m")
	if !strings.Contains(res.stderr, "Node node-1 was uncordoned again and takes pods") || strings.Contains(res.stderr, "other-pdb") {
		t.Errorf("drain failure does not say the node was uncordoned, or names a budget that allows disruptions:\n%s", res.stderr)
	}
	if !strings.Contains(h.log(h.calls), "kubectl --kubeconfig /kc uncordon node-1\n") {
		t.Errorf("the failed drain did not uncordon the node:\n%s", h.log(h.calls))
	}
	// Another failure: the timeout, without the PDB wording; an uncordon
	// that fails too says the node stays cordoned and how to uncordon it.
	h.stub("kubectl", `case " $* " in *"{.spec.unschedulable}"*) printf true ;; *" drain "*) echo 'error: timed out' >&2; exit 1 ;; *" uncordon "*) echo 'connection refused' >&2; exit 1 ;; esac`)
	res = h.run("kubernetes/scripts/drain-cordoned-node.sh", env)
	refused(t, h, res, "the drain of node node-1 did not finish within drain_timeout 2m; uncordoning it again failed too (connection refused), so it stays cordoned")
	for _, w := range []string{"kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon node-1", `action = "uncordon", targets = ["node-1"]`, "on master-1 run"} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("drain failure does not say %q:\n%s", w, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "PodDisruptionBudget") {
		t.Errorf("a plain timeout is blamed on a PDB:\n%s", res.stderr)
	}
	// Not cordoned: no drain.
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *"{.spec.unschedulable}"*) printf '' ;; esac`)
	refused(t, h, h.run("kubernetes/scripts/drain-cordoned-node.sh", env), "node node-1 is not cordoned; run cordon-node first")
	if strings.Contains(h.log(h.calls), " drain ") {
		t.Errorf("drained an uncordoned node")
	}
}

func TestCordonDrainUncordonRefusals(t *testing.T) {
	for _, c := range []struct{ script, host, timeout, want string }{
		{"cordon-node.sh", "--all", "", `host "--all" is not a Kubernetes node name`},
		{"drain-cordoned-node.sh", "node-1", "5m;touch CANARY", `drain_timeout "5m;touch`},
		{"drain-cordoned-node.sh", "node-1", "forever", `drain_timeout "forever" is not a duration`},
		{"uncordon-target-node.sh", "Node_1", "", `host "Node_1" is not a Kubernetes node name`},
	} {
		t.Run(c.script+" "+c.host+" "+c.timeout, func(t *testing.T) {
			h := newScriptHost(t)
			env := map[string]string{"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc", "CP_HOST": c.host,
				"CP_PARAM_DRAIN_TIMEOUT": strings.ReplaceAll(c.timeout, "CANARY", h.canary), "CP_PARAM_NODE_READY_TIMEOUT": "5m"}
			refused(t, h, h.run("kubernetes/scripts/"+c.script, env), c.want)
			if calls := h.log(h.calls); calls != "" {
				t.Errorf("kubectl ran before the refusal:\n%s", calls)
			}
		})
	}
}

// generate-certificate-key uploads the certificates and writes the key as
// a secret artifact; a key kubeadm does not print is refused.
func TestGenerateCertificateKeyScript(t *testing.T) {
	h := newScriptHost(t)
	succeeded(t, h.run("kubernetes/scripts/generate-certificate-key.sh", nil, "/var/lib/cp/kubernetes"))
	if got := h.read("/.out/kubeadm.certificate_key"); got != strings.Repeat("1", 64)+"\n" {
		t.Errorf("kubeadm.certificate_key = %q", got)
	}
	if !strings.Contains(h.log(h.calls), "kubeadm init phase upload-certs --upload-certs\n") {
		t.Errorf("calls:\n%s", h.log(h.calls))
	}
	h = newScriptHost(t)
	h.stub("kubeadm", `echo '[upload-certs] Skipping phase. Please see --upload-certs'`)
	refused(t, h, h.run("kubernetes/scripts/generate-certificate-key.sh", nil, "/var/lib/cp/kubernetes"), "printed no certificate key")
	if h.exists("/.out/kubeadm.certificate_key") {
		t.Errorf("a key was written")
	}
}
