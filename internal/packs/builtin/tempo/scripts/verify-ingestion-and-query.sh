#!/usr/bin/env bash
# Runs a Job in the cluster that sends one span with a fresh trace id over
# OTLP/HTTP and polls the query API until the trace is found. Every value
# put into the Job manifest is checked first against a pattern with no
# quote, backslash, space or newline, so it stays one double-quoted YAML
# scalar.
set -euo pipefail

fail() { echo "verify-ingestion-and-query on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as tempo"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as tempo"
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check verify_image "${CP_PARAM_VERIFY_IMAGE:-}" "$image_re" "an image reference such as curlimages/curl:8.10.1"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
svc="$CP_PARAM_RELEASE_NAME.$ns.svc"
trace=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
span=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
[[ "$trace" =~ ^[0-9a-f]{32}$ && "$span" =~ ^[0-9a-f]{16}$ ]] || fail "cannot draw a trace and span id from /dev/urandom"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/verify.sh" <<'SH'
set -eu
now="$(date +%s)000000000"
body='{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cp-verify"}}]},"scopeSpans":[{"spans":[{"traceId":"TRACE","spanId":"SPAN","name":"cp-verify","kind":1,"startTimeUnixNano":"NOW","endTimeUnixNano":"NOW"}]}]}]}'
body=$(echo "$body" | sed -e "s/TRACE/$TRACE/" -e "s/SPAN/$SPAN/" -e "s/NOW/$now/g")
curl -fsS -X POST -H 'Content-Type: application/json' --data "$body" "http://$SVC:4318/v1/traces"
for i in $(seq 1 60); do
  if curl -fsS "http://$SVC:3100/api/traces/$TRACE" >/dev/null; then echo "trace $TRACE found"; exit 0; fi
  sleep 5
done
echo "trace $TRACE not found after 5 minutes" >&2
exit 1
SH
kubectl "${kc[@]}" -n "$ns" create configmap tempo-verify --from-file=verify.sh="$work/verify.sh" \
  --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
kubectl "${kc[@]}" -n "$ns" delete job tempo-verify --ignore-not-found
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
      containers:
        - name: verify
          image: "$CP_PARAM_VERIFY_IMAGE"
          command: ["/bin/sh", "/scripts/verify.sh"]
          env:
            - {name: TRACE, value: "$trace"}
            - {name: SPAN, value: "$span"}
            - {name: SVC, value: "$svc"}
          volumeMounts:
            - {name: scripts, mountPath: /scripts}
      volumes:
        - name: scripts
          configMap:
            name: tempo-verify
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/tempo-verify --timeout=8m
echo "$trace" >"$CP_OUTPUT_DIR/tempo.verification_trace_id"
echo "verify-ingestion-and-query: trace $trace ingested and queried"
