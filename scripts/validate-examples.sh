#!/usr/bin/env bash
# Runs `tofu validate` on every example directory. Resource and data source
# snippets get a required_providers block so the provider resolves to the
# one built into bin/.
set -euo pipefail
. "$(dirname "$0")/tofu-env.sh"
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
count=0
while IFS= read -r dir; do
	count=$((count + 1))
	dest="$work/$dir"
	mkdir -p "$dest"
	cp -r "$dir/." "$dest/"
	if ! grep -qs 'required_providers' "$dest"/*.tf; then
		cat >"$dest/zz_providers.tf" <<'EOT'
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}
EOT
	fi
	# Module calls with local sources need `get`; providers come from the dev override.
	if ! out=$(cd "$dest" && "$tofu" get -no-color >/dev/null 2>&1 && "$tofu" validate -no-color 2>&1); then
		echo "FAIL $dir"
		echo "$out" | sed 's/^/    /'
		failed=1
	else
		echo "ok   $dir"
	fi
done < <(find examples -name '*.tf' -not -path '*/.terraform/*' -printf '%h\n' | sort -u)
echo "validated $count example directories"
exit $failed
