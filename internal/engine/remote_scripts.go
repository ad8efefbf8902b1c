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
if [ -f "$CP_MARKER" ]; then echo marker=present; cat "$CP_MARKER"
elif [ -f "$CP_MARKER.pending" ]; then echo marker=present; cat "$CP_MARKER.pending"
else echo marker=absent; fi
`

// runCmd cleans the output directory and runs the script under timeout(1).
const runCmd = `rm -rf "$CP_OUTPUT_DIR" && mkdir -p "$CP_OUTPUT_DIR" "$CP_WORK_DIR" && cd "$CP_WORK_DIR" || exit 92
exec timeout -k 5 "$CP_TIMEOUT" "$CP_SCRIPT" </dev/null
`

// linesFn defines __cp_lines PREFIX FILE: print FILE line by line, each
// line after PREFIX. It uses shell builtins only: on hosts where starting a
// process costs milliseconds, the engine's bookkeeping starts as few as it
// can.
const linesFn = `__cp_lines() {
  while IFS= read -r __cp_l || [ -n "$__cp_l" ]; do printf '%s%s\n' "$1" "$__cp_l"; done <"$2"
}
`

// batchLoop runs CP_N items: collect commands (stdout into an output
// file; skipped unless __cp_rc is 0), evidence commands and artifact
// reads, each in a subshell. It needs __cp_t, a private path prefix for
// captured output. Each result is a header line "@cp <kind> <index>
// <code>" followed by payload lines: '|' stdout, '!' stderr, '=' base64.
const batchLoop = `__cp_i=0
while [ "$__cp_i" -lt "${CP_N:-0}" ]; do
  eval "__cp_k=\${CP_K$__cp_i} __cp_c=\${CP_C$__cp_i:-} __cp_f=\${CP_F$__cp_i:-}"
  case "$__cp_k" in
  col)
    if [ "$__cp_rc" -eq 0 ]; then
      (eval "$__cp_c") >"$__cp_f" 2>"$__cp_t.e" </dev/null; __cp_r=$?
      echo "@cp col $__cp_i $__cp_r"; __cp_lines '!' "$__cp_t.e"
    else echo "@cp skip $__cp_i 0"; fi ;;
  ev)
    (eval "$__cp_c") >"$__cp_t.o" 2>"$__cp_t.e" </dev/null; __cp_r=$?
    echo "@cp ev $__cp_i $__cp_r"; __cp_lines '|' "$__cp_t.o"; __cp_lines '!' "$__cp_t.e" ;;
  art)
    if [ -f "$__cp_f" ]; then echo "@cp art $__cp_i 0"; printf '='; base64 -w0 <"$__cp_f"; echo
    else echo "@cp art $__cp_i 1"; fi ;;
  esac
  __cp_i=$((__cp_i+1))
done
`

// inputsLoop writes the input artifacts (CP_IN_N; CP_INP<i> path,
// CP_INB<i> content) into the instance's private input directory (mode
// 700, made so when it is missing).
const inputsLoop = `__cp_i=0
while [ "$__cp_i" -lt "${CP_IN_N:-0}" ]; do
  eval "__cp_p=\${CP_INP$__cp_i}"
  [ -d "${__cp_p%/*}" ] || (umask 077; mkdir -p "${__cp_p%/*}") || exit 95
  eval "printf '%s' \"\${CP_INB$__cp_i}\"" >"$__cp_p" || exit 95
  unset "CP_INP$__cp_i" "CP_INB$__cp_i"
  __cp_i=$((__cp_i+1))
done
`

// batchCmd runs the batch on its own (verification of a marker, of an
// intervention, or the slow path of a job) in a temporary directory. The
// input artifacts its evidence may read are written first (inputsLoop);
// with CP_DROP_RUN set, the instance's run directory (inputs, outputs,
// scratch) is removed when it ends, however it ends.
const batchCmd = `[ -z "${CP_DROP_RUN:-}" ] || trap 'rm -rf "$CP_RUN_DIR"' EXIT
` + inputsLoop + `__cp_d=$(mktemp -d "${TMPDIR:-/tmp}/cp.XXXXXX") || exit 91
__cp_t=$__cp_d/x
__cp_rc=0
` + linesFn + batchLoop + `rm -rf "$__cp_d"
`

// commitsLoop writes the final markers the engine queued for this host
// (CP_FC_N pairs CP_FCM<i> path, CP_FCB<i> body). The pending marker the
// instance's own session wrote stays beside it (<marker>.pending): the
// engine trusts the newest readable one, so a final marker cut short by a
// crash leaves the pending one in force.
const commitsLoop = `__cp_i=0
while [ "$__cp_i" -lt "${CP_FC_N:-0}" ]; do
  eval "__cp_m=\${CP_FCM$__cp_i} __cp_b=\${CP_FCB$__cp_i}"
  printf '%s\n' "$__cp_b" >"$__cp_m" || exit 93
  unset "CP_FCM$__cp_i" "CP_FCB$__cp_i"
  __cp_i=$((__cp_i+1))
done
echo "@cp commits $__cp_i 0"
`

// flushCmd only writes queued final markers (end of a run).
const flushCmd = commitsLoop

// prepareCmd runs once per host and run, before the first job there: with
// CP_STALE_RUNS set (the run/ directory) it removes what earlier runs left
// there (a run killed mid-job leaves input artifacts behind; one operation
// at a time runs on a host, so nothing there is in use); it makes the directories of every instance the run may start on the host
// (CP_DIRS_PUB and CP_DIRS_PRIV, one path per line; the private ones mode
// 700, their parents 755 as for the step-by-step path's probe), writes the scripts
// that are missing (CP_SN; CP_SP<i> path, CP_SB<i> content) and checks
// every script against its SHA-256 (CP_SUMS, sha256sum -c lines),
// rewriting one that does not match. It prints "@cp prepared <written> 0",
// or "@cp prepared <written> 1" and the failing check lines.
const prepareCmd = `__cp_nl='
'
[ -z "${CP_STALE_RUNS:-}" ] || rm -rf "$CP_STALE_RUNS" || exit 90
set -f
IFS=$__cp_nl
umask 022
mkdir -p $CP_DIRS_PUB $CP_DIRS_PRIV || exit 90
chmod 700 $CP_DIRS_PRIV || exit 90
unset IFS
set +f
umask 022
__cp_w= __cp_n=0
__cp_write() {
  eval "printf '%s' \"\${CP_SB$1}\"" >"$2" || exit 94
  __cp_w="$__cp_w$2$__cp_nl" __cp_n=$((__cp_n+1))
}
__cp_i=0
while [ "$__cp_i" -lt "${CP_SN:-0}" ]; do
  eval "__cp_p=\${CP_SP$__cp_i}"
  [ -f "$__cp_p" ] || __cp_write "$__cp_i" "$__cp_p"
  __cp_i=$((__cp_i+1))
done
__cp_sums() { sha256sum -c --quiet 2>&1 <<__CP_EOF__
$CP_SUMS
__CP_EOF__
}
__cp_bad=
[ "${CP_SN:-0}" -eq 0 ] || __cp_bad=$(__cp_sums)
if [ -n "$__cp_bad" ]; then
  __cp_i=0
  while [ "$__cp_i" -lt "$CP_SN" ]; do
    eval "__cp_p=\${CP_SP$__cp_i}"
    case "$__cp_bad" in *"$__cp_p:"*) __cp_write "$__cp_i" "$__cp_p" ;; esac
    __cp_i=$((__cp_i+1))
  done
  __cp_bad=$(__cp_sums)
fi
if [ -n "$__cp_w" ]; then
  set -f; IFS=$__cp_nl
  chmod 755 $__cp_w || exit 94
  unset IFS; set +f
fi
if [ -n "$__cp_bad" ]; then
  echo "@cp prepared $__cp_n 1"
  printf '%s\n' "$__cp_bad" | sed 's/^/!/'
  exit 0
fi
echo "@cp prepared $__cp_n 0"
`

// fastCmd is the whole of a fresh instance in one session:
//   - queued final markers of earlier instances;
//   - the marker check: an existing marker is printed as two frames,
//     "marker 0" the final one and "marker 1" the pending one (either may
//     be empty), and nothing runs;
//   - input artifacts (CP_IN_N; CP_INP<i> path, CP_INB<i> content);
//   - the script (sourced by the subshell that runs it when
//     CP_SCRIPT_SOURCE is set, see sourceable), its output on stderr and
//     its pid in <run dir>/pid while it runs, for killCmd (a TERM makes the shell report 124, as
//     timeout(1) does, and carry on);
//   - the batch of collect, evidence and artifact reads;
//   - when the script exited 0, the kept artifacts (CP_KN; CP_S<i> ->
//     CP_D<i>) and the pending marker (CP_PENDING, at <marker>.pending).
//
// Whatever way the session ends (the script failed, timed out, or the
// engine's own step failed), it removes the instance's run directory on
// its way out: input artifacts, outputs (read and kept by then) and
// scratch. Only a KILL of the session leaves it, for cleanupCmd or the
// next run's prepareCmd.
//
// The engine judges the evidence and queues the final marker for the next
// command on the host.
const fastCmd = commitsLoop + linesFn + `trap 'rm -rf "$CP_RUN_DIR"' EXIT
if [ -z "${CP_RERUN:-}" ] && { [ -f "$CP_MARKER" ] || [ -f "$CP_MARKER.pending" ]; }; then
  echo "@cp marker 0 0"; [ ! -f "$CP_MARKER" ] || __cp_lines '|' "$CP_MARKER"
  echo "@cp marker 1 0"; [ ! -f "$CP_MARKER.pending" ] || __cp_lines '|' "$CP_MARKER.pending"
  exit 0
fi
if [ ! -d "$CP_WORK_DIR" ] || [ ! -d "$CP_INPUT_DIR" ] || [ ! -d "$CP_OUTPUT_DIR" ]; then
  mkdir -p "$CP_INPUT_DIR" "$CP_OUTPUT_DIR" "$CP_WORK_DIR" && chmod 700 "$CP_RUN_DIR" "$CP_INPUT_DIR" || exit 90
fi
for __cp_f in "$CP_OUTPUT_DIR"/* "$CP_OUTPUT_DIR"/.[!.]* "$CP_OUTPUT_DIR"/..?*; do
  if [ -e "$__cp_f" ] || [ -L "$__cp_f" ]; then
    rm -rf "$CP_OUTPUT_DIR" && mkdir "$CP_OUTPUT_DIR" || exit 92
    break
  fi
done
if [ -n "${CP_SCRIPT:-}" ] && [ ! -f "$CP_SCRIPT" ]; then echo "@cp noscript 0 0"; exit 0; fi
` + inputsLoop + `__cp_rc=0
if [ -n "${CP_SCRIPT:-}" ]; then
  __cp_to=
  trap '__cp_to=1' TERM
  if [ -n "${CP_SCRIPT_SOURCE:-}" ]; then
    (cd "$CP_WORK_DIR" || exit 92; . "$CP_SCRIPT") </dev/null >&2 &
  else
    (cd "$CP_WORK_DIR" && exec "$CP_SCRIPT") </dev/null >&2 &
  fi
  __cp_pid=$!
  echo "$__cp_pid" >"$CP_RUN_DIR/pid"
  wait "$__cp_pid"; __cp_rc=$?
  while [ -n "$__cp_to" ] && kill -0 "$__cp_pid" 2>/dev/null; do wait "$__cp_pid"; __cp_rc=$?; done
  : >"$CP_RUN_DIR/pid"
  trap - TERM
  [ -z "$__cp_to" ] || __cp_rc=124
fi
umask 077
echo "@cp ran 0 $__cp_rc"
__cp_t=$CP_RUN_DIR/.batch
` + batchLoop + `if [ "$__cp_rc" -eq 0 ]; then
  __cp_i=0
  while [ "$__cp_i" -lt "${CP_KN:-0}" ]; do
    eval "__cp_s=\${CP_S$__cp_i} __cp_d=\${CP_D$__cp_i}"
    [ -d "${__cp_d%/*}" ] || mkdir -p "${__cp_d%/*}" || exit 96
    if [ -f "$__cp_s" ]; then cp "$__cp_s" "$__cp_d.tmp" && chmod 600 "$__cp_d.tmp" && mv -f "$__cp_d.tmp" "$__cp_d" || exit 96; fi
    __cp_i=$((__cp_i+1))
  done
  [ -d "$CP_MARKERS_DIR" ] || mkdir -p "$CP_MARKERS_DIR" || exit 97
  printf '%s\n' "$CP_PENDING" >"$CP_MARKER.pending" || exit 97
  echo "@cp kept 0 0"
fi
`

// commitCmd keeps the produced artifact files (CP_S<i> -> CP_D<i>) in a
// private directory, writes the marker from stdin, atomically, and
// removes the instance's run directory: its last command on the host.
const commitCmd = `set -e
umask 077
mkdir -p "$CP_KEEP_DIR" "$CP_MARKERS_DIR"
chmod 700 "$CP_KEEP_DIR" "$CP_MARKERS_DIR"
i=0
while [ "$i" -lt "$CP_N" ]; do
  eval "s=\${CP_S$i} d=\${CP_D$i}"
  cp "$s" "$d.tmp"
  chmod 600 "$d.tmp"
  mv -f "$d.tmp" "$d"
  i=$((i+1))
done
cat >"$CP_MARKER.tmp"
mv -f "$CP_MARKER.tmp" "$CP_MARKER"
rm -rf "$CP_RUN_DIR"
`

// cleanupCmd removes an instance's run directory (CP_RUN_DIR) when no
// command of its own did: after a failed step-by-step attempt, or a
// session the timeout killed.
const cleanupCmd = `rm -rf "$CP_RUN_DIR"
`

// killCmd signals (CP_SIGNAL: TERM, then KILL; dash's kill takes no "--"
// before a negative pid) the process group of the
// script a fastCmd session is running, found through <run dir>/pid: the
// engine's timeout of the job, without a timeout(1) process per job. The
// session's shell survives TERM and reports exit 124; KILL ends it too.
const killCmd = `__cp_p=
read -r __cp_p <"$CP_RUN_DIR/pid" 2>/dev/null
case "$__cp_p" in ''|*[!0-9]*) exit 0 ;; esac
read -r __cp_s <"/proc/$__cp_p/stat" 2>/dev/null || exit 0
__cp_s=${__cp_s##*) }
set -- $__cp_s
case "${3:-}" in ''|*[!0-9]*|0|1) exit 0 ;; esac
kill "-$CP_SIGNAL" "-$3" 2>/dev/null
exit 0
`

// dropPendingCmd removes an instance's pending marker (CP_MARKER.pending).
const dropPendingCmd = `rm -f "$CP_MARKER.pending"
`
