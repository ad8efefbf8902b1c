// Package intent is the intent core in plain Go, which the provider (or a
// CLI, an MCP server, a controller) drives:
//
//   - Spec is an intent every resource converts its model into, and
//     Spec.Request / Compose / ComposeAll plan its changes; the pack's
//     template kinds (create, day2, destroy) decide what applies to each
//     (customizations, plan patches by PatchesFor, capabilities already
//     bound by Bound) and which action a destroy runs (DestroyAction);
//   - ClusterChanges computes a cluster's operations from its prior and
//     next intent (remove_node, add_node, relabel, upgrade, in that
//     order), with the parts OpID names each operation by, so a failed
//     apply resumes the same operation;
//   - Handle is what a resource hands to others (Encode, DecodeHandle);
//   - Exports, Provided and Candidates are the capabilities a resource
//     offers, from its pack's provides with {placeholders} substituted.
//
// It also checks the inputs of an intent before anything runs:
// hosts (names, addresses, ports, labels, taints, roles), cluster
// settings (name, version against the pack's range, CIDRs and their
// overlaps, registry mirrors), pack references (version, action,
// destroy action) and provider settings (policy keys, actor roles,
// diagnosis, referenced environment variables).
//
// Every check is plain Go and needs no SSH: each problem names the
// attribute path of the value at fault (Path, written the way Terraform
// prints it: masters[1].name, workers[0].labels["x"]) and a detail that
// says the allowed form and what to do, quoting at most
// paramtype.MaxQuoted characters of the value. Callers (the provider)
// convert the paths to their own type.
package intent
