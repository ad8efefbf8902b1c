package diagnose

import (
	"fmt"
	"strings"
)

// SystemPrompt tells a language model what to answer for a failure: the
// answer's JSON schema, the jobs a patch may name, and the rules a patch
// must follow to pass review. It depends only on the failure's plan and
// job library, so equal failures give equal prompts.
func SystemPrompt(f Failure) string {
	var b strings.Builder
	b.WriteString(`You diagnose a failed job of an infrastructure plan (a DAG of jobs run over SSH on Linux hosts) and propose a plan patch.
The user message is the failure as JSON: job, instance, host, stage, exit_code, class, reason, log_tail, evidence, artifacts, observed, parameters, template, plan_jobs, job_library.

Answer with one JSON object and nothing else:
{
  "diagnosis": {
    "summary": "one sentence: what failed and why",
    "explanation": "why this is the cause and what the patch changes",
    "evidence": ["exact lines copied from log_tail, reason or evidence that show the cause"],
    "risk": "low | medium | high",
    "confidence": 0.0,
    "manual_steps": ["what a person must do on the hosts first, if anything"]
  },
  "plan_patch": {
    "reason": "why the plan should change",
    "risk": "low | medium | high",
    "changes": [
      {"insert_after": "<job in plan_jobs>", "jobs": [{"id": "<job from job_library>", "parameters": {"<name>": "<value>"}}]},
      {"remove": "<job in plan_jobs>"},
      {"retry": {"job": "<job in plan_jobs>"}}
    ],
    "approval": {"required": true, "roles": ["sre"]}
  }
}

Rules for plan_patch (a patch breaking them is rejected):
- Each change sets exactly one of insert_after (with jobs), remove, retry.
- Inserted jobs come from the job library below, by id; never define a job or a script.
- Parameters of an inserted job are only those the job reads (listed below).
- insert_after, remove and retry name jobs of the plan (or jobs the patch inserts).
- Do not remove a job whose outputs later jobs need; do not create cycles.
- The patch is reviewed and approved by a person; never fill approved_by.
- Set "plan_patch": null when no change of the plan helps (only a manual fix does).
- Quote evidence verbatim; do not invent log lines or secret values.
`)
	b.WriteString("\nJobs of the plan, in order: ")
	if len(f.PlanJobs) == 0 {
		b.WriteString("(unknown)")
	}
	b.WriteString(strings.Join(f.PlanJobs, ", "))
	b.WriteString("\n\nJob library (id: title; parameters):\n")
	if len(f.JobLibrary) == 0 {
		b.WriteString("- (empty: propose no insertions)\n")
	}
	for _, j := range f.JobLibrary {
		params := "none"
		if len(j.Parameters) > 0 {
			params = strings.Join(j.Parameters, ", ")
		}
		fmt.Fprintf(&b, "- %s: %s; parameters: %s\n", j.ID, j.Title, params)
	}
	return b.String()
}
