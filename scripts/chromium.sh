#!/usr/bin/env bash
# Installs Debian's chromium (for the report's headless-browser test) when it
# is missing. Needs root (as on CI) or passwordless sudo; does nothing when
# chromium is already on PATH.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
echo "chromium: installing Debian's package" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
chromium --version >&2
