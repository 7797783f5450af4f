#!/usr/bin/env bash
# Re-render every picture the README and docs/ show, from the bundled samples, at 1280x800 (the
# panel pictures at their dock's size).  Run from the repository root in an environment
# with ctxviewer installed:  bash docs/screenshots/render_all.sh
# Look at each PNG afterwards: a picture is only done once someone has looked at it.
set -euo pipefail
cd "$(dirname "$0")/../.."
export QT_QPA_PLATFORM=offscreen
out=docs/screenshots
ledger=sample_projects/ledger-service
store=(sample_projects/storefront-web --feature cart-checkout --task CHK-L1-001)
shot() { local name=$1; shift; ctxviewer gui "$@" --screenshot "$out/$name.png"; echo "$out/$name.png"; }

shot sections "$ledger" --tab sections
shot context "$ledger" --tab context
shot budget "$ledger" --set budget=1500 --set spec_share=0.6 --panel budget
shot whatif "$ledger" --set budget=1500 --compare --tab whatif
shot compare "$ledger" --profiles mahabharatha,ctxviewer --tab compare
shot compare-dark "$ledger" --profiles drift:budget=1500,shaktiman:budget=1500 --tab compare --theme dark
shot computed "$ledger" --profile computed --tab computed
shot window "$ledger" --panel window
shot trimming "${store[@]}" --tab trimming
shot rules-dark "${store[@]}" --tab rules --theme dark
python docs/screenshots/findings_shot.py "$out"   # rules, paragraphs, findings
python docs/screenshots/session_shot.py "$out/session.png"   # the replay is stepped
python docs/screenshots/prompt_shot.py "$out"     # prompt_view, budget_version
python docs/screenshots/logview_shot.py "$out/logview.png"   # a generated run's logs, filtered
python docs/screenshots/upstream_shot.py "$out"   # budget_switches, upstream_sections
python docs/screenshots/fleet_shot.py "$out"      # fleet, timeline: the Session panel on a generated run
python docs/screenshots/recorded_shot.py "$out"   # recorded: a run of the real zerg-ai 0.3.2 code (its oracle virtualenv)
python docs/screenshots/sweep_shot.py "$out"      # sweep: storefront-web at budgets 500-6,000
python docs/screenshots/revision_shot.py "$out"   # revision-diff: a scratch repository of storefront-web
python docs/screenshots/bisect_shot.py "$out"     # bisect: Find the Commit over seven commits of storefront-web
python docs/screenshots/sensitivity_shot.py "$out/sensitivity.png"   # the Docker rule file of CHK-L2-003 at budget 4,000
