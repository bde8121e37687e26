#!/usr/bin/env bash
# Install Debian packages a group of tests needs, once: apt-install.sh BINARY WHO PACKAGE...
# Instant when BINARY exists; installs PACKAGEs only as root with apt-get, else says what to install (exit 1).
set -euo pipefail
binary="$1" who="$2"
shift 2
if [[ -x "$binary" ]]; then
    exit 0
fi
if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: $binary is missing; install Debian's $1 package (apt-get install $*) as root." >&2
    exit 1
fi
echo "$who: apt-get install $* ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$@" >/dev/null
"$binary" --version 2>/dev/null || true
