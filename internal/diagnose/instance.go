package diagnose

import "github.com/intentops/terraform-provider-cp/internal/engine"

// InstanceFromResult takes what a Failure needs from the engine's result
// of a failed instance; the exit code is the last attempt's.
func InstanceFromResult(r engine.InstanceResult) Instance {
	in := Instance{ID: r.ID, Job: r.Job, Stage: r.Stage, Host: r.Host, Class: r.Class, Reason: r.Reason,
		LogTail: r.LogTail, Evidence: r.Evidence}
	if n := len(r.Attempts); n > 0 {
		in.ExitCode = r.Attempts[n-1].ExitCode
	}
	return in
}
