// Package ssh implements transport.Dialer and transport.Conn over SSH with
// golang.org/x/crypto/ssh.
//
// A Pool keeps one SSH connection per host and runs many sessions over it,
// at most Options.MaxSessions at a time per host (below OpenSSH's default
// MaxSessions of 10). A connection found lost (keepalives unanswered, TCP
// reset) is replaced on the next Dial or Run.
//
// # Shells
//
// A command without stdin of its own (Command.Stdin nil; through sudo only
// when the host has no become password) runs in a shell of the pool: a
// long-lived session running `sh -s` (or `sudo -n -- sh -s`), one per
// command running at once on the host, kept while the pool lives. Each
// command is written to the shell's stdin as one request:
//
//	( export K='V' ...; cd -- DIR; eval 'COMMAND' ) </dev/null
//	printf '%s %d\n' TOKEN "$?"; printf '%s\n' TOKEN >&2
//
// TOKEN is random per command. Output before it on each stream is the
// command's; the number after it on stdout is its exit status. The
// subshell keeps what a command changes (variables, directory, options,
// traps) from the next, and the quoted, evaluated command cannot
// unbalance the shell reading the stream: a command that does not parse
// fails alone with status 2. Values reach the shell inside the encrypted
// stream, never in a command line. The shell ignores TERM sent to its
// process group (`trap : TERM`), so a command timed out that way ends
// alone. A shell whose command was cancelled, or that ended under a
// command, is closed; an ended one fails that command with
// ErrConnectionLost. A process a command leaves running in the background
// stays in the shell's process group, and its output after the command's
// end is dropped until the next command starts, then may mix with that
// command's. Shells hold session slots: when none is free,
// idle shells of another kind are closed to make room.
// Options.SessionPerCommand turns shells off.
//
// A command in a shell costs a subshell on the host; one in a session of
// its own costs an sshd child, the login shell and `sh -c`: on the test
// hosts, about 45 ms of CPU against 2 ms.
//
// # How a command runs in a session of its own
//
// Such a command runs as `sh -c SCRIPT` (through `sudo -n` or
// `sudo -S -p ”` when Command.Become is set), whatever the login shell.
// When Host.LoginShellSh declares the login shell to be /bin/sh, a command
// without Become is sent as SCRIPT itself: sshd already runs it with
// `sh -c`, and one process start per command is saved.
// SCRIPT holds only Command.Cmd and a fixed preamble; values never appear
// in the command line, so they are not visible in the process list:
//
//   - Environment variables are sent on the session's stdin, ahead of the
//     caller's stdin, as `export K='V'` lines between two marker lines
//     carrying a random nonce. When the caller has stdin of its own (or a
//     sudo password precedes the block), the preamble reads them with the
//     shell's `read`, which reads one byte at a time and so never consumes
//     the caller's stdin, and evaluates them; otherwise the block is all
//     of stdin and, stdin being a pipe, the shell sources it in blocks
//     (the marker lines are shell too). Either way it checks that the
//     whole block arrived and forgets its own variables. This does not depend
//     on the server's AcceptEnv, survives sudo's env_reset, and quotes any
//     value (quotes, newlines, $(), backticks) safely.
//   - The sudo password, when one is configured, is the first line of stdin,
//     read by `sudo -S`. When sudo does not ask (NOPASSWD, cached
//     credentials) the preamble skips that line, because it only starts
//     reading at the first marker.
//
// Output is captured up to Command.MaxOutput bytes per stream (first and
// last halves kept, Result.Truncated set) and streamed line by line to
// Command.Stdout/Stderr. Secrets registered with Options.Redactor are masked
// in captured output, in streamed output and in every error. Downloaded
// file content is returned as is (it is the artifact the caller asked for).
//
// # Host keys
//
// Host keys are checked against a known_hosts file or pinned keys; a
// mismatch is refused with an error naming the offered SHA256 fingerprint.
// Unknown hosts are added to known_hosts only in the explicit accept-new
// mode. There is no way to turn verification off.
//
// # Errors
//
// Every error is a *transport.HostError wrapping one of the sentinels of
// package transport: ErrAuth, ErrHostKey, ErrUnreachable, ErrTimeout,
// ErrConnectionLost or ErrCommandFailed; cancellation wraps
// context.Canceled.
package ssh
