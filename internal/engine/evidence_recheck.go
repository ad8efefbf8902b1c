package engine

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Evidence recheck: what a refresh runs. The recorded evidence checks of
// completed instances run again on their hosts, without running any job,
// batched into one command per host (recheckCmd). Each check runs with
// its own timeout and prints its framed result ("@cp ev <i> <code>"), so
// one slow or hung check does not hide the others.

// RecheckInput says which completed instances of a plan have their
// evidence checked again.
type RecheckInput struct {
	Plan *protocol.Plan
	// Instances maps the id of each completed instance to check to the
	// ids of its evidence to check (the evidence recorded for it); an
	// empty list checks every evidence of its job.
	Instances map[string][]string
	// Artifacts are those the state keeps. A check whose job requires an
	// artifact reads it where it is kept, when that is on the host the
	// check runs on (a secret by reference), or from the recorded value
	// (a public or internal one). A check that would need a secret kept
	// on another host is not run (see RecheckResult.Skipped): a refresh
	// moves no secret between hosts.
	Artifacts []protocol.Artifact
	// StateDir is the engine's directory on hosts (default /var/lib/cp).
	StateDir string
	// StateBecome says the engine's files on hosts are read through sudo
	// (the login user is not root): a host whose checks read a kept
	// artifact then runs its batch through sudo, which copies the file
	// into the batch's private directory for the login user, as a run
	// gives its inputs.
	StateBecome bool
	// Timeout bounds each check (default 30s).
	Timeout time.Duration
	// Parallelism bounds the hosts checked at once (default 16).
	Parallelism int
	// Redactor masks secret values in what is observed; one is created
	// when nil.
	Redactor *transport.Redactor
	// Clock stamps the results (default time.Now).
	Clock func() time.Time
}

// RecheckResult is what a recheck observed.
type RecheckResult struct {
	// Evidence holds one result per check run, with its instance,
	// sorted by instance and evidence id.
	Evidence []InstanceEvidence
	// Skipped lists the instances whose checks did not run, and why
	// (host unreachable, an input secret kept on another host).
	Skipped []RecheckSkip
	// Commands counts the commands run per host (one, or none when the
	// host could not be reached).
	Commands map[string]int
}

// RecheckSkip is an instance whose evidence was not checked.
type RecheckSkip struct {
	Instance, Host, Reason string
}

// Failed returns the failing results by instance id.
func (r RecheckResult) Failed() map[string][]InstanceEvidence {
	out := map[string][]InstanceEvidence{}
	for _, e := range r.Evidence {
		if !e.Passed {
			out[e.Instance] = append(out[e.Instance], e)
		}
	}
	return out
}

// recheckCmd runs CP_N evidence checks, each in a subshell with its own
// environment (CP_VN<i> entries: CP_VK<i>_<j> name, CP_VV<i>_<j> value;
// CP_VF<i>_<j> set when the value is the content of an input file to
// write and point the name at, CP_VC<i>_<j> when it is the path of a
// kept file to copy and point the name at the copy), under timeout(1)
// with CP_T<i> seconds; a
// check with CP_U<i> set runs as the login user when the batch runs
// through sudo. Names are checked by the engine ([A-Z_][A-Z0-9_]*) before
// they are sent; values are only ever expanded, never evaluated; the
// checks' command text is the pack's. The private directory, which may
// hold copies of kept secrets, is removed however the batch ends (also
// when the session is cut: HUP, INT, TERM); the traps are set before the
// directory is made, so a signal right after mktemp does not leave it.
const recheckCmd = `__cp_d=
trap '[ -z "$__cp_d" ] || rm -rf "$__cp_d"' EXIT
trap '[ -z "$__cp_d" ] || rm -rf "$__cp_d"; exit 129' HUP INT TERM
__cp_d=$(mktemp -d "${TMPDIR:-/tmp}/cp.XXXXXX") || exit 91
chmod 700 "$__cp_d"
__cp_t=$__cp_d/x
` + linesFn + `__cp_i=0
while [ "$__cp_i" -lt "${CP_N:-0}" ]; do
  (
    eval "__cp_c=\${CP_C$__cp_i} __cp_to=\${CP_T$__cp_i} __cp_vn=\${CP_VN$__cp_i:-0} __cp_u=\${CP_U$__cp_i:-}"
    __cp_j=0
    while [ "$__cp_j" -lt "$__cp_vn" ]; do
      eval "__cp_n=\${CP_VK${__cp_i}_$__cp_j} __cp_v=\${CP_VV${__cp_i}_$__cp_j} __cp_f=\${CP_VF${__cp_i}_$__cp_j:-} __cp_cp=\${CP_VC${__cp_i}_$__cp_j:-}"
      if [ -n "$__cp_f" ]; then
        printf '%s' "$__cp_v" >"$__cp_d/in.$__cp_i.$__cp_j" || exit 95
        __cp_v=$__cp_d/in.$__cp_i.$__cp_j
      elif [ -n "$__cp_cp" ]; then
        (umask 077; cat -- "$__cp_v" >"$__cp_d/in.$__cp_i.$__cp_j") || exit 95
        __cp_v=$__cp_d/in.$__cp_i.$__cp_j
      fi
      export "$__cp_n=$__cp_v"
      __cp_j=$((__cp_j+1))
    done
    if [ -n "$__cp_u" ] && [ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ] && [ "$SUDO_UID" != 0 ]; then
      chown -R "$SUDO_UID" "$__cp_d"
      exec setpriv --reuid="$SUDO_UID" --regid="$SUDO_GID" --init-groups -- timeout -k 2 "$__cp_to" sh -c "$__cp_c"
    fi
    exec timeout -k 2 "$__cp_to" sh -c "$__cp_c"
  ) >"$__cp_t.o" 2>"$__cp_t.e" </dev/null
  __cp_r=$?
  echo "@cp ev $__cp_i $__cp_r"; __cp_lines '|' "$__cp_t.o"; __cp_lines '!' "$__cp_t.e"
  __cp_i=$((__cp_i+1))
done
rm -rf "$__cp_d"
`

// recheckTimedOut is timeout(1)'s exit code when the check ran out of time.
const recheckTimedOut = 124

// recheckHostBudget bounds how long the checks of one host may take
// together (beyond one check's timeout): past it, the host's checks are
// reported as not checked.
const recheckHostBudget = 5 * time.Minute

var envNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// recheckItem is one check to run on a host.
type recheckItem struct {
	in *protocol.JobInstance
	// host is the instance's host as the run chose it (chooseHost), which
	// its evidence is recorded under.
	host string
	ev   protocol.Evidence
	env  map[string]string
	// files are the env names whose value is an input file's content;
	// kept those whose value is the path of a kept file to copy.
	files, kept map[string]bool
	// withheld: the job reads or writes a secret, whose value a refresh
	// does not know and cannot redact, so what the check prints is not
	// recorded.
	withheld bool
}

// withheldOutput is what a refresh records as observed of a check whose
// job handles a secret.
const withheldOutput = "(output withheld: the job handles a secret)"

// handlesSecret says whether a job requires a secret input (by the kept
// artifacts) or produces a secret artifact.
func handlesSecret(job *protocol.Job, arts []protocol.Artifact) bool {
	for _, a := range job.Outputs.Artifacts {
		if a.Sensitivity == protocol.SensitivitySecret {
			return true
		}
	}
	for _, ref := range job.Inputs.Requires.Artifacts {
		for _, a := range arts {
			if a.ID == ref.ID && (a.Sensitivity == protocol.SensitivitySecret || a.Ref != "") {
				return true
			}
		}
	}
	return false
}

// Recheck runs the evidence checks of the completed instances again, one
// command per host, and judges them as the engine does when it decides
// whether a marker still stands. It runs no job and writes nothing but
// its temporary directory. An error is about the input (an unknown
// instance); unreachable hosts are in Skipped.
func Recheck(ctx context.Context, d transport.Dialer, in RecheckInput) (RecheckResult, error) {
	if in.StateDir == "" {
		in.StateDir = "/var/lib/cp"
	}
	if in.Timeout <= 0 {
		in.Timeout = 30 * time.Second
	}
	if in.Parallelism <= 0 {
		in.Parallelism = 16
	}
	if in.Redactor == nil {
		in.Redactor = &transport.Redactor{}
	}
	if in.Clock == nil {
		in.Clock = time.Now
	}
	out := RecheckResult{Commands: map[string]int{}}
	byHost, skipped, err := recheckItems(in)
	if err != nil {
		return out, err
	}
	out.Skipped = skipped
	hosts := protocol.SortedKeys(byHost)
	type hostOut struct {
		evidence []InstanceEvidence
		skipped  []RecheckSkip
		ran      bool
	}
	results := make([]hostOut, len(hosts))
	sem := make(chan struct{}, in.Parallelism)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ev, ran, err := recheckHost(ctx, d, in, h, byHost[h])
			results[i] = hostOut{evidence: ev, ran: ran}
			if err != nil {
				msg := in.Redactor.String(err.Error())
				for _, it := range byHost[h] {
					results[i].skipped = append(results[i].skipped, RecheckSkip{Instance: it.in.ID, Host: h, Reason: msg})
				}
			}
		}()
	}
	wg.Wait()
	for i, h := range hosts {
		if results[i].ran {
			out.Commands[h]++
		}
		out.Evidence = append(out.Evidence, results[i].evidence...)
		out.Skipped = append(out.Skipped, results[i].skipped...)
	}
	sort.SliceStable(out.Evidence, func(i, j int) bool {
		a, b := out.Evidence[i], out.Evidence[j]
		if a.Instance != b.Instance {
			return a.Instance < b.Instance
		}
		return a.ID < b.ID
	})
	out.Skipped = dedupSkips(out.Skipped)
	return out, nil
}

// recheckItems groups the checks by the host they run on.
func recheckItems(in RecheckInput) (map[string][]recheckItem, []RecheckSkip, error) {
	if in.Plan == nil {
		return nil, nil, fmt.Errorf("evidence recheck: no plan")
	}
	byID := map[string]*protocol.JobInstance{}
	for i := range in.Plan.Instances {
		byID[in.Plan.Instances[i].ID] = in.Plan.Instances[i]
	}
	lay := layout{root: in.StateDir}
	hostEnvs := newHostEnvs(in.Plan)
	byHost := map[string][]recheckItem{}
	var skipped []RecheckSkip
	for _, id := range protocol.SortedKeys(in.Instances) {
		ji := byID[id]
		if ji == nil {
			return nil, nil, fmt.Errorf("evidence recheck: instance %s is not in plan %s", id, in.Plan.Display())
		}
		if ji.Job == nil {
			continue // a gate: nothing to check
		}
		// The host the run chose (chooseHost): a cluster-scoped instance
		// has none of its own and ran on the first master.
		host, err := chooseHost(in.Plan, ji)
		if err != nil {
			skipped = append(skipped, RecheckSkip{Instance: id, Reason: err.Error()})
			continue
		}
		exec := host
		if ji.RunOn != "" {
			exec = ji.RunOn
		}
		env, files, kept, why := recheckEnv(in, lay, ji, host, exec, hostEnvs.of(host))
		if why != "" {
			skipped = append(skipped, RecheckSkip{Instance: id, Host: exec, Reason: why})
			continue
		}
		want := map[string]bool{}
		for _, e := range in.Instances[id] {
			want[e] = true
		}
		withheld := handlesSecret(ji.Job, in.Artifacts)
		for _, ev := range ji.Job.Outputs.Evidence {
			if len(want) > 0 && !want[ev.ID] {
				continue
			}
			byHost[exec] = append(byHost[exec], recheckItem{in: ji, host: host, ev: ev, env: env, files: files, kept: kept, withheld: withheld})
		}
	}
	return byHost, skipped, nil
}

// hostEnvs gives hostEnv, with the bound cluster, for each host of a
// plan, computing what every host shares (the list of all hosts) once:
// hostEnv itself builds that list at each call, which a refresh of
// thousands of hosts cannot afford.
type hostEnvs struct {
	shared map[string]string
	hosts  map[string]protocol.Host
	memo   map[string]map[string]string
}

func newHostEnvs(p *protocol.Plan) *hostEnvs {
	e := &hostEnvs{shared: hostEnv(&p.Intent, ""), hosts: map[string]protocol.Host{}, memo: map[string]map[string]string{}}
	if c := boundCluster(p); c != "" {
		e.shared[protocol.EnvBoundCluster] = c
	}
	for _, h := range p.Intent.Hosts {
		if _, ok := e.hosts[h.Name]; !ok {
			e.hosts[h.Name] = h
		}
	}
	return e
}

// of is hostEnv(intent, host) with the bound cluster.
func (e *hostEnvs) of(host string) map[string]string {
	if env, ok := e.memo[host]; ok {
		return env
	}
	env := maps.Clone(e.shared)
	if h, ok := e.hosts[host]; ok {
		env[protocol.EnvHostAddress] = h.Address
		env[protocol.EnvHostRole] = h.Role
		env[protocol.EnvHostLabels] = encodeLabels(h.Labels)
		env[protocol.EnvHostTaints] = encodeTaints(h.Taints)
	}
	e.memo[host] = env
	return env
}

// recheckEnv is the environment a check of ji sees: the instance's
// (host, parameters, he: what the intent says of its host and the bound
// cluster), its marker and
// kept-artifact directory (CP_OUTPUT_DIR too, where its own declared
// artifacts are kept), and its input artifacts. A reason is returned when
// an input cannot be given on exec.
func recheckEnv(in RecheckInput, lay layout, ji *protocol.JobInstance, host, exec string, he map[string]string) (map[string]string, map[string]bool, map[string]bool, string) {
	key := instanceKey(ji)
	env := map[string]string{
		protocol.EnvHost:      host,
		protocol.EnvOperation: "refresh",
		protocol.EnvInstance:  ji.ID,
		protocol.EnvOutputDir: lay.keepDir(key),
		"CP_MARKERS_DIR":      lay.markersDir(),
		"CP_MARKER":           lay.marker(key),
		"CP_KEEP_DIR":         lay.keepDir(key),
	}
	for k, v := range ji.Params {
		env[protocol.EnvParamPrefix+protocol.EnvName(k)] = v
	}
	for k, v := range he {
		env[k] = v
	}
	files, kept := map[string]bool{}, map[string]bool{}
	for _, ref := range ji.Job.Inputs.Requires.Artifacts {
		name := protocol.EnvArtifactPrefix + protocol.EnvName(ref.ID)
		a, ok := pickRecheckArtifact(in.Artifacts, ref.ID, exec)
		switch {
		case ok && a.Ref != "":
			_, p, _ := protocol.SplitRef(a.Ref)
			env[name] = p
			kept[name] = true
		case ok:
			env[name] = a.Value
			files[name] = true
		case ref.Optional:
		default:
			return nil, nil, nil, fmt.Sprintf("its input artifact %s is not kept on host %s", ref.ID, exec)
		}
	}
	return env, files, kept, ""
}

// pickRecheckArtifact finds artifact id: a secret kept on host, else a
// recorded value.
func pickRecheckArtifact(arts []protocol.Artifact, id, host string) (protocol.Artifact, bool) {
	var value *protocol.Artifact
	for i, a := range arts {
		if a.ID != id {
			continue
		}
		if h, _, ok := protocol.SplitRef(a.Ref); ok && h == host {
			return a, true
		}
		if a.Ref == "" && a.Sensitivity != protocol.SensitivitySecret && value == nil {
			value = &arts[i]
		}
	}
	if value != nil {
		return *value, true
	}
	return protocol.Artifact{}, false
}

// recheckHost runs the checks of one host in one command and judges them.
// ran says whether the command was run.
func recheckHost(ctx context.Context, d transport.Dialer, in RecheckInput, host string, items []recheckItem) ([]InstanceEvidence, bool, error) {
	env, become, err := recheckBatchEnv(items, in.Timeout, in.StateBecome)
	if err != nil {
		return nil, false, fmt.Errorf("check evidence on host %s: %w", host, err)
	}
	for _, it := range items {
		for name := range it.files {
			if it.env[name] != "" {
				in.Redactor.Add(it.env[name])
			}
		}
	}
	conn, err := d.Dial(ctx, host)
	if err != nil {
		return nil, false, fmt.Errorf("check evidence on host %s: %w", host, err)
	}
	defer conn.Close()
	// Every check may take its whole timeout, and timeout(1) gives it
	// two seconds more after TERM; a host's batch gets at most
	// recheckHostBudget more than one check's timeout.
	budget := min(time.Duration(len(items))*(in.Timeout+3*time.Second), recheckHostBudget) + in.Timeout + 10*time.Second
	cctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, err := conn.Run(cctx, transport.Command{Cmd: recheckCmd, Env: env, Become: become, RawStdout: true})
	if err != nil {
		return nil, true, fmt.Errorf("check evidence on host %s: %w", host, err)
	}
	if res.ExitCode != 0 {
		return nil, true, fmt.Errorf("check evidence on host %s: exited %d: %s", host, res.ExitCode, lastLine(string(res.Stderr)))
	}
	batch := make([]batchItem, len(items))
	for i := range batch {
		batch[i] = batchItem{kind: "ev"}
	}
	outs, err := parseBatch(res.Stdout, batch)
	if err != nil {
		return nil, true, fmt.Errorf("check evidence on host %s: %w", host, err)
	}
	now := in.Clock()
	evs := make([]InstanceEvidence, 0, len(items))
	for i, it := range items {
		o := outs[i]
		var er protocol.EvidenceResult
		if o.code == recheckTimedOut {
			er = protocol.EvidenceResult{ID: it.ev.ID, Host: it.host, ExitCode: o.code, CheckedAt: now,
				Observed: "no result", Detail: fmt.Sprintf("timed out after %s", in.Timeout)}
		} else {
			er = judge(it.ev, it.host, o.stdout, o.stderr, o.code, now)
		}
		if it.withheld {
			er.Observed, er.Detail = withheldOutput, ""
			if !er.Passed {
				er.Detail = fmt.Sprintf("failed with exit code %d; %s", o.code, withheldOutput)
			}
		}
		evs = append(evs, InstanceEvidence{Instance: it.in.ID, EvidenceResult: redactEvidence(in.Redactor, er)})
	}
	return evs, true, nil
}

// recheckBatchEnv encodes the items for recheckCmd: what every item's
// environment shares goes once at the top, the rest per item. The batch
// runs through sudo when any check needs it, or reads a kept file with
// stateBecome; the other checks then run as the login user.
func recheckBatchEnv(items []recheckItem, timeout time.Duration, stateBecome bool) (map[string]string, bool, error) {
	become := false
	for _, it := range items {
		become = become || it.ev.Become || (stateBecome && len(it.kept) > 0)
	}
	shared := map[string]string{}
	if len(items) > 0 {
		for k, v := range items[0].env {
			if items[0].files[k] || items[0].kept[k] {
				continue
			}
			same := true
			for _, it := range items[1:] {
				if w, ok := it.env[k]; !ok || w != v || it.files[k] || it.kept[k] {
					same = false
					break
				}
			}
			if same {
				shared[k] = v
			}
		}
	}
	env := map[string]string{}
	for k, v := range shared {
		env[k] = v
	}
	secs := strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)
	env["CP_N"] = strconv.Itoa(len(items))
	for i, it := range items {
		n := strconv.Itoa(i)
		env["CP_C"+n] = it.ev.Command
		env["CP_T"+n] = secs
		if become && !it.ev.Become {
			env["CP_U"+n] = "1"
		}
		j := 0
		for _, k := range protocol.SortedKeys(it.env) {
			if _, ok := shared[k]; ok {
				continue
			}
			if !envNameRE.MatchString(k) {
				return nil, false, fmt.Errorf("environment name %q of instance %s is not [A-Z_][A-Z0-9_]*", k, it.in.ID)
			}
			m := n + "_" + strconv.Itoa(j)
			env["CP_VK"+m], env["CP_VV"+m] = k, it.env[k]
			if it.files[k] {
				env["CP_VF"+m] = "1"
			}
			if it.kept[k] {
				env["CP_VC"+m] = "1"
			}
			j++
		}
		env["CP_VN"+n] = strconv.Itoa(j)
	}
	for k := range shared {
		if !envNameRE.MatchString(k) {
			return nil, false, fmt.Errorf("environment name %q is not [A-Z_][A-Z0-9_]*", k)
		}
	}
	return env, become, nil
}

func dedupSkips(s []RecheckSkip) []RecheckSkip {
	seen := map[string]bool{}
	var out []RecheckSkip
	for _, k := range s {
		if seen[k.Instance] {
			continue
		}
		seen[k.Instance] = true
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Instance < out[j].Instance })
	return out
}
