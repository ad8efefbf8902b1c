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
//
// Needs stay linear in the hosts. A cluster-scoped input that several
// instances provide and several consume is one barrier node while the
// graph is reduced; a barrier of more than 16 needs and 16 dependents (a
// full mesh: every node's WireGuard configuration needs every node's key)
// is then written as group needs, "generate-wireguard-key[*]"
// (protocol.GroupNeed), which the engine links to every instance of the
// group; a smaller one is spliced into its dependents' needs. Either way
// the instances waited for, and the DAG digest, are the same.
package planner
