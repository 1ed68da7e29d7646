#!/usr/bin/env bash
# Installs the servers and CLIs Berth runs against locally and in tests, from the Go module proxy,
# into a cache outside git (BERTH_TOOLS_DIR, default ~/.cache/berth/tools). Idempotent: a tool already
# cached at its pinned version is not rebuilt. Prints the bin folder on the last line.
set -euo pipefail

NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.14.9}"
NATSCLI_VERSION="${NATSCLI_VERSION:-v0.5.0}"
TOOLS_DIR="${BERTH_TOOLS_DIR:-$HOME/.cache/berth/tools}"
BIN_DIR="$TOOLS_DIR/bin"
mkdir -p "$BIN_DIR"

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "install-tools: Go is needed to build nats-server, natscli and FerretDB (apt-get install golang-go)" >&2
    exit 1
  fi
fi

# install NAME MODULE VERSION: builds MODULE@VERSION into a versioned folder, links it as BIN_DIR/NAME.
install() {
  local name="$1" module="$2" version="$3"
  local dir="$TOOLS_DIR/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    echo "install-tools: building $module@$version" >&2
    mkdir -p "$dir"
    GOBIN="$dir" CGO_ENABLED=0 go install "$module@$version" >&2
  fi
  ln -sfn "$dir/$name" "$BIN_DIR/$name"
}

# FerretDB v1.24 (version pinned in tools/ferretdb/go.mod) through a small wrapper module: see its go.mod.
install_ferretdb() {
  local src; src="$(cd "$(dirname "${BASH_SOURCE[0]}")/tools/ferretdb" && pwd)"
  local key; key="$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | sha256sum | cut -c1-12)"
  local dir="$TOOLS_DIR/berth-ferretdb-$key"
  if [ ! -x "$dir/berth-ferretdb" ]; then
    echo "install-tools: building berth-ferretdb (FerretDB v1.24)" >&2
    mkdir -p "$dir"
    (cd "$src" && CGO_ENABLED=0 go build -o "$dir/berth-ferretdb" .) >&2
  fi
  ln -sfn "$dir/berth-ferretdb" "$BIN_DIR/berth-ferretdb"
}

install nats-server github.com/nats-io/nats-server/v2 "$NATS_SERVER_VERSION" &
install nats github.com/nats-io/natscli/nats "$NATSCLI_VERSION" &
install_ferretdb &
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || { echo "install-tools: a build failed" >&2; exit 1; }

"$BIN_DIR/nats-server" --version >&2
"$BIN_DIR/nats" --version >&2
grep -m1 'FerretDB/FerretDB ' "$(dirname "${BASH_SOURCE[0]}")/tools/ferretdb/go.mod" | sed 's/^[[:space:]]*/ferretdb: /' >&2
echo "$BIN_DIR"
