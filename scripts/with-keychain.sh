#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked GNOME Keyring, so keytar
# talks to a real Secret Service, headless. Used by the keychain tests and CI.
set -euo pipefail
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
  echo "with-keychain: dbus-run-session and gnome-keyring-daemon are needed (apt-get install dbus-x11 gnome-keyring)" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exec "$@"
fi
exec dbus-run-session -- bash -c '
  set -euo pipefail
  # A throwaway keyring in a throwaway home, unlocked with a throwaway password.
  export HOME="$(mktemp -d)"
  export XDG_DATA_HOME="$HOME/.local/share"
  mkdir -p "$XDG_DATA_HOME/keyrings"
  eval "$(printf "clarity-test-keyring" | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)"
  export GNOME_KEYRING_CONTROL
  exec "$@"
' with-keychain "$@"
