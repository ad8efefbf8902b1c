// Command terraform-provider-cp serves the cp provider to Terraform and
// OpenTofu.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/parentwatch"
	"github.com/intentops/terraform-provider-cp/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// address is the provider's source address used in debug mode; set at build
// time with -ldflags "-X main.address=HOST/intentops/cp" to match the host
// your configuration installs it from.
var address = "intentops.dev/intentops/cp"

// stopGrace bounds how long the provider, orphaned, waits for its
// operations to stop their jobs and release their host locks.
const stopGrace = time.Minute

func main() {
	if len(os.Args) > 1 && os.Args[1] == "pack" {
		os.Exit(packMain(os.Args[2:]))
	}
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	if !debug {
		stopWhenOrphaned()
	}
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

// stopWhenOrphaned stops the provider's operations when the Terraform or
// OpenTofu process that started it is gone (killed with -9, say): their
// jobs on the hosts are sent TERM and their host locks released, then the
// process exits. A write to the dead CLI's pipes must not kill the process
// first: with SIGPIPE notified, such writes fail with EPIPE instead (a
// notified signal, unlike an ignored one, is not inherited by children).
func stopWhenOrphaned() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go parentwatch.Watcher{}.Watch(context.Background(), func() {
		life := operation.Process()
		life.Abort()
		life.Wait(stopGrace)
		os.Exit(1)
	})
}
