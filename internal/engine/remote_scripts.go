package engine

// The engine's own commands. Their text is constant: every path and value
// reaches them through the environment, never pasted into the command.

// probeCmd prepares the run directory and reports whether the script is
// already on the host (with the right content) and the marker's content.
const probeCmd = `umask 022
mkdir -p "$CP_INPUT_DIR" "$CP_OUTPUT_DIR" "$CP_WORK_DIR" "$CP_SCRIPTS_DIR" || exit 90
chmod 700 "$CP_RUN_DIR" "$CP_INPUT_DIR"
if [ -n "${SUDO_USER:-}" ]; then chown -R "$SUDO_USER" "$CP_RUN_DIR"; fi
if [ -n "${CP_SCRIPT:-}" ] && [ -f "$CP_SCRIPT" ] && [ "$(sha256sum <"$CP_SCRIPT" | cut -c1-64)" = "$CP_SCRIPT_SHA" ]; then echo script=present; else echo script=absent; fi
if [ -f "$CP_MARKER" ]; then echo marker=present; cat "$CP_MARKER"; else echo marker=absent; fi
`

// runCmd cleans the output directory and runs the script under timeout(1).
const runCmd = `rm -rf "$CP_OUTPUT_DIR" && mkdir -p "$CP_OUTPUT_DIR" "$CP_WORK_DIR" && cd "$CP_WORK_DIR" || exit 92
exec timeout -k 5 "$CP_TIMEOUT" "$CP_SCRIPT" </dev/null
`

// batchCmd runs CP_N items: collect commands (stdout into an output file),
// evidence commands (stdout and stderr reported) and artifact reads. Each
// result is a header line "@cp <kind> <index> <code>" followed by
// base64 lines.
const batchCmd = `t=$(mktemp -d "${TMPDIR:-/tmp}/cp.XXXXXX") || exit 91
i=0
while [ "$i" -lt "$CP_N" ]; do
  eval "k=\${CP_K$i} c=\${CP_C$i:-} f=\${CP_F$i:-}"
  case "$k" in
  col)
    sh -c "$c" >"$f" 2>"$t/e" </dev/null; rc=$?
    printf '@cp col %s %s\n' "$i" "$rc"; base64 -w0 <"$t/e"; echo ;;
  ev)
    sh -c "$c" >"$t/o" 2>"$t/e" </dev/null; rc=$?
    printf '@cp ev %s %s\n' "$i" "$rc"; base64 -w0 <"$t/o"; echo; base64 -w0 <"$t/e"; echo ;;
  art)
    if [ -f "$f" ]; then printf '@cp art %s 0\n' "$i"; base64 -w0 <"$f"; echo
    else printf '@cp art %s 1\n' "$i"; echo; fi ;;
  esac
  i=$((i+1))
done
rm -rf "$t"
`

// commitCmd keeps the produced artifact files (CP_S<i> -> CP_D<i>) and
// writes the marker from stdin, atomically.
const commitCmd = `set -e
umask 077
mkdir -p "$CP_KEEP_DIR" "$CP_MARKERS_DIR"
i=0
while [ "$i" -lt "$CP_N" ]; do
  eval "s=\${CP_S$i} d=\${CP_D$i}"
  cp "$s" "$d.tmp"
  mv -f "$d.tmp" "$d"
  i=$((i+1))
done
cat >"$CP_MARKER.tmp"
mv -f "$CP_MARKER.tmp" "$CP_MARKER"
`
