package ssh

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// uploadScript writes stdin to a temporary file beside f.Path (created
// readable by its owner only), sets mode and owner, then renames it over
// f.Path, so readers see the old file or the new one, never a partial one.
// The parent directory is created when missing.
func uploadScript(f transport.File) string {
	mode := f.Mode.Perm()
	if mode == 0 {
		mode = 0o644
	}
	var b strings.Builder
	fmt.Fprintf(&b, `set -e
p=%s
d=$(dirname -- "$p")
mkdir -p -- "$d"
umask 077
t=$(mktemp "$d/.cp-upload.XXXXXX")
trap 'rm -f -- "$t"' EXIT
cat > "$t"
chmod %04o "$t"
`, quote(f.Path), uint32(mode))
	if f.Owner != "" {
		fmt.Fprintf(&b, "chown -- %s \"$t\"\n", quote(f.Owner))
	}
	b.WriteString("mv -f -- \"$t\" \"$p\"\ntrap - EXIT\n")
	return b.String()
}

// stderrCap bounds the error output kept from file commands.
const stderrCap = 16 << 10

// Upload writes f atomically; see transport.Conn.
func (c *conn) Upload(ctx context.Context, f transport.File) error {
	if f.Path == "" {
		return c.p.hostErr(c.Host(), "upload", fmt.Errorf("%w: empty path", transport.ErrCommandFailed))
	}
	res, err := c.run(ctx, transport.Command{
		Cmd:       uploadScript(f),
		Stdin:     bytes.NewReader(f.Content),
		Become:    f.Become,
		MaxOutput: stderrCap,
	}, true)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("%w: exit code %d: %s", transport.ErrCommandFailed, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	if err != nil {
		return c.p.hostErr(c.Host(), "upload", fmt.Errorf("%s: %w", f.Path, err))
	}
	return nil
}

// Download returns the content of path; see transport.Conn. The content is
// not redacted. Files larger than Options.MaxDownload are refused.
func (c *conn) Download(ctx context.Context, path string, become bool) ([]byte, error) {
	max := c.p.opts.MaxDownload
	res, err := c.run(ctx, transport.Command{
		Cmd:       "cat -- " + quote(path),
		Become:    become,
		MaxOutput: max + 1, // one more byte tells a file over the limit
	}, false)
	switch {
	case err != nil:
	case res.ExitCode != 0:
		err = fmt.Errorf("%w: exit code %d: %s", transport.ErrCommandFailed, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	case len(res.Stdout) > max || res.Truncated:
		err = fmt.Errorf("%w: the file is larger than the download limit of %d bytes", transport.ErrCommandFailed, max)
	}
	if err != nil {
		return nil, c.p.hostErr(c.Host(), "download", fmt.Errorf("%s: %w", path, err))
	}
	return res.Stdout, nil
}
