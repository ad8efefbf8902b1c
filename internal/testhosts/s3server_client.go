package testhosts

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// s3cmdPath is Debian's s3cmd, a real S3 client independent of the aws
// CLI the packs use.
const s3cmdPath = "/usr/bin/s3cmd"

// S3cmd runs the real s3cmd against the server with the identity's keys
// from a root-only configuration file (never its command line) and
// returns its combined output, e.g. S3cmd(ctx, "get", "s3://b/k", "-").
func (s *S3Server) S3cmd(ctx context.Context, args ...string) (string, error) {
	if _, err := os.Stat(s3cmdPath); err != nil {
		return "", fmt.Errorf("s3cmd: %w (apt-get install -y s3cmd)", err)
	}
	u, err := url.Parse(s.Endpoint)
	if err != nil {
		return "", fmt.Errorf("s3cmd: endpoint %q: %w", s.Endpoint, err)
	}
	cfg := filepath.Join(s.Dir, "s3cmd.cfg")
	body := strings.Join([]string{"[default]", "access_key = " + s.AccessKey, "secret_key = " + s.SecretKey,
		"host_base = " + u.Host, "host_bucket = " + u.Host, "use_https = False", "signature_v2 = False",
		"bucket_location = " + s.Region, ""}, "\n")
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		return "", fmt.Errorf("s3cmd: %w", err)
	}
	cmd := exec.CommandContext(ctx, s3cmdPath, append([]string{"-c", cfg, "--no-progress"}, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.Dir, "LC_ALL=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("s3cmd %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
