// Package engine runs a protocol.Plan against hosts through a
// transport.Dialer. It is plain Go: a Terraform provider, a CLI or an agent
// drives it the same way, through Config, Run and Result.
//
// # Scheduling
//
// An instance starts as soon as its own Needs are finished (done, satisfied
// or fixed) — per instance, never per stage — within three limits:
// Config.Parallelism (all instances), Config.PerHost (instances on one host)
// and the job's Controls.Serial (instances of one job, for rolling work such
// as one master at a time). Among ready instances the one earlier in
// plan.Instances starts first; instance ids are unique, so the order is
// total and a run with Parallelism 1 is fully deterministic. When an
// instance fails, its dependents are skipped with the reason ("skipped:
// needs join-workers[worker-3] which failed") and independent branches keep
// running; with Config.FailFast no new instance starts after the first
// failure (running ones finish). A Serial job's rolling stops once more
// of its instances failed than Controls.MaxFailures allows (0: at the
// first): its instances not started yet are skipped ("not run: rolling
// job upgrade-node stopped at its first failed host ..."), with their
// dependents; running ones finish.
//
// An instance without a host (a job that expands once) runs on the first
// host of the intent with role master, or, when the intent has no master,
// on the first host of the intent. Gate instances run nowhere.
// An instance with RunOn (a job's scope.run_on) executes on that host
// while CP_HOST and the host's attributes stay its own host's: its
// script, evidence, input artifacts, marker and kept artifacts are on
// RunOn, its slot counts there, and its own host is not contacted for it.
//
// # Running a job on a host
//
// Every transport call takes a context. The engine's own files live under
// Config.StateDir (default /var/lib/cp):
//
//	scripts/<sha256>.sh                 scripts, content-addressed, shipped once
//	run/<operation>/<instance>/in       input artifacts, one file per id (CP_INPUT_DIR)
//	run/<operation>/<instance>/out      produced artifacts (CP_OUTPUT_DIR)
//	run/<operation>/<instance>/work     scratch (CP_WORK_DIR)
//	markers/<sha256 of key>.json        completion marker per idempotency key
//	markers/<sha256 of key>.json.pending  the marker written with the run, before the evidence was judged
//	artifacts/<sha256 of key>/<file>    produced artifacts kept for recovery
//
// A run directory lives only as long as its instance: the command that
// ends the instance removes it, whatever the outcome (the one-session
// command on its way out, success, failure or timeout; the step-by-step
// path with its commit or one cleanup command; a verification of a
// satisfied marker, which writes the inputs its evidence reads, when it
// ends). A session killed on timeout is cleaned up by one more command;
// what a killed provider leaves, the first preparation of the host in the
// next run removes (all of run/: one operation at a time runs on a host,
// and nothing of the new run has started there). What stays, markers and
// kept artifacts, is written by the bookkeeping's user (root through sudo
// with StateBecome) in mode 0700 directories as mode 0600 files.
//
// Parameters and artifacts reach the script only through the environment
// and files of the protocol's script environment contract; the command text
// the engine sends is constant and refers to them as "$CP_...". The script
// runs under the job's timeout (Controls.Timeout, else Config.DefaultTimeout),
// through sudo when Controls.Become.
//
// # Commands per instance
//
// Starting a process over SSH costs milliseconds (more on a busy host), so
// the engine sends few commands and its shell text uses builtins where it
// can. Each host is prepared once per run, in one command: the run
// directories of its instances are made, and its scripts are written when
// missing and all checked against their SHA-256. A fresh instance whose
// script, evidence and the engine's bookkeeping run as the same user
// (Controls.Become equal to Config.StateBecome, and no evidence with another
// Become) then costs one command: the marker check (an existing marker is
// returned and nothing runs), the input artifacts, the script (its output
// on stderr, streamed into the log tail), the collect, evidence and
// artifact reads, and, when the script exited 0, the kept artifacts and a
// pending marker (Marker.Unconfirmed, in its own file). The engine judges the evidence; the
// final marker, with the evidence, travels with the next command to the
// host, or with one command per host at the end of the run. Other
// instances run step by step: probe, ship, inputs, script, evidence batch
// per sudo setting, commit.
//
// # Success, markers and resume
//
// After the script, the job's collect commands and evidence run; the job
// succeeds only when every evidence holds and every declared artifact exists.
// A success writes a marker for the instance's idempotency key (or, when the
// instance has none, its id) and keeps the artifact files beside it. A
// pending marker is written as soon as the script exits 0, so a run killed
// between the script and the final marker does not redo the work: the next
// run trusts the newest readable of the two markers only after checking
// its evidence, and runs the job again when it does not hold. Before
// running, an instance whose marker exists, whose evidence still holds and
// whose kept artifacts are present and unexpired is satisfied and not run;
// a marker whose evidence no longer holds is drift and the job runs again.
// So running the same plan again after any interruption resumes it.
//
// JobInstance.Retry (a plan patch's "retry job Y") does not force a
// satisfied instance to run: a failed instance never wrote a marker, so it
// runs again on the next run anyway; Retry only documents why it is there.
//
// # Retries
//
// An attempt is retried, up to the job's RetryPolicy.MaxAttempts, only when
// it failed for a retryable reason: a transport error for which
// transport.Retryable holds, a timeout, or an exit code listed in
// TransientExitCodes. The wait before attempt n+1 is Backoff × 2^(n-1).
// Failing evidence and other exit codes are not retried.
//
// # Gates and interventions
//
// A gate instance finishes only when RunInput.Decisions holds a decision for
// it that passes protocol.Decision.Check; otherwise it waits and its
// dependents are skipped, and the operation ends in the gate type's
// WaitStatus. An intervention (a manual fix of a failed instance) is
// verified before scheduling: the job's evidence, named evidence ids and
// verification jobs run on the target; when they hold, the instance counts
// as fixed, a marker is written and its dependents proceed.
//
// # One operation per host at a time
//
// With Config.Lock set (the provider always sets it), Run locks, before
// any job starts, every host the plan runs on: the hosts of its job
// instances, which for any cluster operation include the cluster's first
// master, where instances without a host run, so two operations on one
// cluster always meet there. Hosts are locked one by one in sorted name
// order, so two runs wanting overlapping hosts never wait for each other
// in a cycle. The lock is a root-owned file (through sudo when
// Config.StateBecome) made atomically on the host:
//
//	lock/held      token, acquired, renewed, expires (the host's clock), holder (LockHolder as JSON)
//	lock/stale     the last lock taken over after its lease expired
//	lock/takeover  a directory held while an expired lock is replaced
//
// The holder is the operation id, a token drawn per run (operation ids are
// stable across re-applies, tokens are not), the resource, the plan, the
// actor, and the OS user, machine and pid of the process. The lease
// (LockConfig.Lease, default 30 s) is renewed every LockConfig.Renew
// (default a third of it) by a goroutine over the run's own connections,
// beside the jobs. A lock whose lease expired is taken over by the next
// run (a holder killed with -9 loses it that long after its last
// renewal); a run whose renewal finds another token stops at once. The
// locks are released when the run ends, however it ends. A run that
// finds a host locked waits up to LockConfig.Wait (and its context) and
// then fails with a *LockedError naming the holder, its age and the time
// since its last renewal; the locks it already took are released. A host
// that cannot be reached while the locks are taken is not locked, and no
// job runs on it in that run, even if it comes back.
//
// # Stopping
//
// Cancelling the run's context gives running commands Config.GracePeriod;
// closing Config.Abort (the caller went away), or losing the lock, stops
// without grace. Then, on a locked run, the process group of every job of
// the operation still running on a held host is sent TERM, and KILL 5 s
// later: on the one-command path the group of the script whose pid file
// fastCmd keeps in the run directory (newer than the lock), on the
// step-by-step path the group timeout(1) leads, found by the run
// directory in its environment. Then the commands are cut off and the
// locks released.
//
// A time limit on the run's context (a *TimeoutError cause, or a bare
// deadline) stops the run like an abort: without grace, the running jobs
// are sent TERM at once. The operation ends Interrupted with a timed_out
// timeline entry, the stopped instances are Interrupted (not failed),
// and Result.TimedOut names the limit, those instances and what the stop
// did on each host. Running the plan again resumes it.
//
// # Secrets
//
// Secret artifact values are registered with the Redactor as soon as they
// are known; every event, journal line, log tail and error passes through
// it. Results carry secrets only as a reference (host:path), a fingerprint
// and an expiry; Result.SecretValue hands the value to the caller that must
// keep it (private state).
package engine
