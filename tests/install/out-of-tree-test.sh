#!/usr/bin/env bash
# An outside project against the installed package (docs/scripting.md, docs/extending.md):
# install this build into a scratch prefix, configure and build scenarios/scripts/own-policy
# with find_package(tusk) from that prefix alone, run it: the policy registered in min-queue.cc
# runs by name in a scenario program. The same project builds the plugin libmin-queue.so (that
# policy and a congestion control of its own): the installed `tusk` loads it with --plugin
# (and TUSK_PLUGIN_PATH) and runs both by name through run, compare, sweep (local, resumed
# without --plugin), regress and rerun (which refuses a plugin missing or changed since).
# Usage: out-of-tree-test.sh SRC BUILD
set -euo pipefail
src=$1
build=$2
scratch=$build/test-scratch/out-of-tree
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
# [install]
cmake --install "$build" --prefix "$prefix"
# [/install]
test -f "$prefix/lib/cmake/tusk/tuskConfig.cmake"
test -f "$prefix/include/tusk/api/scripting.h"
test -f "$prefix/include/tusk/rdma/model/cc/cc-registry.h"
test -f "$prefix/include/tusk/fabric/model/registry.h"
if command -v ccache >/dev/null 2>&1; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
export CMAKE_GENERATOR=Ninja
cp "$src/scenarios/scripts/own-policy/"{CMakeLists.txt,own-policy.cc,min-queue.cc,constant-rate-cc.cc} \
    "$scratch/"
cd "$scratch"
{
# [build]
cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
./build/own-policy
# [/build]
} | tee run.log
# The package came from the scratch prefix (nothing else would make this test meaningful), and
# the policy of min-queue.cc ran by its name.
grep -qx "tusk_DIR:PATH=$prefix/lib/cmake/tusk" build/CMakeCache.txt
grep -q "^min-queue " run.log

# ---- the plugin, through the installed command line ----------------------------------------
tusk=$prefix/bin/tusk
plugin=$scratch/build/libmin-queue.so
test -f "$plugin"
fail() { echo "out-of-tree-test: $*" >&2; exit 1; }
# Expect exit status 2 and `text` on stderr from the command after them.
expect_bad_input() {
    local text=$1
    shift
    local rc=0
    "$@" 2>err.log >/dev/null || rc=$?
    [ "$rc" = 2 ] || fail "exit $rc, not 2: $*"
    grep -qF -- "$text" err.log || fail "no \"$text\" in: $(cat err.log)"
}
cat > scenario.toml <<'EOF'
name = "plugin"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
receiver = "selective-repeat"
[workload]
kind = "permutation"
bytes = "200KB"
EOF
cat > sweep.toml <<'EOF'
name = "plugin-sweep"
scenario = "scenario.toml"
[[axis]]
key = "lb.policy"
values = ["ecmp", "min-queue"]
EOF
cat > suite.toml <<'EOF'
name = "plugin-suite"
policies = ["ecmp", "min-queue"]
seeds = [1]
[[scenario]]
name = "permutation"
file = "scenario.toml"
metrics = ["drops"]
[baseline.permutation]
ecmp.drops = { value = 0, abs = 0, source = "theory: PFC, lossless" }
min-queue.drops = { value = 0, abs = 0, source = "theory: PFC, lossless" }
EOF

# Without the plugin its names are unknown; a library that cannot be loaded is bad input.
expect_bad_input 'min-queue' "$tusk" run scenario.toml --set lb.policy=min-queue -q --out no
expect_bad_input 'cannot be loaded' "$tusk" run scenario.toml --plugin scenario.toml -q --out no
expect_bad_input 'no such file' "$tusk" kinds --plugin build/nothing.so
test ! -e no

# [plugin]
"$tusk" kinds --plugin build/libmin-queue.so
"$tusk" compare scenario.toml --policies ecmp,min-queue --plugin build/libmin-queue.so
# [/plugin]
"$tusk" kinds --plugin build/libmin-queue.so > kinds.log
grep -q '^  min-queue .*ns3::MinQueueLoadBalancer' kinds.log
grep -q '^  constant-rate .*ns3::ConstantRateCc' kinds.log
TUSK_PLUGIN_PATH=build "$tusk" kinds > kinds-env.log
grep -q '^  constant-rate ' kinds-env.log || fail "TUSK_PLUGIN_PATH"

"$tusk" compare scenario.toml --policies ecmp,min-queue --plugin build/libmin-queue.so -q \
    --out cmp > compare.log
grep -q '^min-queue ' compare.log
grep -q '"policy_type_id": "ns3::MinQueueLoadBalancer"' cmp/min-queue/manifest.json
sha=$(sha256sum "$plugin" | cut -d' ' -f1)
python3 - "$plugin" "$sha" <<'EOF'
import json, sys
m = json.load(open("cmp/min-queue/manifest.json"))
assert m["plugins"] == [{"path": sys.argv[1], "sha256": sys.argv[2]}], m.get("plugins")
EOF

# The plugin's congestion control by name, its attribute in [ns3]: 200 KB at 10 Gb/s take
# at least 160 us, where line rate (100 Gb/s) takes about 20.
"$tusk" run scenario.toml --plugin "$plugin" --set nic.congestion_control=constant-rate \
    --set 'ns3."ns3::ConstantRateCc::RateGbps"=10' -q --out cr > cr.log
python3 - <<'EOF'
import csv
fct = max(float(r["fct_us"]) for r in csv.DictReader(open("cr/flows.csv")))
assert fct > 160, fct
EOF

# rerun loads the manifest's plugin; a plugin changed or missing since is refused.
"$tusk" rerun cr -q --out cr.rerun > rerun.log
grep -q '^reproduced' rerun.log
cp "$plugin" plugin.bak
printf 'x' >> "$plugin"
expect_bad_input 'changed since' "$tusk" rerun cr -q --out cr.rerun2
rm "$plugin"
expect_bad_input 'missing' "$tusk" rerun cr -q --out cr.rerun2
mv plugin.bak "$plugin"
test ! -e cr.rerun2

# A local sweep over the plugin's policy; run again without --plugin it loads the plan's.
"$tusk" sweep sweep.toml --plugin "$plugin" -j 1 -q --out sw
grep -q 'min-queue' sw/sweep.csv
ls sw/*min-queue*/manifest.json > /dev/null
grep -q '"sha256"' sw/.sweep/plan.json
"$tusk" sweep sweep.toml -j 1 --out sw -q > resume.log
grep -q '2 skipped' resume.log

# A regression suite over it.
"$tusk" regress suite.toml --plugin "$plugin" -j 1 -q --out rg > regress.log
grep -q 'min-queue' regress.log
echo "out-of-tree-test: plugin ok"
