# Render the HTML report of the fixture in a real headless browser (Debian's
# chromium) and check that the screenshot is not blank. Sourced by .ci/run
# (bash, set -euo pipefail, cwd = repo root).

if ! command -v chromium >/dev/null 2>&1; then
  echo "report-browser: installing chromium"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "report-browser: chromium is missing and cannot be installed (not root, no sudo)" >&2
    exit 1
  fi
fi

rb_dir=$(mktemp -d)
go run ./cmd/ragtriage eval -dataset testdata/eval/fixture.jsonl -mode cascade \
  -out "$rb_dir/report.json" -html "$rb_dir/report.html" -progress never
rb_flags=(--headless --disable-gpu --hide-scrollbars --no-first-run --user-data-dir="$rb_dir/profile"
  --window-size=1280,2200 --screenshot="$rb_dir/report.png")
if [ "$(id -u)" = 0 ]; then rb_flags+=(--no-sandbox); fi
timeout 120 chromium "${rb_flags[@]}" "file://$rb_dir/report.html" >"$rb_dir/chromium.log" 2>&1 || {
  echo "report-browser: chromium failed:" >&2; cat "$rb_dir/chromium.log" >&2; exit 1; }
RAGTRIAGE_SCREENSHOT="$rb_dir/report.png" go test -count=1 -run '^TestReportScreenshot$' ./evalkit
rm -rf "$rb_dir"
unset rb_dir rb_flags
