// Package intent checks the inputs of an intent before anything runs:
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
