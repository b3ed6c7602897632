#!/usr/bin/env bash
# An outside project against the installed package (docs/scripting.md, docs/extending.md):
# install this build into a scratch prefix, configure and build scenarios/scripts/own-policy
# with find_package(tusk) from that prefix alone, run it: the policy registered in min-queue.cc
# runs by name in a scenario program. The same project builds the plugin libmin-queue.so (that
# policy and a congestion control of its own): the installed `tusk` loads it with --plugin
# (and TUSK_PLUGIN_PATH) and runs both by name through run, compare, sweep (local, resumed
# without --plugin; the Slurm backend's array script, given to a fake sbatch, carries
# --plugin), regress (again without --plugin: its plan's plugins load) and rerun (which refuses
# a plugin missing or changed since); the Python module of BUILD loads it (tusk.load_plugin,
# TUSK_PLUGIN_PATH) and runs both by name.
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
[[axis]]
name = "cc"
key = "nic.congestion_control"
values = ["none", "constant-rate"]
EOF
cat > suite.toml <<'EOF'
name = "plugin-suite"
policies = ["ecmp", "min-queue"]
seeds = [1]
[[scenario]]
name = "permutation"
file = "scenario.toml"
metrics = ["drops"]
[[scenario]]
name = "constant-rate"
file = "scenario.toml"
set = { "nic.congestion_control" = "constant-rate" }
policies = ["min-queue"]
metrics = ["drops"]
[baseline.permutation]
ecmp.drops = { value = 0, abs = 0, source = "theory: PFC, lossless" }
min-queue.drops = { value = 0, abs = 0, source = "theory: PFC, lossless" }
[baseline.constant-rate]
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

# compare with the plugin's policy and its congestion control.
"$tusk" compare scenario.toml --policies ecmp,min-queue --plugin "$plugin" \
    --set nic.congestion_control=constant-rate -q --out cmp-cr > compare-cr.log
grep -q 'cc constant-rate' compare-cr.log || fail "compare: no constant-rate in $(cat compare-cr.log)"
grep -q '^min-queue ' compare-cr.log

# A local sweep over the plugin's policy and control; run again without --plugin it loads the
# plan's.
"$tusk" sweep sweep.toml --plugin "$plugin" -j 1 -q --out sw
grep -q 'min-queue' sw/sweep.csv
ls sw/*min-queue*cc=constant-rate*/manifest.json > /dev/null
grep -q '"sha256"' sw/.sweep/plan.json
"$tusk" sweep sweep.toml -j 1 --out sw -q > resume.log
grep -q '4 skipped' resume.log || fail "sweep resumed: $(cat resume.log)"

# The Slurm backend: the array script a (fake) sbatch is given loads the plugin, and running
# it as the compute node would runs the plugin's policy and control.
mkdir -p fake-bin calls
cat > fake-bin/sbatch <<EOF
#!/bin/sh
n=\$(ls "$scratch/calls" | grep -c '^args-')
printf '%s\n' "\$@" > "$scratch/calls/args-\$n"
for last; do :; done
[ -f "\$last" ] && cp "\$last" "$scratch/calls/script-\$n"
echo \$((100 + n))
EOF
chmod +x fake-bin/sbatch
PATH="$scratch/fake-bin:$PATH" "$tusk" sweep sweep.toml --backend slurm --plugin "$plugin" \
    -q --out sl > slurm.log
grep -qF -- "--plugin '$plugin'" calls/script-0 || fail "array script: $(cat calls/script-0)"
for task in 0 1 2 3; do
    (cd sl && SLURM_ARRAY_TASK_ID=$task sh "$scratch/calls/script-0") > /dev/null
done
ls sl/*min-queue*cc=constant-rate*/manifest.json > /dev/null || fail "no Slurm run of the plugin"

# A regression suite over the plugin's policy and control; run again into the same results
# root without --plugin, it loads the plugins of that root's plan.
"$tusk" regress suite.toml --plugin "$plugin" -j 1 -q --out rg > regress.log
grep -q 'min-queue' regress.log
grep -q 'constant-rate' regress.log
"$tusk" regress suite.toml -j 1 -q --out rg > regress-again.log 2>&1 \
    || fail "regress without --plugin: $(cat regress-again.log)"
grep -q 'constant-rate' regress-again.log

# The Python module of this build (for Debian's interpreter, as its tests use) loads the
# plugin and runs both kinds by name.
export PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 - "$plugin" <<'EOF'
import sys
import tusk
p = tusk.load_plugin(sys.argv[1])
s = tusk.Scenario.load("scenario.toml").set("lb.policy", "min-queue")
r = s.set("nic.congestion_control", "constant-rate").run(out="py")
assert r.failure == "" and r.summary["policy"] == "min-queue", r.failure
assert tusk.plugins() == [p], tusk.plugins()
EOF
grep -q '"congestion_control": "constant-rate"' py/manifest.json
TUSK_PLUGIN_PATH="$plugin" /usr/bin/python3 -c '
import tusk
r = tusk.Scenario.load("scenario.toml").set("lb.policy", "min-queue").run()
assert r.failure == "" and r.summary["policy"] == "min-queue", r.failure'
echo "out-of-tree-test: plugin ok"
