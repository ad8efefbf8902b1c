// Package planner turns an intent, a scenario pack's plan template, the
// capability decisions, the resource's existing state, customizations and
// approved plan patches into a DAG plan (protocol.Plan), and renders it.
//
// Edges come from contracts: a job instance depends on the instances that
// provide what it requires, matched per scope (a node-scoped requirement on
// host H is met by the provider on H). A required input that nothing
// provides is planned for: the producing job is inserted from the pack's job
// library, and the plan says why. Capability create decisions become nested
// sub-operations; gate decisions and template gates become gate nodes.
package planner
