#!/usr/bin/env bash
# Renders docs/ from templates/, examples/ and the provider schema with
# tfplugindocs. With --check, renders into a scratch copy and fails when
# the committed docs differ.
set -euo pipefail
. "$(dirname "$0")/tofu-env.sh"
cd "$root"
check=0
[[ "${1:-}" == "--check" ]] && check=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The schema as OpenTofu sees it, keyed by the provider's short name.
mkdir -p "$work/schema"
cat >"$work/schema/main.tf" <<'EOT'
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}
EOT
(cd "$work/schema" && "$tofu" providers schema -json) >"$work/schema.raw.json"
sed -E 's#"[^"]*/intentops/cp"#"cp"#' "$work/schema.raw.json" >"$work/schema.json"

target="$root"
if ((check)); then
	target="$work/tree"
	mkdir -p "$target"
	cp -r templates examples "$target/"
	[[ -d docs ]] && cp -r docs "$target/"
fi
(cd "$target" && "$bin/tfplugindocs" generate \
	--provider-name cp \
	--rendered-provider-name "cp" \
	--providers-schema "$work/schema.json" \
	--examples-dir examples \
	--website-source-dir templates \
	--rendered-website-dir docs >"$work/tfplugindocs.log" 2>&1) || {
	cat "$work/tfplugindocs.log"
	exit 1
}

if ((check)); then
	if ! diff -ru docs "$target/docs"; then
		echo "docs/ is out of date: run 'make docs' and commit the result" >&2
		exit 1
	fi
	echo "docs/ is up to date"
else
	echo "docs/ regenerated"
fi
