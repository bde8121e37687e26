#!/usr/bin/env bash
# Debian's chromium for the MCP Apps browser tests (tests/apps), driven headless by
# playwright-core: no browser is ever downloaded. `make test` runs this.
# Idempotent and instant when /usr/bin/chromium exists; installs it only as root with apt-get.
set -euo pipefail
exec "$(dirname "$0")/../support/apt-install.sh" /usr/bin/chromium tests/apps chromium fonts-liberation fonts-dejavu-core
