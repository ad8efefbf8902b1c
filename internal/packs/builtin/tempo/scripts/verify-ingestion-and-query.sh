#!/usr/bin/env bash
set -euo pipefail
# Runs a Job in the cluster that sends one span with a fresh trace id over
# OTLP/HTTP, polls the query API until the trace is found and asks Tempo
# to flush (POST /flush), then proves that traces reach object storage: a
# block of the tenant single-tenant that was not in the bucket before the
# span was sent appears under single-tenant/, and its meta.json, read
# back, names the tenant. The query alone proves nothing about storage:
# the ingester answers it from memory before anything reaches S3. Last,
# the trace itself is read back from the backend: Tempo's querier, asked
# through the API server's service proxy at
# /querier/api/traces/<trace>?mode=blocks, searches the blocks in object
# storage only (never the ingesters) and answers 404 until a block holding
# the trace is in its blocklist; the answer must carry the trace and the
# span sent.
#
# Where the bucket is read from depends on the storage:
#   - a bound S3 provider (no S3_ADMIN_API in the credentials artifact):
#     from this host with the real S3 client (aws) and the bound keys,
#     which are in its environment only;
#   - a MinIO created for Tempo (S3_ADMIN_API=minio), reachable only inside
#     the cluster: by mc in the Job (an init container lists the blocks
#     before the span is sent, the last container waits for a new one),
#     with the keys of the Secret tempo-s3 that Tempo itself uses, which
#     Kubernetes composes into MC_HOST_s3; no key is in the manifest or on
#     mc's command line.
# Every value put into the Job manifest is checked first against a pattern
# with no quote, backslash, space or newline, so it stays one
# double-quoted YAML scalar.

fail() { echo "verify-ingestion-and-query on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# check_secret NAME VALUE refuses, without quoting it, a key that is not
# 3 to 128 characters of letters, digits and + / = . _ ~ -.
check_secret() { [[ $2 =~ ^[A-Za-z0-9+/=._~-]{3,128}$ ]] || fail "$1 in object_storage.s3.credentials must be 3 to 128 letters, digits or + / = . _ ~ -"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as tempo"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as tempo"
check bucket "${CP_PARAM_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check verify_image "${CP_PARAM_VERIFY_IMAGE:-}" "$image_re" "an image reference such as curlimages/curl:8.10.1"
check mc_image "${CP_PARAM_MC_IMAGE:-}" "$image_re" "an image reference such as minio/mc:RELEASE.2024-10-08T09-37-26Z"

endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
check object_storage.s3.endpoint "$endpoint" '^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$' \
  "an http(s) URL of a host and port only, such as http://minio.minio.svc:9000"
scheme=${endpoint%%://*}
hostport=${endpoint#*://}
hostport=${hostport%/}
declare -A cred=()
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -n "$line" ]] || continue
  key=${line%%=*}
  case $key in
    AWS_ACCESS_KEY_ID | AWS_SECRET_ACCESS_KEY | S3_ADMIN_API | S3_ADMIN_NAMESPACE | S3_ADMIN_SECRET) cred[$key]=${line#*=} ;;
    *) fail "object_storage.s3.credentials may hold only AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_ADMIN_API, S3_ADMIN_NAMESPACE and S3_ADMIN_SECRET lines" ;;
  esac
done <"$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS"
case ${cred[S3_ADMIN_API]:-} in
  minio) in_cluster=true ;;
  "")
    in_cluster=false
    check_secret AWS_ACCESS_KEY_ID "${cred[AWS_ACCESS_KEY_ID]:-}"
    check_secret AWS_SECRET_ACCESS_KEY "${cred[AWS_SECRET_ACCESS_KEY]:-}"
    command -v aws >/dev/null || fail "the S3 client aws is not installed on this host; install it (apt-get install -y awscli on Debian and Ubuntu)"
    ;;
  *) fail "S3_ADMIN_API in object_storage.s3.credentials must be minio or absent" ;;
esac

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
bucket=$CP_PARAM_BUCKET
svc="$CP_PARAM_RELEASE_NAME.$ns.svc"
# Tempo without multitenancy keeps every block under this tenant.
tenant=single-tenant
# The service.name of the test span, looked for in the querier's answer.
service=cp-verify
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The ids are drawn as bytes: OTLP/HTTP JSON carries them in hex, Tempo's
# JSON answers in base64 (protobuf bytes fields).
head -c 16 /dev/urandom >"$work/trace"
head -c 8 /dev/urandom >"$work/span"
trace=$(od -An -tx1 <"$work/trace" | tr -d ' \n')
span=$(od -An -tx1 <"$work/span" | tr -d ' \n')
trace_b64=$(base64 -w0 <"$work/trace")
span_b64=$(base64 -w0 <"$work/span")
[[ "$trace" =~ ^[0-9a-f]{32}$ && "$span" =~ ^[0-9a-f]{16}$ && "$trace_b64" =~ ^[A-Za-z0-9+/]{22}==$ && "$span_b64" =~ ^[A-Za-z0-9+/]{11}=$ ]] ||
  fail "cannot draw a trace and span id from /dev/urandom"

# The region requests are signed for: an AWS endpoint's own
# (https://s3.REGION.amazonaws.com), else us-east-1, which S3-compatible
# servers accept.
region=us-east-1
if [[ $hostport =~ ^s3[.-]([a-z0-9-]+)\.amazonaws\.com(:[0-9]+)?$ ]]; then
  region=${BASH_REMATCH[1]}
fi
# s3 ARGS... runs the real S3 client against the bound endpoint; the keys
# are in its environment only.
s3() {
  AWS_ACCESS_KEY_ID=${cred[AWS_ACCESS_KEY_ID]} AWS_SECRET_ACCESS_KEY=${cred[AWS_SECRET_ACCESS_KEY]} \
    AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_DEFAULT_REGION=$region \
    AWS_EC2_METADATA_DISABLED=true AWS_PAGER="" aws --endpoint-url "$endpoint" "$@"
}
# block_metas prints the keys of the blocks' meta.json under the tenant's
# prefix, one a line; it fails when the bucket cannot be listed.
block_metas() {
  local out
  out=$(s3 s3api list-objects-v2 --bucket "$bucket" --prefix "$tenant/" --query 'Contents[].Key' --output text) || return 1
  tr '\t' '\n' <<<"$out" | grep -E "^$tenant/[A-Za-z0-9-]+/meta\.json$" || true
}

if ! $in_cluster; then
  before=$(block_metas) || fail "cannot list s3://$bucket/$tenant/ at $endpoint with the bound keys"
  printf '%s\n' "$before" >"$work/before"
fi

cat >"$work/verify.sh" <<'SH'
set -eu
now="$(date +%s)000000000"
body='{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"SERVICE"}}]},"scopeSpans":[{"spans":[{"traceId":"TRACE","spanId":"SPAN","name":"cp-verify","kind":1,"startTimeUnixNano":"NOW","endTimeUnixNano":"NOW"}]}]}]}'
body=$(echo "$body" | sed -e "s/SERVICE/$SERVICE/" -e "s/TRACE/$TRACE/" -e "s/SPAN/$SPAN/" -e "s/NOW/$now/g")
curl -fsS -X POST -H 'Content-Type: application/json' --data "$body" "http://$SVC:4318/v1/traces"
found=
for i in $(seq 1 60); do
  if curl -fsS "http://$SVC:3100/api/traces/$TRACE" >/dev/null; then found=1; break; fi
  sleep 5
done
[ -n "$found" ] || { echo "trace $TRACE not found after 5 minutes" >&2; exit 1; }
echo "trace $TRACE found"
# The ingester answered from memory; the flush cuts its blocks and writes
# them to the backend.
curl -fsS -X POST "http://$SVC:3100/flush" >/dev/null
echo "flush requested"
SH
# The mc steps of an in-cluster MinIO: the block metas before the span is
# sent, and then a new one of the tenant, read back. They use sh built-ins
# and mc only.
cat >"$work/blocks-before.sh" <<'SH'
set -u
mc find "s3/$BUCKET/$TENANT" --name meta.json >/work/before 2>/dev/null || : >/work/before
SH
cat >"$work/block-stored.sh" <<'SH'
set -u
before=$(cat /work/before)
i=0
while [ "$i" -lt 60 ]; do
  for m in $(mc find "s3/$BUCKET/$TENANT" --name meta.json 2>/dev/null); do
    case "
$before
" in *"
$m
"*) continue ;; esac
    meta=$(mc cat "$m" 2>/dev/null) || continue
    case "$meta" in *'"tenantID":"'"$TENANT"'"'*) echo "block $m stored"; exit 0 ;; esac
  done
  i=$((i + 1))
  sleep 5
done
echo "no new block of tenant $TENANT in bucket $BUCKET after 5 minutes" >&2
exit 1
SH
kubectl "${kc[@]}" -n "$ns" create configmap tempo-verify --from-file=verify.sh="$work/verify.sh" \
  --from-file=blocks-before.sh="$work/blocks-before.sh" --from-file=block-stored.sh="$work/block-stored.sh" \
  --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
kubectl "${kc[@]}" -n "$ns" delete job tempo-verify --ignore-not-found

# mc_step NAME SCRIPT is a container of the MinIO steps.
mc_step() {
  cat <<YAML
        - name: $1
          image: "$CP_PARAM_MC_IMAGE"
          command: ["/bin/sh", "/scripts/$2"]
          env:
            - name: AWS_ACCESS_KEY_ID
              valueFrom: {secretKeyRef: {name: tempo-s3, key: AWS_ACCESS_KEY_ID}}
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom: {secretKeyRef: {name: tempo-s3, key: AWS_SECRET_ACCESS_KEY}}
            - {name: MC_HOST_s3, value: "$scheme://\$(AWS_ACCESS_KEY_ID):\$(AWS_SECRET_ACCESS_KEY)@$hostport"}
            - {name: BUCKET, value: "$bucket"}
            - {name: TENANT, value: "$tenant"}
          volumeMounts:
            - {name: scripts, mountPath: /scripts}
            - {name: work, mountPath: /work}
YAML
}
verify_step=$(cat <<YAML
        - name: verify
          image: "$CP_PARAM_VERIFY_IMAGE"
          command: ["/bin/sh", "/scripts/verify.sh"]
          env:
            - {name: TRACE, value: "$trace"}
            - {name: SPAN, value: "$span"}
            - {name: SERVICE, value: "$service"}
            - {name: SVC, value: "$svc"}
          volumeMounts:
            - {name: scripts, mountPath: /scripts}
YAML
)
if $in_cluster; then
  pods=$(printf '      initContainers:\n%s\n%s\n      containers:\n%s' "$(mc_step blocks-before blocks-before.sh)" "$verify_step" "$(mc_step block-stored block-stored.sh)")
else
  pods=$(printf '      containers:\n%s' "$verify_step")
fi
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: tempo-verify
  namespace: "$ns"
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
$pods
      volumes:
        - name: scripts
          configMap:
            name: tempo-verify
        - name: work
          emptyDir: {}
YAML
what="the trace was not ingested and queried"
$in_cluster && what+=", or no new block of tenant $tenant reached s3://$bucket/$tenant/"
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/tempo-verify --timeout=12m ||
  fail "the Job tempo-verify did not complete: $what (kubectl -n $ns logs job/tempo-verify --all-containers)"

if ! $in_cluster; then
  stored=""
  for _ in $(seq 1 60); do
    if after=$(block_metas); then
      while IFS= read -r key; do
        if [[ -z "$key" ]] || grep -qxF -- "$key" "$work/before"; then
          continue
        fi
        meta=$(s3 s3 cp "s3://$bucket/$key" - 2>/dev/null) || continue
        if [[ $meta =~ \"tenantID\"[[:space:]]*:[[:space:]]*\"$tenant\" ]]; then
          stored=$key
          break
        fi
      done <<<"$after"
    fi
    [[ -z "$stored" ]] || break
    sleep 5
  done
  [[ -n "$stored" ]] || fail "trace $trace was queried, but no new block of tenant $tenant reached s3://$bucket/$tenant/ at $endpoint within 5 minutes of the flush: check Tempo's S3 settings and its log (kubectl -n $ns logs statefulset/$CP_PARAM_RELEASE_NAME)"
  echo "verify-ingestion-and-query: block ${stored%/meta.json} stored in s3://$bucket"
fi

# The trace read back from object storage. In the single binary the
# compactor polls the blocklist every storage.trace.blocklist_poll, which
# deploy-tempo leaves at Tempo's default of 5m; Tempo's polling docs say
# the blocklist is stale by at most twice that (the tenant index), so the
# querier may answer 404 for up to 10 minutes after the block was
# written. A shorter poll is not what the docs recommend for this (it
# multiplies the bucket listings, and complete_block_timeout and
# compacted_block_retention are sized against it), so the query is polled
# for 11 minutes instead: every 5 seconds, 132 times.
querier="/api/v1/namespaces/$ns/services/$CP_PARAM_RELEASE_NAME:3100/proxy/querier/api/traces/$trace?mode=blocks"
read_back=""
for _ in $(seq 1 132); do
  if body=$(kubectl "${kc[@]}" get --raw "$querier" 2>/dev/null) &&
    [[ $body == *"\"$service\""* && ($body == *"\"$trace_b64\""* || $body == *"\"$trace\""*) &&
      ($body == *"\"$span_b64\""* || $body == *"\"$span\""*) ]]; then
    read_back=1
    break
  fi
  sleep 5
done
[[ -n "$read_back" ]] || fail "trace $trace reached Tempo's ingester but not its backend blocks: the querier in blocks mode (/querier/api/traces/$trace?mode=blocks) did not return trace $trace with span $span from the blocks of tenant $tenant in bucket $bucket within 11 minutes of the flush; check Tempo's log for flush, S3 and blocklist poll errors (kubectl -n $ns logs statefulset/$CP_PARAM_RELEASE_NAME)"
echo "verify-ingestion-and-query: trace $trace read back from the blocks of tenant $tenant in s3://$bucket"
echo "$trace" >"$CP_OUTPUT_DIR/tempo.verification_trace_id"
echo "verify-ingestion-and-query: trace $trace ingested, queried, flushed to object storage and read back from its blocks"
