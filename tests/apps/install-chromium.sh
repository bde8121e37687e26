#!/usr/bin/env bash
# Debian's chromium for the MCP Apps browser tests (tests/apps), driven headless by
# playwright-core: no browser is ever downloaded. `make test` runs this.
# Idempotent and instant when /usr/bin/chromium exists; installs it only as root with apt-get.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
    exit 0
fi
if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/apps: /usr/bin/chromium is missing; install Debian's chromium package (apt-get install chromium) as root." >&2
    exit 1
fi
echo "tests/apps: apt-get install chromium ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-dejavu-core >/dev/null
/usr/bin/chromium --version 2>/dev/null || true
