#!/bin/sh
# Installs WordNet 3.0 from Debian's packages when it is not already there (idempotent).
set -e
if [ -f /usr/share/wordnet/data.noun ] && [ -f /usr/share/wordnet/index.sense ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get install -y -q wordnet-base wordnet-sense-index >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q wordnet-base wordnet-sense-index >/dev/null
}
echo "WordNet installed in /usr/share/wordnet"
