// Package protocol holds the object model of the control plane: intents,
// scenario packs, plan templates, jobs and their contracts, capabilities,
// artifacts, evidence, gates, plan patches, interventions, customizations,
// plans and operations with their lifecycle.
//
// It is plain Go with no dependency outside the standard library, so the
// planner, the engine, a CLI or an agent interface can all share it.
package protocol
