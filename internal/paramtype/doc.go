// Package paramtype checks values against the typed parameter
// specifications of the pack format (protocol.ParamSpec): numbers with a
// range, booleans, enums, strings with a pattern, CIDRs, IPs, host:port,
// URLs, durations, semantic versions with a range, DNS-1123 names,
// Kubernetes label keys and values, taints, and lists and maps of these.
//
// Every check refuses control characters (newlines included), so a value
// that passed its type cannot add a line to a file or an entry to a list.
// List items cannot hold the list separator (","), map entries neither
// "," nor "=" in their keys. Errors say what form is allowed and quote at
// most MaxQuoted characters of the value (see Quote).
package paramtype
