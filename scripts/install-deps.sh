#!/usr/bin/env bash
# Installs the Debian packages vulnbench's demo and tests use, when they are missing.
set -euo pipefail
need=()
command -v flawfinder >/dev/null 2>&1 || need+=(flawfinder)
# Scanners as subjects (internal/subject/sast): cppcheck 2.10 (XML v2), bandit 1.6.2 (JSON).
command -v cppcheck >/dev/null 2>&1 || need+=(cppcheck)
command -v bandit >/dev/null 2>&1 || need+=(bandit)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v git >/dev/null 2>&1 || need+=(git)
# The code graph's oracles (internal/codegraph tests, bench/codegraph.sh).
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || need+=(universal-ctags)
command -v cflow >/dev/null 2>&1 || need+=(cflow)
# Postgres for the store's tests (internal/store/pgtest starts a throwaway cluster from these).
[ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql-15)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to install: ${need[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${need[*]}" >&2
if [[ " ${need[*]} " == *" postgresql-15 "* ]]; then
  # The tests start their own clusters: the package need not create and start a system one. (A
  # drop-in, not createcluster.conf, which is the package's conffile.)
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $sudo tee /etc/postgresql-common/createcluster.d/vulnbench.conf >/dev/null
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
