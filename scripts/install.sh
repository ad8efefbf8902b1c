#!/usr/bin/env bash
# `make install`: builds the provider as version VERSION into a filesystem
# mirror that `tofu init` and `terraform init` install it from without a
# registry, and writes the CLI configuration that points at that mirror.
#   scripts/install.sh VERSION MIRROR_DIR CLI_CONFIG
# The mirror uses the unpacked layout
#   MIRROR_DIR/HOST/intentops/cp/VERSION/OS_ARCH/terraform-provider-cp_vVERSION
# once for each host that the source address "intentops/cp" stands for:
# OpenTofu's default registry host and Terraform's. MIRROR_DIR defaults
# (in GNUmakefile) to ~/.terraform.d/plugins, a directory both CLIs also
# search on their own when the CLI configuration has no
# provider_installation block.
set -euo pipefail
if (($# != 3)); then
	echo "usage: $0 VERSION MIRROR_DIR CLI_CONFIG" >&2
	exit 2
fi
version=$1 mirror=$2 cli_config=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# A release version: init selects no prerelease without an exact constraint.
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "install: version \"$version\" is not MAJOR.MINOR.PATCH; set INSTALL_VERSION=0.1.0 (init skips prereleases unless pinned)" >&2
	exit 1
fi
if [[ $mirror != /* ]]; then
	echo "install: mirror directory \"$mirror\" is not absolute; set PLUGIN_MIRROR=/abs/path" >&2
	exit 1
fi
# HCL strings: a path with a quote, backslash, $ or newline would need
# escaping in the CLI configuration; refuse it instead.
if [[ $mirror == *[\"\\\$]* || $mirror == *$'\n'* ]]; then
	echo "install: mirror directory \"$mirror\" holds a quote, backslash, \$ or newline; choose a plainer path" >&2
	exit 1
fi

target="$(go env GOOS)_$(go env GOARCH)"
hosts=(registry.opentofu.org registry.terraform.io)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
exe="terraform-provider-cp_v$version"
(cd "$root" && go build -ldflags "-X main.version=$version" -o "$build/$exe" .)
for host in "${hosts[@]}"; do
	dir="$mirror/$host/intentops/cp/$version/$target"
	mkdir -p "$dir"
	install -m 0755 "$build/$exe" "$dir/$exe"
	echo "installed $dir/$exe"
done

mkdir -p "$(dirname "$cli_config")"
cat >"$cli_config" <<EOT
# Written by make install: the cp provider from the filesystem mirror,
# every other provider from its registry.
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["intentops/cp"]
  }
  direct {
    exclude = ["intentops/cp"]
  }
}
EOT
echo "wrote $cli_config; use it with: export TF_CLI_CONFIG_FILE=$cli_config (or copy it to ~/.tofurc / ~/.terraformrc)"
