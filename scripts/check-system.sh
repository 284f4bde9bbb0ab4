#!/usr/bin/env bash
# The system programs the tests need, beside node_modules: checked before
# `npm test` (its pretest) and by .ci/run, which runs that same `npm test`.
# Missing ones are installed with apt-get when this runs as root (or with a
# sudo that asks no password); otherwise this prints exactly what to install
# and fails, before any test runs. Never a silent failure.
set -euo pipefail

missing=()   # Debian packages to install
why=()       # what each is for

# The UI tests drive a real headless Chromium (test/helpers/browser.ts).
if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || { echo "check-system: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2; exit 1; }
elif [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium); why+=("chromium: the UI tests run in headless Chromium (or set CHROMIUM_PATH)")
fi
# grep runs ripgrep when it is installed; the tests run every grep case through both engines.
command -v rg >/dev/null 2>&1 || { missing+=(ripgrep); why+=("ripgrep: the grep tool's ripgrep engine"); }
# SKEIN_SANDBOX=workspace runs bash under bubblewrap; its tests need the real binary.
command -v bwrap >/dev/null 2>&1 || { missing+=(bubblewrap); why+=("bubblewrap: the bash sandbox (SKEIN_SANDBOX)"); }
# The PostgreSQL store's tests run a throwaway cluster (test/helpers/postgres.ts looks in these folders).
pg_found=""
for bin in "${SKEIN_TEST_PG_BIN:-}" /usr/lib/postgresql/17/bin /usr/lib/postgresql/16/bin /usr/lib/postgresql/15/bin; do
  [ -n "$bin" ] && [ -x "$bin/initdb" ] && pg_found="$bin" && break
done
[ -n "$pg_found" ] || { missing+=(postgresql); why+=("postgresql: the PostgreSQL store's tests (15 to 17, or set SKEIN_TEST_PG_BIN)"); }
# The CLI's approval prompt is tested on a terminal that `script` provides.
command -v script >/dev/null 2>&1 || { missing+=(bsdutils); why+=("bsdutils (script): the CLI's terminal tests"); }

# The llama.cpp tests (test/llama) run llama.cpp's own llama-server, built from
# source by scripts/llama-server/build.mjs (cmake, g++, make, git), with tiny
# models that scripts/llama-server/tiny-model.py writes with numpy (Debian's, for
# /usr/bin/python3). A prebuilt binary (SKEIN_TEST_LLAMA_SERVER) needs no compiler.
if [ -z "${SKEIN_TEST_LLAMA_SERVER:-}" ]; then
  command -v cmake >/dev/null 2>&1 || { missing+=(cmake); why+=("cmake: building llama.cpp's llama-server for the llama.cpp tests"); }
  command -v g++ >/dev/null 2>&1 || { missing+=(g++); why+=("g++: building llama.cpp's llama-server"); }
  command -v make >/dev/null 2>&1 || { missing+=(make); why+=("make: building llama.cpp's llama-server"); }
fi
command -v git >/dev/null 2>&1 || { missing+=(git); why+=("git: cloning the llama.cpp source the llama.cpp tests build from"); }
"${SKEIN_PYTHON:-/usr/bin/python3}" -c 'import numpy' >/dev/null 2>&1 || { missing+=(python3-numpy); why+=("python3-numpy: the llama.cpp tests' tiny models (scripts/llama-server/tiny-model.py; or set SKEIN_PYTHON to a python3 with numpy)"); }

[ ${#missing[@]} -eq 0 ] && exit 0

echo "check-system: the tests need what is not installed here:" >&2
for line in "${why[@]}"; do echo "  - $line" >&2; done

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else sudo="no"; fi
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$sudo" = "no" ]; then
  echo "Install them, then run the tests again:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  command -v apt-get >/dev/null 2>&1 || echo "  (no apt-get here: install the same programs with your system's package manager)" >&2
  exit 1
fi
echo "check-system: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "check-system: apt-get update failed; trying the install anyway" >&2
$sudo apt-get install -y -qq "${missing[@]}"
