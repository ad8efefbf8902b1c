#!/usr/bin/env bash
# Gives Tempo S3 credentials of its own, in the Secret tempo-s3, and
# creates the trace bucket with them: from a MinIO client Job for a MinIO
# the control plane created, from this host with the real S3 client (aws)
# for a bound existing S3 provider.
set -euo pipefail

# When the bound storage is a MinIO whose credentials artifact names its
# admin API (S3_ADMIN_API=minio, with S3_ADMIN_NAMESPACE and
# S3_ADMIN_SECRET, the Secret holding rootUser and rootPassword), a Job in
# that namespace creates a MinIO user for this Tempo with a policy that
# allows only its bucket, and tempo-s3 holds only that user's keys (the
# secret key generated here once and kept across runs). The admin
# credentials never enter Tempo's namespace. Otherwise the bound
# credentials are the ones issued for this consumer and go to tempo-s3,
# after this host proved them against the bound endpoint with aws: the
# bucket is looked up (head-bucket), created when absent, and an object
# cp-evidence/tempo/<namespace> is written and read back (the job's
# evidence reads it again). The keys reach aws only through its
# environment, never its command line; a refusal fails the job with the
# endpoint's answer and what to check.
#
# mc reaches S3 through MC_HOST_<alias>, which Kubernetes composes from
# Secret keys ($(VAR) expansion of dependent environment variables); the
# new user's secret key reaches mc on its standard input from a mounted
# Secret. No credential is in a manifest or on mc's command line. Every
# value put into a manifest is checked first against a pattern with no
# quote, backslash, space or newline, so it stays one double-quoted YAML
# scalar; the policy is a fixed document around the checked bucket name.

fail() { echo "create-bucket-and-credentials on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# check_secret NAME VALUE refuses, without quoting it, a key that is not
# 3 to 128 characters of letters, digits and + / = . _ ~ - (no ':' or
# '@', which would break MC_HOST_<alias>).
check_secret() { [[ $2 =~ ^[A-Za-z0-9+/=._~-]{3,128}$ ]] || fail "$1 in object_storage.s3.credentials must be 3 to 128 letters, digits or + / = . _ ~ -"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as tempo"
check bucket "${CP_PARAM_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
check mc_image "${CP_PARAM_MC_IMAGE:-}" "$image_re" \
  "an image reference such as minio/mc:RELEASE.2024-10-08T09-37-26Z"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
bucket=$CP_PARAM_BUCKET
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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
rand() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# secret_value NAME KEY prints key KEY of Secret NAME in Tempo's namespace.
secret_value() { kubectl "${kc[@]}" -n "$ns" get secret "$1" -o "jsonpath={.data.$2}" | base64 -d; }

# Every value is checked before anything is changed.
admin_api=${cred[S3_ADMIN_API]:-}
admin_ns=${cred[S3_ADMIN_NAMESPACE]:-}
admin_secret=${cred[S3_ADMIN_SECRET]:-}
case $admin_api in
  minio)
    check S3_ADMIN_NAMESPACE "$admin_ns" "$label_re" "a DNS label such as minio"
    check S3_ADMIN_SECRET "$admin_secret" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Secret name such as minio-root"
    ;;
  "")
    check_secret AWS_ACCESS_KEY_ID "${cred[AWS_ACCESS_KEY_ID]:-}"
    check_secret AWS_SECRET_ACCESS_KEY "${cred[AWS_SECRET_ACCESS_KEY]:-}"
    ;;
  *) fail "S3_ADMIN_API in object_storage.s3.credentials must be minio or absent" ;;
esac

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
# oneline TEXT is TEXT on one line without leading blanks, at most 300
# characters.
oneline() {
  local v=${1//[[:cntrl:]]/ }
  v=${v#"${v%%[![:space:]]*}"}
  printf '%s' "${v:0:300}"
}

# prove_bound_storage looks the bucket up with the bound keys, creates it
# when absent, and writes and reads back the evidence object; bound says
# what it found.
prove_bound_storage() {
  command -v aws >/dev/null || fail "the S3 client aws is not installed on this host; install it (apt-get install -y awscli on Debian and Ubuntu)"
  local out
  if out=$(s3 s3api head-bucket --bucket "$bucket" 2>&1); then
    bound="bucket existed"
  else
    case $out in
      *"(404)"* | *NoSuchBucket* | *"Not Found"*)
        out=$(s3 s3api create-bucket --bucket "$bucket" 2>&1) ||
          fail "cannot create bucket $bucket at $endpoint with the bound credentials: $(oneline "$out")"
        bound="bucket created"
        ;;
      *"(403)"* | *Forbidden* | *InvalidAccessKeyId* | *SignatureDoesNotMatch* | *AccessDenied*)
        fail "the S3 endpoint $endpoint refused the bound credentials for bucket $bucket ($(oneline "$out")); check the binding's access and secret key (access_key_env and secret_key_env, or access_key_wo and secret_key_wo) and that the key may use this bucket"
        ;;
      *) fail "cannot reach bucket $bucket at $endpoint: $(oneline "$out"); check the binding's attributes.endpoint and that this host reaches it" ;;
    esac
  fi
  local key="cp-evidence/tempo/$ns"
  printf 'tempo storage check: bucket %s, namespace %s\n' "$bucket" "$ns" >"$work/evidence"
  out=$(s3 s3api put-object --bucket "$bucket" --key "$key" --body "$work/evidence" 2>&1) ||
    fail "cannot write $key to bucket $bucket at $endpoint: $(oneline "$out")"
  out=$(s3 s3api get-object --bucket "$bucket" --key "$key" "$work/evidence.read" 2>&1) ||
    fail "cannot read $key back from bucket $bucket at $endpoint: $(oneline "$out")"
  cmp -s "$work/evidence" "$work/evidence.read" || fail "$key read back from bucket $bucket differs from what was written"
  bound="$bound, $key written and read back"
}

# A bound storage is proved before anything changes in the cluster.
bound=""
[[ $admin_api == minio ]] || prove_bound_storage

kubectl "${kc[@]}" create namespace "$ns" --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -

case $admin_api in
  minio)
    # One user and policy per Tempo namespace and bucket.
    id=$(printf '%s/%s' "$ns" "$bucket" | sha256sum | cut -c1-12)
    user=tempo-$id
    obj=s3-user-$id
    secret=""
    if kubectl "${kc[@]}" -n "$ns" get secret tempo-s3 -o name >/dev/null 2>&1 &&
      [[ "$(secret_value tempo-s3 AWS_ACCESS_KEY_ID)" == "$user" ]]; then
      secret=$(secret_value tempo-s3 AWS_SECRET_ACCESS_KEY)
    fi
    [[ "$secret" =~ ^[0-9a-f]{48}$ ]] || secret=$(rand 24)
    printf '%s' "$user" >"$work/access_key"
    printf '%s' "$secret" >"$work/secret_key"
    cat >"$work/policy.json" <<JSON
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["s3:CreateBucket", "s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
      "Resource": ["arn:aws:s3:::$bucket"]
    },
    {
      "Effect": "Allow",
      "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
      "Resource": ["arn:aws:s3:::$bucket/*"]
    }
  ]
}
JSON
    # The new user's keys and policy, in the storage's namespace for the
    # Job that creates the user there; the copy of the secret key is
    # removed once the user exists.
    kubectl "${kc[@]}" -n "$admin_ns" create secret generic "$obj" --from-file=secret_key="$work/secret_key" \
      --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
    trap 'kubectl "${kc[@]}" -n "$admin_ns" delete secret "$obj" --ignore-not-found >/dev/null || true; rm -rf "$work"' EXIT
    kubectl "${kc[@]}" -n "$admin_ns" create configmap "$obj" --from-file=policy.json="$work/policy.json" \
      --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
    kubectl "${kc[@]}" -n "$admin_ns" delete job "$obj" --ignore-not-found
    kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: "$obj"
  namespace: "$admin_ns"
spec:
  backoffLimit: 4
  ttlSecondsAfterFinished: 3600
  template:
    spec:
      restartPolicy: OnFailure
      volumes:
        - name: user
          secret: {secretName: "$obj", defaultMode: 0400}
        - name: policy
          configMap: {name: "$obj"}
      containers:
        - name: mc
          image: "$CP_PARAM_MC_IMAGE"
          env:
            - name: ADMIN_USER
              valueFrom: {secretKeyRef: {name: "$admin_secret", key: rootUser}}
            - name: ADMIN_PASSWORD
              valueFrom: {secretKeyRef: {name: "$admin_secret", key: rootPassword}}
            - {name: MC_HOST_admin, value: "$scheme://\$(ADMIN_USER):\$(ADMIN_PASSWORD)@$hostport"}
            - {name: USER_NAME, value: "$user"}
            - {name: POLICY, value: "$user"}
          volumeMounts:
            - {name: user, mountPath: /run/cp/user, readOnly: true}
            - {name: policy, mountPath: /run/cp/policy, readOnly: true}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              mc admin user add admin "\$USER_NAME" </run/cp/user/secret_key >/dev/null &&
              mc admin policy create admin "\$POLICY" /run/cp/policy/policy.json &&
              { mc admin policy attach admin "\$POLICY" --user "\$USER_NAME" ||
              mc admin user info admin "\$USER_NAME" --json | grep -q "\"policyName\": *\"\$POLICY\""; }
YAML
    kubectl "${kc[@]}" -n "$admin_ns" wait --for=condition=complete "job/$obj" --timeout=5m
    kubectl "${kc[@]}" -n "$admin_ns" delete secret "$obj" --ignore-not-found
    how="user $user limited to bucket $bucket"
    ;;
  *)
    # Credentials issued for this consumer by a storage without an admin
    # API known here: proved from this host, then Tempo uses them as they
    # are.
    printf '%s' "${cred[AWS_ACCESS_KEY_ID]}" >"$work/access_key"
    printf '%s' "${cred[AWS_SECRET_ACCESS_KEY]}" >"$work/secret_key"
    how="the bound credentials ($bound)"
    ;;
esac

kubectl "${kc[@]}" -n "$ns" create secret generic tempo-s3 \
  --from-file=AWS_ACCESS_KEY_ID="$work/access_key" --from-file=AWS_SECRET_ACCESS_KEY="$work/secret_key" \
  --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -

if [[ $admin_api != minio ]]; then
  echo "$ns/tempo-s3" >"$CP_OUTPUT_DIR/tempo.s3_secret_ref"
  echo "create-bucket-and-credentials: bucket $bucket ready at $endpoint for $how"
  exit 0
fi

kubectl "${kc[@]}" -n "$ns" delete job tempo-create-bucket --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: tempo-create-bucket
  namespace: "$ns"
spec:
  backoffLimit: 4
  template:
    spec:
      restartPolicy: OnFailure
      containers:
        - name: mc
          image: "$CP_PARAM_MC_IMAGE"
          env:
            - name: AWS_ACCESS_KEY_ID
              valueFrom: {secretKeyRef: {name: tempo-s3, key: AWS_ACCESS_KEY_ID}}
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom: {secretKeyRef: {name: tempo-s3, key: AWS_SECRET_ACCESS_KEY}}
            - {name: MC_HOST_s3, value: "$scheme://\$(AWS_ACCESS_KEY_ID):\$(AWS_SECRET_ACCESS_KEY)@$hostport"}
            - {name: BUCKET, value: "$bucket"}
          command: ["/bin/sh", "-c"]
          args:
            - mc mb --ignore-existing "s3/\$BUCKET"
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/tempo-create-bucket --timeout=5m
echo "$ns/tempo-s3" >"$CP_OUTPUT_DIR/tempo.s3_secret_ref"
echo "create-bucket-and-credentials: bucket $bucket ready at $endpoint for $how"
