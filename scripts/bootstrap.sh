#!/usr/bin/env bash
# Prepares a fresh Debian machine for Clarity Desktop: system packages, then npm ci.
#   chromium         the browser for the browser host and the end-to-end tests (never downloaded)
#   xvfb             a virtual display, for the Electron spec where an Electron binary exists
#   libsecret-1-dev  lets keytar build from source (its prebuilt download is not reachable)
#   gnome-keyring, dbus-x11   a real Secret Service for the credential tests
#   poppler-utils    pdftotext, to read exported PDFs in tests
#   librsvg2-bin     rsvg-convert, to regenerate the app icons from build/icon.svg (scripts/icons.mjs)
#   openssl          a private CA for the corporate-proxy integration test
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(chromium xvfb libsecret-1-dev gnome-keyring dbus-x11 poppler-utils librsvg2-bin openssl)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "bootstrap: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
npm ci --no-fund --no-audit
