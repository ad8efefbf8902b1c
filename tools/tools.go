//go:build tools

// Package tools pins the command-line tools the project builds for itself:
// the OpenTofu CLI used by acceptance tests and the demo, and tfplugindocs.
package tools

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
	_ "github.com/opentofu/opentofu/cmd/tofu"
)
