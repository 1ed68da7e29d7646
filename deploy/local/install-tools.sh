#!/usr/bin/env bash
# Installs the servers and CLIs Berth runs against locally and in tests: nats-server, the nats CLI and FerretDB 2
# from the Go module proxy, and PostgreSQL with DocumentDB (install-documentdb.sh), into a cache outside git
# (BERTH_TOOLS_DIR, default ~/.cache/berth/tools). Idempotent: a tool already cached at its pinned version is not
# rebuilt. Prints the bin folder on the last line.
set -euo pipefail

NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.14.9}"
NATSCLI_VERSION="${NATSCLI_VERSION:-v0.5.0}"
FERRETDB_VERSION="${FERRETDB_VERSION:-v2.7.0}"
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

install nats-server github.com/nats-io/nats-server/v2 "$NATS_SERVER_VERSION" &
install nats github.com/nats-io/natscli/nats "$NATSCLI_VERSION" &
install ferretdb github.com/FerretDB/FerretDB/v2/cmd/ferretdb "$FERRETDB_VERSION" &
# PostgreSQL 15 with DocumentDB, the store FerretDB 2 runs on (apt packages and two C builds; see the script).
bash "$(dirname "${BASH_SOURCE[0]}")/install-documentdb.sh" >/dev/null &
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || { echo "install-tools: a build failed" >&2; exit 1; }

"$BIN_DIR/nats-server" --version >&2
"$BIN_DIR/nats" --version >&2
ferretdb_version="$("$BIN_DIR/ferretdb" --version 2>&1)"
echo "ferretdb: ${ferretdb_version%%$'\n'*}" >&2
echo "$BIN_DIR"
