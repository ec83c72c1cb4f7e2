#!/usr/bin/env bash
# Installs the Debian packages vulnbench's demo and tests use, when they are missing.
set -euo pipefail
need=()
command -v flawfinder >/dev/null 2>&1 || need+=(flawfinder)
# Scanners as subjects (internal/subject/sast's table): cppcheck 2.10 (XML v2), bandit 1.6.2 (JSON).
command -v cppcheck >/dev/null 2>&1 || need+=(cppcheck)
command -v bandit >/dev/null 2>&1 || need+=(bandit)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v git >/dev/null 2>&1 || need+=(git)
# The sandbox every external process runs in (internal/sandbox): bubblewrap 0.8.
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# The code graph's oracles (internal/codegraph tests, bench/codegraph.sh).
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || need+=(universal-ctags)
command -v cflow >/dev/null 2>&1 || need+=(cflow)
# Postgres for the store's tests (internal/store/pgtest starts a throwaway cluster from these,
# or from $VULNBENCH_PGBIN when set, as pgtest does).
[ -x "${VULNBENCH_PGBIN:-/usr/lib/postgresql/15/bin}/initdb" ] || need+=(postgresql-15)
# Debian's Chromium for the viewer's and the HTML report's browser tests (internal/web, chromedp):
# the tests never download a browser.
[ -x /usr/bin/chromium ] || need+=(chromium)
# gosec (a scanner subject) is a Go program: installed with go install, no root needed.
if ! command -v gosec >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/gosec" ]; then
  echo "install-deps: go install github.com/securego/gosec/v2/cmd/gosec@v2.30.0" >&2
  go install github.com/securego/gosec/v2/cmd/gosec@v2.30.0
fi
# govulncheck (the govulncheck subject on Go vex cases) likewise.
if ! command -v govulncheck >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/govulncheck" ]; then
  echo "install-deps: go install golang.org/x/vuln/cmd/govulncheck@v1.9.0" >&2
  go install golang.org/x/vuln/cmd/govulncheck@v1.9.0
fi
# eslint with eslint-plugin-security and the SARIF formatter (a scanner subject) come from npm,
# into vulnbench's own prefix (never a global install); the subject looks for them there.
node_prefix="${VULNBENCH_NODE:-$HOME/.cache/vulnbench/node}"
if [ ! -x "$node_prefix/node_modules/.bin/eslint" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm install --prefix $node_prefix eslint@10.15.0 eslint-plugin-security@4.1.0 @microsoft/eslint-formatter-sarif@3.1.0" >&2
    npm install --prefix "$node_prefix" --no-audit --no-fund --loglevel=error eslint@10.15.0 eslint-plugin-security@4.1.0 @microsoft/eslint-formatter-sarif@3.1.0 >/dev/null
  else
    echo "install-deps: npm is not installed: the eslint scanner's tests will skip (Node 20 and npm install it)" >&2
  fi
fi
# The agent CLIs, pinned, into the same prefix: one row each in internal/harness/clis.tsv (the
# table the subjects, the docs and the battery read too). Each package carries its native binary
# (node_modules/.bin/claude, codex, ...). --save-exact keeps the pins in its package.json.
clis=()
while IFS=$'\t' read -r name pkg version _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  clis+=("$pkg@$version")
done < "$(dirname "$0")/../internal/harness/clis.tsv"
want_clis=()
for spec in "${clis[@]}"; do
  pkg="${spec%@*}" version="${spec##*@}"
  have=$(node -p "require('$node_prefix/node_modules/$pkg/package.json').version" 2>/dev/null || true)
  [ "$have" = "$version" ] || want_clis+=("$spec")
done
if [ ${#want_clis[@]} -gt 0 ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm install --prefix $node_prefix --save-exact ${want_clis[*]}" >&2
    npm install --prefix "$node_prefix" --no-audit --no-fund --loglevel=error --save-exact "${want_clis[@]}" >/dev/null
  else
    echo "install-deps: npm is not installed: the agent CLIs' tests will skip (Node 20 and npm install them)" >&2
  fi
fi
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
