#!/usr/bin/env bash
# Runs a command with an X display: the real one if there is one, else a virtual one (Xvfb).
# Only the Electron end-to-end spec needs it; headless Chromium does not.
set -euo pipefail
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
  exec xvfb-run -a --server-args="-screen 0 1280x900x24" "$@"
fi
exec "$@"
