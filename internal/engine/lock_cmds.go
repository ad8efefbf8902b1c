package engine

// The host lock's commands (see lock.go and doc.go, "One operation per
// host at a time"). Like the engine's other commands their text is
// constant; the lock directory, the holder's token, its identity line and
// the lease reach them through the environment. Every number read back
// from a file or from date(1) is checked to be digits before it is
// compared or added.
//
// The lock file <lock dir>/held is, line by line:
//
//	cp-lock 1
//	token <random, per run>
//	acquired <host's Unix time when taken>
//	renewed <host's Unix time of the last renewal>
//	expires <renewed + lease>
//	holder <one JSON line: LockHolder>
//
// Times are the host's own clock, so holders on machines whose clocks
// disagree still agree on when a lease has expired.

// lockReadFn defines __cp_lread: it sets __cp_tok, __cp_acq and __cp_exp
// from the lock file (empty or 0 when missing or not digits).
const lockReadFn = `__cp_lread() {
  __cp_tok= __cp_acq=0 __cp_exp=0
  [ -f "$CP_LOCK_DIR/held" ] || return 1
  while IFS=' ' read -r __cp_k __cp_v; do
    case "$__cp_k" in
    token) __cp_tok=$__cp_v ;;
    acquired) __cp_acq=$__cp_v ;;
    expires) __cp_exp=$__cp_v ;;
    esac
  done <"$CP_LOCK_DIR/held"
  case "$__cp_acq" in ''|*[!0-9]*) __cp_acq=0 ;; esac
  case "$__cp_exp" in ''|*[!0-9]*) __cp_exp=0 ;; esac
  return 0
}
`

// lockNowFn sets __cp_now to the host's Unix time and checks the lease.
const lockNowFn = `__cp_now=$(date +%s) || exit 91
case "$__cp_now" in ''|*[!0-9]*) echo "date +%s printed '$__cp_now'" >&2; exit 91 ;; esac
case "${CP_LOCK_LEASE:-}" in ''|*[!0-9]*) echo "CP_LOCK_LEASE is not a number of seconds" >&2; exit 91 ;; esac
`

// lockTakeCmd takes the lock: the new lock file is written whole under a
// private name and hard-linked to "held", which fails when "held" exists
// (link(2) is atomic), so two takers never both succeed and nobody reads a
// half-written file. A lock whose lease expired (a holder that was killed)
// is taken over under the "takeover" directory (mkdir is atomic), after
// reading it again, and is kept as "stale" for the record; a takeover
// directory older than a minute is one whose taker died and is removed.
// Directories above the lock directory that it makes (StateDir on a fresh
// host) are 755, as the engine's other commands make them, so jobs that do
// not run as root still reach their run directories.
// The first output line is "@lock taken|takenover|busy <host now>"; for
// busy and takenover the lock file (the holder, or the stale holder)
// follows, each line after '|'.
const lockTakeCmd = linesFn + lockReadFn + `if [ ! -d "$CP_LOCK_DIR" ]; then (umask 022; mkdir -p "$CP_LOCK_DIR") || exit 90; fi
chmod 700 "$CP_LOCK_DIR" || exit 90
umask 077
` + lockNowFn + `__cp_t=$CP_LOCK_DIR/.new.$$
printf 'cp-lock 1\ntoken %s\nacquired %s\nrenewed %s\nexpires %s\nholder %s\n' "$CP_LOCK_TOKEN" "$__cp_now" "$__cp_now" "$((__cp_now + CP_LOCK_LEASE))" "$CP_LOCK_HOLDER" >"$__cp_t" || exit 92
if ln "$__cp_t" "$CP_LOCK_DIR/held" 2>/dev/null; then rm -f "$__cp_t"; echo "@lock taken $__cp_now"; exit 0; fi
if ! __cp_lread && ln "$__cp_t" "$CP_LOCK_DIR/held" 2>/dev/null; then rm -f "$__cp_t"; echo "@lock taken $__cp_now"; exit 0; fi
if [ "$__cp_now" -ge "$__cp_exp" ]; then
  if mkdir "$CP_LOCK_DIR/takeover" 2>/dev/null; then
    __cp_old=$__cp_tok
    if __cp_lread && [ "$__cp_tok" = "$__cp_old" ] && [ "$__cp_now" -ge "$__cp_exp" ]; then
      mv -f "$CP_LOCK_DIR/held" "$CP_LOCK_DIR/stale"
    fi
    if ln "$__cp_t" "$CP_LOCK_DIR/held" 2>/dev/null; then
      rmdir "$CP_LOCK_DIR/takeover"; rm -f "$__cp_t"
      echo "@lock takenover $__cp_now"; __cp_lines '|' "$CP_LOCK_DIR/stale"
      exit 0
    fi
    rmdir "$CP_LOCK_DIR/takeover"
  else
    __cp_m=$(stat -c %Y "$CP_LOCK_DIR/takeover" 2>/dev/null) || __cp_m=
    case "$__cp_m" in ''|*[!0-9]*) ;; *) [ "$((__cp_now - __cp_m))" -le 60 ] || rmdir "$CP_LOCK_DIR/takeover" 2>/dev/null ;; esac
  fi
fi
rm -f "$__cp_t"
echo "@lock busy $__cp_now"
[ ! -f "$CP_LOCK_DIR/held" ] || __cp_lines '|' "$CP_LOCK_DIR/held"
`

// lockRenewCmd extends the lease of the lock this run holds (its token),
// keeping the acquired time: the new file replaces "held" with mv, which
// is atomic. When the lock file holds another token the lock was lost
// (the lease expired and another run took it over): "@lock lost <now>"
// and that holder's file follow. Else "@lock renewed <now>".
const lockRenewCmd = linesFn + lockReadFn + `umask 077
` + lockNowFn + `if ! __cp_lread || [ "$__cp_tok" != "$CP_LOCK_TOKEN" ]; then
  echo "@lock lost $__cp_now"; [ ! -f "$CP_LOCK_DIR/held" ] || __cp_lines '|' "$CP_LOCK_DIR/held"
  exit 0
fi
__cp_t=$CP_LOCK_DIR/.renew.$$
printf 'cp-lock 1\ntoken %s\nacquired %s\nrenewed %s\nexpires %s\nholder %s\n' "$CP_LOCK_TOKEN" "$__cp_acq" "$__cp_now" "$((__cp_now + CP_LOCK_LEASE))" "$CP_LOCK_HOLDER" >"$__cp_t" || exit 92
mv -f "$__cp_t" "$CP_LOCK_DIR/held" || exit 92
echo "@lock renewed $__cp_now"
`

// lockReleaseCmd removes the lock when it is this run's (its token):
// "@lock released" or "@lock notheld".
const lockReleaseCmd = lockReadFn + `if __cp_lread && [ "$__cp_tok" = "$CP_LOCK_TOKEN" ]; then
  rm -f "$CP_LOCK_DIR/held" || exit 92
  echo "@lock released 0"
else
  echo "@lock notheld 0"
fi
`

// stopJobsCmd signals (CP_SIGNAL: TERM, later KILL) the running jobs of
// the operation whose run directories are under CP_OP_RUN_DIR, and prints
// "@group <pgid>" for each process group it signalled:
//   - one-command path: the process group of each script whose pid file,
//     written by fastCmd while the script runs, is not older than
//     CP_SINCE, the host time at which this run took its lock (a pid left
//     by an earlier run is not trusted). The session shell and fastCmd's
//     subshell survive TERM (they trap it) and report the script's end;
//     KILL ends them too;
//   - step-by-step path: every process group led by a process whose
//     environment names such a run directory: timeout(1) of runCmd, which
//     leads its own group and passes TERM on to the script.
//
// It reads other users' /proc/PID/environ, so it runs as root
// (StateBecome) to reach jobs of every user.
const stopJobsCmd = `__cp_done=' '
case "${CP_SINCE:-}" in ''|*[!0-9]*) echo "CP_SINCE is not a Unix time" >&2; exit 91 ;; esac
__cp_pgrp() {
  __cp_g=
  read -r __cp_s <"/proc/$1/stat" 2>/dev/null || return 1
  __cp_s=${__cp_s##*) }
  set -- $__cp_s
  case "${3:-}" in ''|*[!0-9]*|0|1) return 1 ;; esac
  __cp_g=$3
}
__cp_signal() {
  case "$__cp_done" in *" $1 "*) return 0 ;; esac
  if kill "-$CP_SIGNAL" "-$1" 2>/dev/null; then echo "@group $1"; __cp_done="$__cp_done$1 "; fi
}
for __cp_f in "$CP_OP_RUN_DIR"/*/pid; do
  [ -s "$__cp_f" ] || continue
  __cp_m=$(stat -c %Y "$__cp_f" 2>/dev/null) || continue
  case "$__cp_m" in ''|*[!0-9]*) continue ;; esac
  [ "$__cp_m" -ge "$CP_SINCE" ] || continue
  __cp_p=
  read -r __cp_p <"$__cp_f" 2>/dev/null
  case "$__cp_p" in ''|*[!0-9]*) continue ;; esac
  __cp_pgrp "$__cp_p" || continue
  __cp_signal "$__cp_g"
done
grep -lsFz -e "CP_RUN_DIR=$CP_OP_RUN_DIR/" /proc/[0-9]*/environ 2>/dev/null | while IFS= read -r __cp_e; do
  __cp_p=${__cp_e#/proc/}; __cp_p=${__cp_p%/environ}
  case "$__cp_p" in ''|*[!0-9]*) continue ;; esac
  __cp_pgrp "$__cp_p" || continue
  [ "$__cp_g" = "$__cp_p" ] || continue
  __cp_signal "$__cp_g"
done
echo "@stop"
`
