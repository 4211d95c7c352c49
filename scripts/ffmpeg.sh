#!/usr/bin/env bash
# Installs Debian's ffmpeg (MP3 audio and video synthesis, and their tests)
# when it is missing. Needs root (as on CI) or passwordless sudo; does
# nothing when ffmpeg and ffprobe are already on PATH.
set -euo pipefail
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
echo "ffmpeg: installing Debian's package" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ffmpeg >/dev/null
ffmpeg -version | head -1 >&2
