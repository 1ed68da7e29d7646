#!/usr/bin/env bash
# Installs the embedded store's PostgreSQL side: PostgreSQL 15 with the DocumentDB extension (FerretDB's build,
# pinned below) and the extensions it requires (pgvector from source; rum, pg_cron and PostGIS from Debian).
# FerretDB 2 itself is built by install-tools.sh. Idempotent: nothing is rebuilt when the pinned extension is
# installed already.
#
# Sources, in this order: BERTH_DOCUMENTDB_SRC / BERTH_PGVECTOR_SRC (a folder or a .tar.gz), the upstream git
# repositories at the pinned revisions, then the source archives of ../shared/mirror/ (BERTH_SOURCE_MIRROR), looked
# for beside this checkout and, for a clone (CI clones main into a temporary folder), beside the repository it was
# cloned from.
# On Debian, as root, the packages are installed with apt-get; elsewhere the README lists what to install.
set -euo pipefail

DOCUMENTDB_REPO="https://github.com/FerretDB/documentdb.git"
DOCUMENTDB_REVISION="3f80da90"
DOCUMENTDB_VERSION="0.107-0"
PGVECTOR_REPO="https://github.com/pgvector/pgvector.git"
PGVECTOR_REVISION="v0.8.0"
PG_MAJOR="15"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_DIR="${BERTH_TOOLS_DIR:-$HOME/.cache/berth/tools}"
# The mirror folder: BERTH_SOURCE_MIRROR, else ../shared/mirror beside this checkout, else beside the local
# repository this checkout was cloned from.
find_mirror() {
  if [ -n "${BERTH_SOURCE_MIRROR:-}" ]; then echo "$BERTH_SOURCE_MIRROR"; return; fi
  local origin
  origin="$(git -C "$ROOT" remote get-url origin 2>/dev/null || true)"
  for candidate in "$ROOT/../shared/mirror" ${origin:+"$origin/../shared/mirror"}; do
    if [ -d "$candidate" ]; then (cd "$candidate" && pwd); return; fi
  done
  echo "$ROOT/../shared/mirror"
}
MIRROR="$(find_mirror)"
SRC_DIR="$TOOLS_DIR/src"
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
DEBIAN_PACKAGES=(
  "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" libkrb5-dev libbson-dev libpcre2-dev
  libintelrdfpmath-dev "postgresql-$PG_MAJOR-rum" "postgresql-$PG_MAJOR-cron" "postgresql-$PG_MAJOR-postgis-3"
  build-essential pkg-config git
)
log() { echo "install-documentdb: $*" >&2; }

installed_version() {
  local control
  control="$("$PG_CONFIG" --sharedir 2>/dev/null)/extension/documentdb.control"
  [ -f "$control" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/pg_documentdb.so" ] &&
    sed -n "s/^default_version = '\(.*\)'/\1/p" "$control"
}

install_packages() {
  local missing=()
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" = 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "missing packages: ${missing[*]} (install them, or see the README's embedded store section)"
    exit 1
  fi
  log "installing ${missing[*]}"
  # Keep apt from creating and starting a default cluster on port 5432: Berth runs clusters of its own.
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
  fi
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# upstream_reachable REPO: whether git answers from REPO within 10 s (a machine without internet does not).
UPSTREAM_REACHABLE=""
upstream_reachable() {
  if [ -z "$UPSTREAM_REACHABLE" ]; then
    if timeout 10 git ls-remote -q "$1" HEAD >/dev/null 2>&1; then UPSTREAM_REACHABLE=yes; else UPSTREAM_REACHABLE=no; fi
  fi
  [ "$UPSTREAM_REACHABLE" = yes ]
}

# fetch_source NAME REPO REVISION ARCHIVE_GLOB OVERRIDE: a clean source folder in SRC_DIR/NAME, printed.
fetch_source() {
  local name="$1" repo="$2" revision="$3" glob="$4" override="$5" dest="$SRC_DIR/$1"
  rm -rf "$dest" && mkdir -p "$dest"
  if [ -n "$override" ]; then
    log "$name from $override"
    if [ -d "$override" ]; then cp -a "$override/." "$dest/"; else tar -xzf "$override" -C "$dest"; fi
  elif upstream_reachable "$repo" && timeout 120 git clone -q --filter=blob:none "$repo" "$dest" 2>/dev/null &&
    git -C "$dest" -c advice.detachedHead=false checkout -q "$revision" 2>/dev/null; then
    log "$name from $repo at $revision"
  else
    rm -rf "$dest" && mkdir -p "$dest"
    local archive
    archive="$(ls "$MIRROR"/$glob 2>/dev/null | head -n1 || true)"
    [ -n "$archive" ] || { log "no source for $name: $repo unreachable and no $MIRROR/$glob"; exit 1; }
    log "$name from $archive"
    tar -xzf "$archive" -C "$dest"
  fi
  # An archive may hold one top folder.
  if [ "$(ls -A "$dest" | wc -l)" = 1 ] && [ -d "$dest/$(ls -A "$dest")" ]; then
    local top; top="$(ls -A "$dest")"
    mv "$dest/$top" "$dest.tmp" && rmdir "$dest" && mv "$dest.tmp" "$dest"
  fi
  echo "$dest"
}

build_pgvector() {
  [ -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ] && return 0
  local src; src="$(fetch_source pgvector "$PGVECTOR_REPO" "$PGVECTOR_REVISION" 'pgvector-*.tar.gz' "${BERTH_PGVECTOR_SRC:-}")"
  log "building pgvector"
  make -C "$src" -s -j2 PG_CONFIG="$PG_CONFIG" OPTFLAGS="" with_llvm=no >&2
  make -C "$src" -s install PG_CONFIG="$PG_CONFIG" with_llvm=no >&2
}

build_documentdb() {
  local src; src="$(fetch_source documentdb "$DOCUMENTDB_REPO" "$DOCUMENTDB_REVISION" 'documentdb-*.tar.gz' "${BERTH_DOCUMENTDB_SRC:-}")"
  # Debian ships Intel's decimal library without a pkg-config file; its -fPIC build 000 matches DocumentDB's
  # CALL_BY_REF=0 GLOBAL_RND=0 GLOBAL_FLAGS=0.
  local pc="$SRC_DIR/pkgconfig"
  mkdir -p "$pc"
  printf 'Name: intelmathlib\nDescription: Intel decimal floating-point math library\nVersion: 2.0\nCflags: -I/usr/include\nLibs: -L/usr/lib/x86_64-linux-gnu -l:libbidgcc000.a\n' >"$pc/intelmathlib.pc"
  local copt=""
  # libbson before 1.25 lacks the SENSITIVE binary subtype (0x08) that DocumentDB names: define it, and let a
  # switch over bson_subtype_t name a value that enum does not list.
  grep -q BSON_SUBTYPE_SENSITIVE /usr/include/libbson-1.0/bson/bson-types.h 2>/dev/null ||
    copt="-DBSON_SUBTYPE_SENSITIVE=0x08 -Wno-error=switch"
  log "building DocumentDB $DOCUMENTDB_VERSION"
  for dir in pg_documentdb_core pg_documentdb; do
    PKG_CONFIG_PATH="$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" make -C "$src/$dir" -s -j2 PG_CONFIG="$PG_CONFIG" COPT="$copt" with_llvm=no >&2
    PKG_CONFIG_PATH="$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" make -C "$src/$dir" -s install PG_CONFIG="$PG_CONFIG" COPT="$copt" with_llvm=no >&2
  done
}

if [ "$(installed_version || true)" = "$DOCUMENTDB_VERSION" ]; then
  log "DocumentDB $DOCUMENTDB_VERSION installed"
else
  install_packages
  mkdir -p "$SRC_DIR"
  build_pgvector
  build_documentdb
  [ "$(installed_version || true)" = "$DOCUMENTDB_VERSION" ] || { log "DocumentDB did not install"; exit 1; }
fi
"$PG_CONFIG" --bindir
