#!/usr/bin/env bash
# Runs the walkthrough (docs/walkthrough.md, "Your own data in 10 minutes") exactly as written: the commands
# are read from the block between the walkthrough markers of that page, not copied here, and the README's
# block between the same markers must be identical (the script fails if they differ). CI calls this script.
#   bash scripts/walkthrough.sh [FOLDER]   (default: a generated folder of office files in a temp dir)
# Needs the same Neo4j settings as any graphforge command (GRAPHFORGE_* or NEO4J_*). The one command that
# keeps running (`graphforge browser`) is started in the background, its guide fetched, then stopped.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if [ $# -ge 1 ]; then
  export MY_FOLDER="$1"
else
  export MY_FOLDER="$work/my-case"
  "$repo/.venv/bin/python" -c "import sys; from pathlib import Path; from graphforge.demo.sample.workspace import generate_sample_workspace; generate_sample_workspace(Path(sys.argv[1]))" "$MY_FOLDER" >/dev/null
fi
ln -s "$repo/.venv" .venv
# The docs page's block, line by line; the README must show the same block.
block() { sed -n '/<!-- walkthrough:start -->/,/<!-- walkthrough:end -->/p' "$1" | sed -n '/^```bash$/,/^```$/p' | sed '1d;$d'; }
block "$repo/docs/walkthrough.md" > steps.sh
[ -s steps.sh ] || { echo "error: docs/walkthrough.md: walkthrough block not found" >&2; exit 1; }
block "$repo/README.md" > readme-steps.sh
if ! diff -u steps.sh readme-steps.sh; then
  echo "error: README.md's walkthrough block differs from docs/walkthrough.md's (the docs page is the source)" >&2
  exit 1
fi
browser_line="$(grep -n '^graphforge browser' steps.sh | cut -d: -f1 || true)"
{
  echo 'set -euo pipefail'
  if [ -n "$browser_line" ]; then
    head -n $((browser_line - 1)) steps.sh
    # `graphforge browser` serves until Ctrl-C: run it in the background, fetch the guide it serves, stop it.
    echo "$(sed -n "${browser_line}p" steps.sh) --no-open > browser.out 2>&1 &"
    echo 'pid=$!; for i in $(seq 60); do grep -q ":play http" browser.out 2>/dev/null && break; sleep 1; done'
    echo 'url=$(grep -o "http://localhost:[0-9]*/graphforge.html" browser.out | head -1)'
    echo 'curl -fsS "${url/localhost/127.0.0.1}" -o guide.html && grep -q "anchor chain" guide.html || { cat browser.out; kill $pid; exit 1; }'
    echo 'kill $pid; wait $pid 2>/dev/null || true'
    tail -n +$((browser_line + 1)) steps.sh
  else
    cat steps.sh
  fi
} > run.sh
echo "walkthrough: running $(grep -c . steps.sh) lines of docs/walkthrough.md (the README shows the same) in $work"
bash -x run.sh
echo "walkthrough passed"
