// Package e2e runs the builtin packs' plans end to end: planner.Compose
// builds the plan from the embedded catalog, operation.Runner runs it with
// the engine over real SSH against simulator test hosts
// (internal/testhosts with Options.Simulator), and the tests check the
// operation status, artifacts, evidence and the simulated cluster.
//
// The tests need root, unshare, chroot and sshd (see internal/testhosts);
// they are skipped without them unless CI=true.
//
//	go test ./internal/e2e/ -v
package e2e
