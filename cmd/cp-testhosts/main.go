// Command cp-testhosts starts and stops local test hosts (real sshd on
// loopback addresses, each in its own overlay filesystem) for the demo and
// make targets:
//
//	cp-testhosts up -n 3 -names master-1,worker-1,worker-2 -dir .demo/hosts [-simulator]
//	cp-testhosts down -dir .demo/hosts
//
// up prints the hosts as JSON on stdout (and its progress on stderr) and
// leaves them running in a background process; it refuses to replace hosts
// already running in -dir unless given -force. down stops that process,
// cleans up and removes the directory.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "serve":
		err = serve(os.Args[2:])
	case "down":
		err = down(os.Args[2:])
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cp-testhosts %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

const usage = `usage:
  cp-testhosts up [-n N] [-names a,b,...] [-dir DIR] [-base-addr 127.0.0.2] [-port 22] [-simulator] [-simulator-binary PATH] [-cluster NAME] [-force]
  cp-testhosts down [-dir DIR]
`
