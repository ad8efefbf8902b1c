//go:build pprof

package main

import (
	"log"
	"net/http"
	_ "net/http/pprof" // registers the profiles CP_PPROF serves
	"os"
)

// Built with `-tags pprof`, the provider serves net/http/pprof on the
// address in CP_PPROF (e.g. 127.0.0.1:6060) while it runs, so that a
// large plan can be profiled through OpenTofu:
//
//	go build -tags pprof -o DIR/terraform-provider-cp .
//	CP_PPROF=127.0.0.1:6060 tofu plan ...   (with a dev override to DIR)
//	curl -o cpu.pb.gz 'http://127.0.0.1:6060/debug/pprof/profile?seconds=20'
//
// OpenTofu starts the provider more than once (schema, validate, plan);
// a later process binds the address once the earlier one has exited.
// Without the tag none of this is compiled in.
func init() {
	addr := os.Getenv("CP_PPROF")
	if addr == "" {
		return
	}
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			log.Printf("CP_PPROF %s: %v", addr, err)
		}
	}()
}
