//go:build tools

// Package tools pins SeaweedFS, whose `weed server -s3` the tests start on
// loopback as a real S3-compatible server for bindings to existing object
// storage.
package tools

import _ "github.com/seaweedfs/seaweedfs/weed"
