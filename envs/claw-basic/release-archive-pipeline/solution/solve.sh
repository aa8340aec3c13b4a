#!/usr/bin/env bash
set -euo pipefail
# step: render the templates into dist/
python3 - <<'PY'
import json, pathlib
site = pathlib.Path("/workspace/site")
version = (site / "VERSION").read_text().strip()
name = json.loads((site / "site.json").read_text())["name"]
dist = site / "dist"
dist.mkdir(exist_ok=True)
for tmpl in sorted((site / "templates").glob("*.tmpl")):
    text = tmpl.read_text().replace("{{VERSION}}", version).replace("{{NAME}}", name)
    (dist / tmpl.name[:-len(".tmpl")]).write_text(text)
PY
# step: write the sha256 manifest
# (A stale MANIFEST.txt is filtered out rather than deleted: Codex refuses forced removals.)
cd /workspace/site/dist
ls | grep -vx MANIFEST.txt | LC_ALL=C sort | xargs sha256sum > /tmp/MANIFEST.txt
mv /tmp/MANIFEST.txt MANIFEST.txt
cat MANIFEST.txt
# step: package the archive and its checksum
cd /workspace/site
VERSION=$(cat VERSION)
SLUG=$(python3 -c 'import json; print(json.load(open("site.json"))["slug"])')
NAME="$SLUG-$VERSION"
mkdir -p /workspace/release
# dist/ is stored under the top-level directory $NAME/ (GNU tar renames members; no staging copy to clean up).
tar -C /workspace/site --transform "s,^dist,$NAME," -czf "/workspace/release/$NAME.tar.gz" dist
cd /workspace/release
sha256sum "$NAME.tar.gz" > "$NAME.tar.gz.sha256"
sha256sum -c "$NAME.tar.gz.sha256"
