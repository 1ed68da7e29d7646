#!/usr/bin/env bash
# Builds Jaeger (v1.76.0 all-in-one, pinned in tools/jaeger/go.mod) from the Go module proxy into the same cache as
# install-tools.sh (BERTH_TOOLS_DIR, default ~/.cache/berth/tools), and links it as bin/jaeger. Idempotent: a build
# of the same go.mod/go.sum is not redone. Prints the bin folder on the last line.
#
# Separate from install-tools.sh because only the tracing test (test/observability/trace.test.ts) and local tracing
# need it, and a cold build is long (Jaeger links the OpenTelemetry collector and every storage backend): 13 min 52 s
# with empty Go module and build caches on a shared 2-core machine, about 1.3 GB of modules and 1.6 GB of build cache,
# for an 85 MB binary. The test calls this script itself; CI should cache BERTH_TOOLS_DIR, keyed on the hash of
# tools/jaeger/go.mod and go.sum (the folder name below carries it).
#
# The binary serves Jaeger's query API and a placeholder page where its UI would be: the UI (jaeger-ui, built with
# npm) is embedded only by Jaeger's release build, not by a build from the module. The console draws traces itself
# from the query API (services/console/README.md, "Traces").
set -euo pipefail

TOOLS_DIR="${BERTH_TOOLS_DIR:-$HOME/.cache/berth/tools}"
BIN_DIR="$TOOLS_DIR/bin"
mkdir -p "$BIN_DIR"

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "install-jaeger: Go is needed to build Jaeger (apt-get install golang-go)" >&2
    exit 1
  fi
fi

# Jaeger v1.76 through the tools module (a replace directive in Jaeger's go.mod makes `go install` refuse it).
install_jaeger() {
  local src; src="$(cd "$(dirname "${BASH_SOURCE[0]}")/tools/jaeger" && pwd)"
  local key; key="$(cat "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-12)"
  local dir="$TOOLS_DIR/berth-jaeger-$key"
  if [ ! -x "$dir/jaeger" ]; then
    echo "install-jaeger: building github.com/jaegertracing/jaeger/cmd/jaeger (first build takes minutes)" >&2
    mkdir -p "$dir"
    # Built to a temporary name and renamed, so an interrupted build never leaves a half-written binary behind.
    (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dir/jaeger.partial" github.com/jaegertracing/jaeger/cmd/jaeger) >&2
    mv "$dir/jaeger.partial" "$dir/jaeger"
  fi
  ln -sfn "$dir/jaeger" "$BIN_DIR/jaeger"
}

install_jaeger
grep -m1 'github.com/jaegertracing/jaeger ' "$(dirname "${BASH_SOURCE[0]}")/tools/jaeger/go.mod" | sed 's/^[[:space:]]*/jaeger: /; s, // indirect,,' >&2
echo "$BIN_DIR"
