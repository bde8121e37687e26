# Sourced by the install.sh beside each package-lock.json (apps/, codemode-ts/, conformance-ts/, tests/outside/,
# tests/jupyterhub/), from that folder: npm ci exactly as the lockfile pins, and a stamp in node_modules (the
# lockfile's hash) so that a rerun skips the reinstall when nothing changed (npm ci wipes and refills node_modules).
# FORCE=1 reinstalls anyway. `make test` runs each install.sh.

lock_stamp="node_modules/.installed-from-lock"
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"

# True when node_modules was installed from this lockfile (and FORCE is not 1).
lock_installed() {
    [[ "${FORCE:-}" != "1" && -f "$lock_stamp" && "$(cat "$lock_stamp")" == "$lock_hash" ]]
}

# Stops the script, saying who needs npm and why, when there is no npm on PATH.
lock_need_npm() {
    command -v npm >/dev/null 2>&1 || { echo "$1: npm not found; $2" >&2; exit 1; }
}

# npm ci with the options every install uses, and the script's own (--ignore-scripts, ...).
lock_npm_ci() {
    npm ci --no-audit --no-fund --loglevel=error "$@"
}

# Stops the script unless each node_modules/ENTRY is there (what the folder's users run), else writes the stamp.
lock_done() {
    local who="$1" entry
    shift
    for entry in "$@"; do
        [[ -e "node_modules/$entry" ]] || { echo "$who: node_modules/$entry missing after npm ci" >&2; exit 1; }
    done
    echo "$lock_hash" > "$lock_stamp"
}
