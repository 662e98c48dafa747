#!/usr/bin/env bash
# Installs Debian's chromium for the browser WebGPU test (test/browser/), which drives it headless through playwright-core; idempotent.
#
# WebGPU in headless chromium on a machine without a GPU runs on SwiftShader (Vulkan in software), which the
# chromium package ships; no other system package is needed.
# Usage: scripts/install-chromium-webgpu.sh        (as root, or with passwordless sudo)
#        DRY_RUN=1 scripts/install-chromium-webgpu.sh
set -euo pipefail

log() { printf '[install-chromium-webgpu] %s\n' "$*"; }

if [[ "$(uname -s)" != "Linux" ]] || ! command -v apt-get >/dev/null 2>&1; then
  log "not a Debian-like Linux; install Chromium by hand and set RAF_CHROMIUM=/path/to/chromium."
  exit 0
fi
if [[ "$(dpkg-query -W -f='${Status}' chromium 2>/dev/null || true)" == "install ok installed" ]]; then
  log "already installed: chromium ($(command -v chromium || echo /usr/bin/chromium))"
  exit 0
fi
if [[ "${DRY_RUN:-}" == "1" ]]; then
  log "missing: chromium; DRY_RUN=1, not installing."
  exit 0
fi

SUDO=()
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    log "error: need root (or passwordless sudo) to apt-get install chromium" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends chromium
if [[ "$(dpkg-query -W -f='${Status}' chromium 2>/dev/null || true)" != "install ok installed" ]]; then
  log "error: chromium still not installed after apt-get" >&2
  exit 1
fi
log "done: $(command -v chromium)"
