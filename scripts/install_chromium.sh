#!/bin/sh
# Installs Debian's Chromium for the browser test when it is not already there (idempotent).
set -e
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q chromium chromium-driver >/dev/null
}
echo "Chromium installed: $(command -v chromium)"
