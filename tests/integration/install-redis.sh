#!/usr/bin/env bash
# Debian's redis-server and redis-sentinel for the shared-state tests (tests/integration/test_shared_state.py): each
# test module starts its own on free loopback ports and stops them by PID. `make test` runs this.
# Idempotent and instant when both exist; installs them only as root with apt-get (the packages' services are not
# started where policy-rc.d forbids it, as in a container; the tests never use them).
set -euo pipefail
here="$(dirname "$0")/../support"
"$here/apt-install.sh" /usr/bin/redis-server tests/integration redis-server
exec "$here/apt-install.sh" /usr/bin/redis-sentinel tests/integration redis-sentinel
