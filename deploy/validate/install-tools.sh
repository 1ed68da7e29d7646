#!/usr/bin/env bash
# Builds the tools the deployment checks run (test/deploy), from the Go module proxy, into a cache outside git
# (BERTH_TOOLS_DIR, default ~/.cache/berth/tools, as deploy/local/install-tools.sh). Idempotent: a tool already built
# at its pinned version (kustomize) or from the same sources (berth-deploy-check) is not rebuilt. Prints the bin
# folder on the last line.
#   kustomize            sigs.k8s.io/kustomize/kustomize/v5, renders deploy/k8s/* as `kubectl apply -k` would
#   berth-deploy-check   deploy/validate/checker: Kubernetes types (strict), compose-go, BuildKit's Dockerfile
#                        parser and linter, Prometheus' rule loader and PromQL parser
set -euo pipefail

# v5.8.3 needs Go 1.27; v5.8.2 is the newest that builds with the Go 1.26 of these machines.
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
TOOLS_DIR="${BERTH_TOOLS_DIR:-$HOME/.cache/berth/tools}"
BIN_DIR="$TOOLS_DIR/bin"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$BIN_DIR"

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "validate/install-tools: Go is needed to build kustomize and berth-deploy-check (apt-get install golang-go)" >&2
    exit 1
  fi
fi
# Only the module proxy and the checksum database are used; the toolchain is the one installed.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly"

install_kustomize() {
  local dir="$TOOLS_DIR/kustomize-$KUSTOMIZE_VERSION"
  if [ ! -x "$dir/kustomize" ]; then
    echo "validate/install-tools: building kustomize $KUSTOMIZE_VERSION" >&2
    mkdir -p "$dir"
    (cd "$dir" && GOBIN="$dir" go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION") >&2
  fi
  ln -sfn "$dir/kustomize" "$BIN_DIR/kustomize"
}

install_checker() {
  local src="$HERE/checker"
  local key; key="$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-12)"
  local dir="$TOOLS_DIR/berth-deploy-check-$key"
  if [ ! -x "$dir/berth-deploy-check" ]; then
    echo "validate/install-tools: building berth-deploy-check" >&2
    mkdir -p "$dir"
    (cd "$src" && go build -trimpath -o "$dir/berth-deploy-check.tmp" . && mv "$dir/berth-deploy-check.tmp" "$dir/berth-deploy-check") >&2
  fi
  ln -sfn "$dir/berth-deploy-check" "$BIN_DIR/berth-deploy-check"
}

install_kustomize &
install_checker &
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || { echo "validate/install-tools: a build failed" >&2; exit 1; }

"$BIN_DIR/kustomize" version >&2
echo "$BIN_DIR"
