#!/usr/bin/env bash
# Debian's redis-server for the shared-state tests (tests/integration/test_shared_state.py): each test
# starts its own on a free loopback port and stops it by PID. `make test` runs this.
# Idempotent and instant when /usr/bin/redis-server exists; installs it only as root with apt-get.
set -euo pipefail
if [[ -x /usr/bin/redis-server ]]; then
    exit 0
fi
if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/integration: /usr/bin/redis-server is missing; install Debian's redis-server package (apt-get install redis-server) as root." >&2
    exit 1
fi
echo "tests/integration: apt-get install redis-server ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends redis-server >/dev/null
/usr/bin/redis-server --version 2>/dev/null || true
