#!/usr/bin/env bash
# Debian's redis-server for the shared-state tests (tests/integration/test_shared_state.py): each test
# module starts its own on a free loopback port and stops it by PID. `make test` runs this.
# Idempotent and instant when /usr/bin/redis-server exists; installs it only as root with apt-get.
set -euo pipefail
exec "$(dirname "$0")/../support/apt-install.sh" /usr/bin/redis-server tests/integration redis-server
