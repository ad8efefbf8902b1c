#!/usr/bin/env bash
# Reads `kubeadm certs check-expiration` on this master and fails naming
# every certificate (or certificate authority) that expires within
# certificate_min_days, or whose expiry it cannot read. The report, one
# line "name expiry-epoch" per certificate, is kept in
# /var/lib/cp/kubernetes/certificates-expiry.
set -euo pipefail

fail() { echo "check-certificates on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check certificate_min_days "${CP_PARAM_CERTIFICATE_MIN_DAYS:-}" '^[1-9][0-9]{0,3}$' "a whole number of days from 1 to 9999"
days=$((10#$CP_PARAM_CERTIFICATE_MIN_DAYS))
out=$(kubeadm certs check-expiration) || fail "kubeadm certs check-expiration failed; is this a kubeadm master?"
limit=$(($(date -u +%s) + days * 86400))
# The two tables: CERTIFICATE ... and CERTIFICATE AUTHORITY ..., each row
# "name Mon DD, YYYY HH:MM UTC residual ...".
rows=$(awk 'NF == 0 {t = 0} t {print} /^CERTIFICATE( AUTHORITY)? +EXPIRES/ {t = 1}' <<<"$out")
[[ -n "$rows" ]] || fail "kubeadm certs check-expiration printed no certificate table"
report=() bad=()
while read -r name mon day year hm tz _; do
  check "certificate name" "$name" '^[a-z0-9.-]{1,64}$' "a kubeadm certificate name"
  if ! when=$(date -u -d "$mon ${day%,} $year $hm $tz" +%s 2>/dev/null); then
    bad+=("$name (expiry unreadable: ${mon:0:20} ${day:0:20} ${year:0:20})")
    continue
  fi
  report+=("$name $when")
  if ((when < limit)); then
    bad+=("$name (expires $(date -u -d "@$when" +%Y-%m-%dT%H:%MZ))")
  fi
done <<<"$rows"
mkdir -p /var/lib/cp/kubernetes
printf '%s\n' "${report[@]}" | sort >/var/lib/cp/kubernetes/certificates-expiry
if ((${#bad[@]} > 0)); then
  fail "certificates expiring within $days days: ${bad[*]}; run the renew_certificates action"
fi
echo "check-certificates: ${#report[@]} certificates on $CP_HOST valid for more than $days days"
