// Package paramtype checks values against the typed parameter
// specifications of the pack format (protocol.ParamSpec): integers and
// numbers with a range, booleans, enums, strings with a pattern, CIDRs
// with prefix-length bounds, IPs, host:port, URLs, durations, semantic
// versions with a range, DNS-1123 names, Kubernetes label keys and values,
// taints, images, quantities, cron schedules, and lists and maps of these.
//
// Check checks a value; ValidateSpec checks a spec itself (the pack loader
// reports its problems with their lines); Inherit gives the spec an
// untyped job declaration stands for (the pack's).
//
// Every check refuses control characters (newlines included) and invalid
// UTF-8, so a value that passed its type cannot add a line to a file or an
// entry to a newline-separated list. List items cannot hold the list
// separator (","), map keys are label keys (no "," or "="). Numbers have
// no leading zeros, so bash never reads them as octal. Errors say what
// form is allowed and quote at most MaxQuoted characters of the value (see
// Quote).
package paramtype
