#!/usr/bin/env bash
# ckks-cuda's device check, in two steps (the GPU machines have no JDK and no network):
#
#   plugins/he-backend-cuda/device-check.sh prepare
#       here, on a machine with a JDK, Maven and nvcc: builds the project (kernels included) and writes .device/:
#       a jlink runtime (the JDK modules PolyHE needs), the module path (lib/), JCuda's driver binding (native/),
#       the JUnit console and the test classes (tests/). Prints its size; it travels with the working tree.
#
#   bash plugins/he-backend-cuda/device-check.sh run RESULTS
#       on the GPU machine, from the repository root: the limb-by-limb tests and both conformance kits against
#       ckks-cuda, then `bench ckks --logN 16`, `bench ckks --op bootstrap` and `bench layer --shape pythia-70m
#       --tokens 128`, all with --backend ckks-cuda, and, for issue 17's many-core figures, `bench ckks --op bootstrap
#       --threads 16` and `bench layer` on the machine's CPU (ckks-cpu, all its cores). It writes JSON (STEP.out)
#       and logs (STEP.log) to a scratch folder and packs them as RESULTS/results.tar.gz, with RESULTS/summary.txt
#       beside it (a device machine returns only a few files). Each step has its own time limit (run_step's second
#       argument), so a slow step costs its own figures only, and no step runs past the whole run's deadline
#       (DEVICE_CHECK_SECONDS, 580 by default): the last step, the CPU layer, gets what time is left.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dev="$root/.device"

prepare() {
    command -v nvcc >/dev/null || { echo "device-check: nvcc is not on the PATH; the kernels would not be built" >&2; exit 2; }
    (cd "$root" && mvn -q -B -Dstyle.color=never -DskipTests install)
    (cd "$root" && mvn -q -B -Dstyle.color=never test-compile -pl plugins/he-backend-cuda)
    rm -rf "$dev"
    mkdir -p "$dev/tests"
    cp -r "$root/launcher/target/lib" "$dev/lib"
    cp "$root/launcher/target/polyhe-launcher-0.1.0-SNAPSHOT.jar" "$dev/lib/"
    cp -r "$root/launcher/target/native/lib" "$dev/native"
    local platform
    platform="$(sed -n 's:.*<junit.platform.version>\(.*\)</junit.platform.version>.*:\1:p' "$root/pom.xml")"
    (cd "$root" && mvn -q -B dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$platform" \
        -DoutputDirectory="$dev/tests")
    cp -r "$root/plugins/he-backend-cuda/target/test-classes" "$dev/tests/classes"
    cp "$root/he-conformance/target/"polyhe-he-conformance-*.jar "$dev/tests/"
    # the JDK modules PolyHE's modules require (not the optional ones: charts' java.desktop), plus what the
    # automatic modules use (java.util.logging: Guice, Guava, JCuda; sun.misc.Unsafe: Guice), and java.xml for
    # the JUnit console's reports and jdk.zipfs for its scan of the module jars
    local modules
    modules="$(for j in "$dev"/lib/*.jar; do jar --describe-module --file "$j" 2>/dev/null; done \
        | grep -E '^requires ' | grep -v ' static ' | grep -oE '(java|jdk)\.[a-z.]+$' \
        | cat - <(printf 'java.logging\njdk.unsupported\njava.xml\njdk.zipfs\n') | sort -u | paste -sd, -)"
    jlink --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
        --output "$dev/jre"
    # the device machine gets the working tree without its history: the commit travels in a file
    (cd "$root" && echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')") \
        >"$dev/commit"
    echo "device-check: .device is $(du -sh "$dev" | cut -f1) (modules: $modules)"
    echo "device-check: on the GPU machine run: bash plugins/he-backend-cuda/device-check.sh run \$OUT (carry .device)"
}

run_step() { # name, seconds, command...
    local name="$1" limit="$2"
    shift 2
    local start=$SECONDS
    if [ $((deadline - SECONDS)) -lt "$limit" ]; then limit=$((deadline - SECONDS)); fi
    if [ "$limit" -lt 20 ]; then
        echo "== $name skipped: ${limit}s left before the deadline" | tee -a "$out/summary.txt"
        return
    fi
    echo "== $name (limit ${limit}s) $(date -u +%T)" | tee -a "$out/summary.txt"
    set +e
    timeout --kill-after=10 "$limit" "$@" >"$out/$name.out" 2>"$out/$name.log"
    local rc=$?
    set -e
    echo "   rc=$rc in $((SECONDS - start)) s" | tee -a "$out/summary.txt"
}

run() {
    local results="${1:?usage: device-check.sh run RESULTS}"
    deadline=$((SECONDS + ${DEVICE_CHECK_SECONDS:-580}))
    out="$(mktemp -d)"
    mkdir -p "$results"
    [ -x "$dev/jre/bin/java" ] || { echo "device-check: no .device/jre: run 'device-check.sh prepare' first and carry .device" >&2; exit 2; }
    # the driver's libcuda.so.1, where an image mounts it outside the loader's default path
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu; do
        [ -e "$d/libcuda.so.1" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    done
    local java="$dev/jre/bin/java"
    local jvm=(-Xmx64g -Dguice_bytecode_gen_option=DISABLED -Djava.library.path="$dev/native")
    local polyhe=("$java" "${jvm[@]}" --module-path "$dev/lib" --add-modules ALL-MODULE-PATH
        -m dev.polyhe.launcher/dev.polyhe.launcher.Main)
    {
        echo "commit $(cat "$dev/commit" 2>/dev/null || echo unknown)"
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
        nproc
    } >"$out/machine.txt"
    "${polyhe[@]}" plugins --format json >"$out/plugins.json" 2>&1 || true
    # the tests on the class path (one loader: the tests reach the backend's package-private classes)
    local cp="$dev/tests/classes:$(ls "$dev"/tests/polyhe-he-conformance-*.jar):$(ls "$dev"/lib/*.jar | paste -sd:)"
    local junit=("$java" "${jvm[@]}" -jar "$(ls "$dev"/tests/junit-platform-console-standalone-*.jar)" execute
        --class-path "$cp" --details=tree)
    run_step tests 100 "${junit[@]}" --select-package dev.polyhe.backend.cuda \
        --exclude-classname '.*(HostEmulation|Emulated).*' --reports-dir "$out/junit"
    # the same kernels under eager module loading (the driver's default is lazy): a failure in one mode only
    # points at the module's loading
    run_step tests-eager 30 env CUDA_MODULE_LOADING=EAGER "${junit[@]}" --select-class dev.polyhe.backend.cuda.CudaLimbTest
    run_step bench-ckks 60 "${polyhe[@]}" bench ckks --backend ckks-cuda --logN 16 --format json --runs 7 --warmup 2
    run_step bench-bootstrap 90 "${polyhe[@]}" bench ckks --backend ckks-cuda --op bootstrap --format json --runs 3 --warmup 1
    run_step bench-layer 120 "${polyhe[@]}" bench layer --backend ckks-cuda --shape pythia-70m --tokens 128 \
        --vocab 128 --preset N16-boot-128 --format json --report "$out/layer.json"
    # the CPU backend on the machine's 16 cores: limbs and independent ciphertexts at once (docs/benchmarks.md)
    run_step bench-bootstrap-cpu16 70 "${polyhe[@]}" bench ckks --backend ckks-cpu --op bootstrap --threads 16 \
        --format json --runs 1 --warmup 0
    run_step bench-layer-cpu 400 "${polyhe[@]}" bench layer --backend ckks-cpu --shape pythia-70m --tokens 128 \
        --vocab 128 --preset N16-boot-128 --format json --report "$out/layer-cpu.json"
    echo "== end $(date -u +%T)" | tee -a "$out/summary.txt"
    # what comes back from a device machine is a few files: everything in one archive, the summary beside it
    tar -czf "$results/results.tar.gz" -C "$out" .
    cp "$out/summary.txt" "$results/"
    # the reply shows the end of the output: the steps (above), the machine, the tests' counts and each step's last lines
    cat "$out/machine.txt"
    grep -E 'tests (successful|failed|aborted)' "$out/tests.out" "$out/tests-eager.out" || true
    for f in "$out"/*.log; do echo "-- $(basename "$f")"; tail -n 4 "$f"; done
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *) echo "usage: device-check.sh prepare | run RESULTS" >&2; exit 2 ;;
esac
