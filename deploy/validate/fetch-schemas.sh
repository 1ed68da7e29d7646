#!/usr/bin/env bash
# Fetches the published schemas the deployment files are validated against, at pinned versions, from the Go module
# proxy into the Go module cache (outside git; nothing is copied into the repository). Prints one JSON object on
# stdout with the path of each schema.
#   composeSpec             the Compose specification's JSON schema, as shipped in compose-go (docker compose's loader)
#   kubernetesOpenApiV3Dir  Kubernetes' published OpenAPI v3 documents (api/openapi-spec/v3 of k8s.io/kubernetes)
#   kedaScaledObjectCrd     KEDA's ScaledObject CustomResourceDefinition
#   prometheusRuleCrd       the Prometheus Operator's PrometheusRule CustomResourceDefinition
#   podMonitorCrd           the Prometheus Operator's PodMonitor CustomResourceDefinition
# The Kubernetes version matches k8s.io/api in checker/go.mod. Available versions:
#   go list -m -versions github.com/compose-spec/compose-go/v2   (likewise for the other modules)
set -euo pipefail

COMPOSE_GO_VERSION="${COMPOSE_GO_VERSION:-v2.16.2}"
KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.37.2}"
KEDA_VERSION="${KEDA_VERSION:-v2.21.0}"
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "fetch-schemas: Go is needed to download from the module proxy (apt-get install golang-go)" >&2
    exit 1
  fi
fi
export GOTOOLCHAIN=local GOFLAGS=
# Work outside any module, so no go.mod around changes what is downloaded.
work_dir="$(mktemp -d)"
trap 'rm -rf "$work_dir"' EXIT
cd "$work_dir"

# module_dir MODULE VERSION: downloads MODULE@VERSION (once; the module cache keeps it) and prints its folder.
module_dir() {
  local json dir
  if ! json="$(go mod download -json "$1@$2" 2>&1)"; then
    echo "fetch-schemas: cannot download $1@$2:" >&2
    echo "$json" >&2
    echo "fetch-schemas: versions the proxy has: $(go list -m -versions "$1" 2>&1)" >&2
    exit 1
  fi
  dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [ -d "$dir" ] || { echo "fetch-schemas: no module folder for $1@$2 in: $json" >&2; exit 1; }
  printf '%s\n' "$dir"
}

# Downloads run side by side (the Kubernetes module is the big one, ~22 MB).
module_dir github.com/compose-spec/compose-go/v2 "$COMPOSE_GO_VERSION" > "$work_dir/compose" &
module_dir k8s.io/kubernetes "$KUBERNETES_VERSION" > "$work_dir/kubernetes" &
module_dir github.com/kedacore/keda/v2 "$KEDA_VERSION" > "$work_dir/keda" &
module_dir github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION" > "$work_dir/promop" &
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || exit 1

compose="$(cat "$work_dir/compose")/schema/compose-spec.json"
kubernetes="$(cat "$work_dir/kubernetes")/api/openapi-spec/v3"
keda="$(cat "$work_dir/keda")/config/crd/bases/keda.sh_scaledobjects.yaml"
rules="$(cat "$work_dir/promop")/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
podmonitors="$(cat "$work_dir/promop")/example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml"
for path in "$compose" "$kubernetes" "$keda" "$rules" "$podmonitors"; do
  [ -e "$path" ] || { echo "fetch-schemas: expected $path in the downloaded module" >&2; exit 1; }
done

cat <<JSON
{
  "composeSpec": "$compose",
  "composeGoVersion": "$COMPOSE_GO_VERSION",
  "kubernetesOpenApiV3Dir": "$kubernetes",
  "kubernetesVersion": "$KUBERNETES_VERSION",
  "kedaScaledObjectCrd": "$keda",
  "kedaVersion": "$KEDA_VERSION",
  "prometheusRuleCrd": "$rules",
  "podMonitorCrd": "$podmonitors",
  "prometheusOperatorVersion": "$PROMETHEUS_OPERATOR_VERSION"
}
JSON
