// Package capability resolves a capability requirement against the provider
// policy of an environment and the candidates that could satisfy it.
//
// The outcome is a Decision: bind an existing provider, create one through a
// sub-operation of a pack that provides it, or stop at a gate (provider
// selection when several candidates match, approval when the policy asks for
// it). Every candidate considered carries the reasons it was accepted or
// rejected, so the plan can say why it chose what it chose.
package capability
