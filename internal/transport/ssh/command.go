package ssh

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// quote single-quotes s for a POSIX shell: every byte stands for itself.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteOneLine quotes s like quote, but writes newlines as "$__cp_nl"
// (set by the preamble) so the result is one line.
func quoteOneLine(s string) string {
	return strings.ReplaceAll(quote(s), "\n", `'"$__cp_nl"'`)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// prepared is a command ready for a session: the command line and the
// session's stdin.
type prepared struct {
	line  string
	stdin io.Reader // nil: no input
}

// prepare builds the session command line and stdin for cmd (see the
// package documentation for the protocol). becomePassword is the host's
// sudo password, used only when cmd.Become is set; loginSh says the login
// shell is /bin/sh (Host.LoginShellSh).
func prepare(cmd transport.Command, becomePassword string, loginSh bool) (prepared, error) {
	keys, err := envKeys(cmd.Env)
	if err != nil {
		return prepared{}, err
	}
	sendPassword := cmd.Become && becomePassword != ""
	needPreamble := len(keys) > 0 || sendPassword

	var script strings.Builder
	var input bytes.Buffer
	if needPreamble {
		nonce, err := newNonce()
		if err != nil {
			return prepared{}, err
		}
		begin, end := ": cp-env-begin-"+nonce, "__cp_ok=1 # cp-env-end-"+nonce
		// The markers are random per command, so no value can end the
		// block early by accident; still make sure.
		for _, k := range keys {
			if strings.Contains(cmd.Env[k], nonce) {
				return prepared{}, fmt.Errorf("environment variable %s contains the marker; try again", k)
			}
		}
		// One statement per line, each evaluated on its own: newlines
		// inside values are written as "$__cp_nl", so no statement spans
		// lines and reading stays linear in the size of the block.
		readLoop := fmt.Sprintf(`while IFS= read -r __cp_l; do [ "$__cp_l" = %s ] && break; done
while IFS= read -r __cp_l; do [ "$__cp_l" = %s ] && { __cp_ok=1; break; }; eval "$__cp_l"; done`, quote(begin), quote(end))
		script.WriteString("__cp_ok=\n__cp_nl='\n'\n")
		if cmd.Stdin == nil && !sendPassword {
			// The block is all of stdin: when stdin is a pipe the shell
			// sources it, reading in blocks rather than a byte per read(2)
			// as `read` must. Its lines are shell: the begin marker is a
			// no-op and the end marker sets __cp_ok.
			fmt.Fprintf(&script, "if [ -p /dev/stdin ]; then . /dev/stdin; else\n%s\nfi\n", readLoop)
		} else {
			script.WriteString(readLoop + "\n")
		}
		script.WriteString(`[ -n "$__cp_ok" ] || { echo 'cp: the environment block did not arrive on stdin' >&2; exit 125; }
unset __cp_l __cp_ok __cp_nl
`)
		if sendPassword {
			input.WriteString(becomePassword)
			input.WriteByte('\n')
		}
		input.WriteString(begin)
		input.WriteByte('\n')
		for _, k := range keys {
			fmt.Fprintf(&input, "export %s=%s\n", k, quoteOneLine(cmd.Env[k]))
		}
		input.WriteString(end)
		input.WriteByte('\n')
	}
	if cmd.Dir != "" {
		fmt.Fprintf(&script, "cd -- %s || exit 1\n", quote(cmd.Dir))
	}
	script.WriteString(cmd.Cmd)

	var line string
	switch {
	case !cmd.Become && loginSh:
		line = script.String()
	case !cmd.Become:
		line = "exec sh -c " + quote(script.String())
	case sendPassword:
		line = "exec sudo -S -p '' -- sh -c " + quote(script.String())
	default:
		line = "exec sudo -n -- sh -c " + quote(script.String())
	}

	var stdin io.Reader
	switch {
	case input.Len() > 0 && cmd.Stdin != nil:
		stdin = io.MultiReader(&input, cmd.Stdin)
	case input.Len() > 0:
		stdin = &input
	case cmd.Stdin != nil:
		stdin = cmd.Stdin
	}
	return prepared{line: line, stdin: stdin}, nil
}

// envKeys checks the names and values of env and returns the names,
// sorted.
func envKeys(env map[string]string) ([]string, error) {
	keys := make([]string, 0, len(env))
	for k, v := range env {
		if !envName.MatchString(k) {
			return nil, fmt.Errorf("environment variable name %q is not a valid shell name", k)
		}
		if strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("environment variable %s contains a NUL byte", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

func newNonce() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a marker: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// summary is a short form of a command line for error messages.
func summary(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i] + " ..."
	}
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return cmd
}
