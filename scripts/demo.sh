#!/usr/bin/env bash
# The README's main job: plan and apply examples/quickstart with the
# provider built into bin/, in a scratch copy under .demo/.
#   scripts/demo.sh up     plan + apply (starting local test hosts when the example needs them)
#   scripts/demo.sh down   destroy and stop the hosts
set -euo pipefail
. "$(dirname "$0")/tofu-env.sh"
cd "$root"
demo="$root/.demo"
work="$demo/quickstart"

case "${1:-up}" in
up)
	mkdir -p "$work"
	cp -r examples/quickstart/. "$work/"
	cd "$work"
	echo "== tofu plan (examples/quickstart)"
	"$tofu" plan -no-color -out=demo.tfplan
	echo "== tofu apply"
	"$tofu" apply -no-color -auto-approve demo.tfplan
	echo "== outputs"
	"$tofu" output -no-color
	;;
down)
	if [[ -d "$work" ]]; then
		(cd "$work" && "$tofu" destroy -no-color -auto-approve) || true
	fi
	rm -rf "$demo"
	;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
