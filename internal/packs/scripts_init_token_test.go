package packs

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInitControlPlaneLogHoldsNoToken: kubeadm init prints the bootstrap
// token it creates ("[bootstrap-token] Using token" and the join
// commands) unless --skip-token-print; the job's output (its log) must
// hold neither that token nor the one created for joining, which only
// the artifact holds.
func TestInitControlPlaneLogHoldsNoToken(t *testing.T) {
	const script = "kubernetes/scripts/init-control-plane.sh"
	const initToken, joinToken = "q7x2mz.k3v9w1p8d4r6t0ya", "abcdef.0123456789abcdef"
	h, env := initHost(t, false)
	flag := filepath.Join(h.root, ".api-up")
	h.stub("kubeadm", `case " $* " in
  *" upload-certs "*) printf '1%.0s' $(seq 64); echo ;;
  *" init "*) : >"`+flag+`"; mkdir -p "`+h.root+`/etc/kubernetes"; echo 'apiVersion: v1' >"`+h.root+`/etc/kubernetes/admin.conf"
    tok=`+initToken+`
    case " $* " in *" --skip-token-print "*) tok='<value withheld>' ;; *) echo "[bootstrap-token] Using token: $tok" ;; esac
    echo "kubeadm join 10.0.0.10:6443 --token $tok \\"
    echo "	--discovery-token-ca-cert-hash sha256:$(printf '0%.0s' $(seq 64))" ;;
  *" token create "*) echo "kubeadm join 10.0.0.10:6443 --token `+joinToken+` --discovery-token-ca-cert-hash sha256:$(printf '0%.0s' $(seq 64))" ;;
esac`)
	res := h.run(script, env, retryPaths...)
	succeeded(t, res)
	for _, tok := range []string{initToken, joinToken} {
		secret := tok[strings.Index(tok, ".")+1:]
		if strings.Contains(res.stdout+res.stderr, secret) {
			t.Errorf("the job's log holds the token secret of %s:\n%s%s", tok, res.stdout, res.stderr)
		}
	}
	if got := h.read("/.out/kubeadm.join_token"); got != joinToken+"\n" {
		t.Errorf("kubeadm.join_token = %q, want the created token", got)
	}
}
