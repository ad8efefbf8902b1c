// Package diagnose explains a failed job instance and proposes a PlanPatch
// that would get the operation past it (seed 001 §14, seed 000 §4; design
// principle 6: "AI proposes, the plan disposes").
//
// The roles of seed 001 §14 are kept apart:
//
//   - Failure is the input: the failed instance, its exit code and failure
//     class, the redacted log tail, evidence results, artifact references
//     (never secret values), observed-state notes, the plan's template and
//     jobs, and the pack's job library. It is plain JSON; external analyzers
//     receive exactly this.
//   - Analyzer reads a Failure and returns a Diagnosis: what went wrong, the
//     log lines and observations that show it, the risk of the remedy and a
//     confidence. The built-in rules (BuiltinRules, Rules.Diagnose) analyze
//     in process; CommandAnalyzer (an executable speaking JSON on stdin and
//     stdout) and HTTPAnalyzer (an OpenAI-compatible chat-completions
//     endpoint) implement the Analyzer interface.
//   - Planner turns a diagnosis into a protocol.PlanPatch. Each built-in rule
//     carries its own patch builder (RulePlanner proposes it for a rule's
//     diagnosis); an external analyzer answers with its patch next to its
//     diagnosis. A rule names only jobs of the failure's job library: when
//     its preferred job is missing, already ran in the plan, or has no place
//     to go, it falls back to manual steps and a retry of the failed job.
//   - Reviewer validates a proposed patch exactly like a customization: it
//     checks the patch's shape and that every job it names is in the pack's
//     job library, then calls back into the planner (Options.Review), which
//     rebuilds the plan with the patch marked approved. Unknown jobs,
//     broken contracts (removing a job whose outputs are still required),
//     cycles and malformed patches are rejected with the planner's reason.
//   - There is no executor here. Nothing runs because of a diagnosis: the
//     provider renders the patch as HCL (PatchHCL, Explain) in the apply
//     error, a person pastes it into the resource's plan_patches, fills
//     approval.approved_by in review, and the next apply runs the approved
//     plan.
//
// Diagnose ties the roles together. It asks the configured external
// analyzers first, in order, and falls back to the built-in rules when an
// analyzer fails, times out, answers something that is not the expected
// JSON, or proposes a patch the reviewer rejects; each fallback is a warning,
// never a panic. Patches from analyzers always require approval, carry the
// author "analyzer:<name>" and never arrive approved.
//
// Secrets never leave the process: the failure sent to an external analyzer
// is redacted field by field with the transport.Redactor, marshalled, and the
// resulting bytes are redacted once more.
package diagnose
