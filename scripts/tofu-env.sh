#!/usr/bin/env bash
# Sourced by the other scripts: a CLI config whose dev override points
# OpenTofu at the provider built into bin/, so no registry is contacted.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/bin"
cli_config="$bin/dev-override.tfrc"
mkdir -p "$bin"
cat >"$cli_config" <<EOT
provider_installation {
  dev_overrides {
    "intentops/cp" = "$bin"
  }
  direct {}
}
EOT
export TF_CLI_CONFIG_FILE="$cli_config"
export TF_IN_AUTOMATION=1
tofu="$bin/tofu"
