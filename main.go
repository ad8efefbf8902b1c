// Command terraform-provider-cp serves the cp provider to Terraform and
// OpenTofu.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/intentops/terraform-provider-cp/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// address is the provider's source address used in debug mode; set at build
// time with -ldflags "-X main.address=HOST/intentops/cp" to match the host
// your configuration installs it from.
var address = "intentops.dev/intentops/cp"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "pack" {
		os.Exit(packMain(os.Args[2:]))
	}
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
