#!/usr/bin/env bash
# ckks-cuda's device check, in two steps (the GPU machines have no JDK and no network):
#
#   plugins/he-backend-cuda/device-check.sh prepare
#       here, on a machine with a JDK, Maven and nvcc: builds the project (kernels included) and writes .device/:
#       a jlink runtime (the JDK modules PolyHE needs), the module path (lib/), JCuda's driver binding (native/),
#       the JUnit console and the test classes (tests/). Prints its size; it travels with the working tree.
#
#   bash plugins/he-backend-cuda/device-check.sh run RESULTS
#       on the GPU machine, from the repository root, most important first: the limb-by-limb tests and both
#       conformance kits against ckks-cuda; `bench ckks --op bootstrap` (N16-boot-128); k bootstraps from k threads
#       (k = 1, 2, 4) on one stream and on four (StreamThroughputTest: ciphertexts in flight); `bench ckks --logN 16`;
#       the per-kernel profile of one bootstrap (POLYHE_CUDA_PROFILE=1: device time per kernel from CUDA events,
#       printed to the step's log); `bench layer --shape pythia-70m --tokens 128` with a 128-token head; the limb
#       tests under compute-sanitizer's memcheck and racecheck where the machine has it; the same layer with the
#       50 304-token head, profiled; six layers with the head; and the CPU backend's layer on all the machine's
#       cores. It writes JSON (STEP.out) and logs (STEP.log) to a scratch folder and packs them as
#       RESULTS/results.tar.gz, with RESULTS/summary.txt beside it (a device machine returns only a few files); the
#       summary ends with every figure beside issue 42's target. Each step has its own time limit (run_step's second
#       argument), so a slow step costs its own figures only, and no step runs past the whole run's deadline
#       (DEVICE_CHECK_SECONDS, 580 by default): the last steps get what time is left, or are skipped and say so.
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
    # the JDK modules PolyHE's modules require (not the optional ones: charts' java.desktop; 'transitive' ones too:
    # Jetty's utilities need java.naming), plus what the
    # automatic modules use (java.util.logging: Guice, Guava, JCuda; sun.misc.Unsafe: Guice), and java.xml for
    # the JUnit console's reports and jdk.zipfs for its scan of the module jars
    local modules
    modules="$(for j in "$dev"/lib/*.jar; do jar --describe-module --file "$j" 2>/dev/null; done \
        | grep -E '^requires ' | grep -v ' static ' | sed 's/ transitive$//' | grep -oE '(java|jdk)\.[a-z.]+$' \
        | cat - <(printf 'java.logging\njdk.unsupported\njava.xml\njdk.zipfs\njdk.incubator.vector\n') | sort -u | paste -sd, -)"
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

# A JSON number from a step's output: the first "key" : value after the line matching the section (an op's name).
figure() { # step section key
    local f="$out/$1.out"
    [ -s "$f" ] || { echo "-"; return; }
    local v
    v="$(sed -n "/\"$2\" : /,\$p" "$f" | sed -n "s/.*\"$3\" : \([-0-9.eE]*\).*/\1/p" | head -1)"
    echo "${v:--}"
}

# The median of k bootstraps from k threads on s streams (the throughput step's line), in ms: throughput s k
throughput() {
    local f="$out/throughput.out" v
    [ -s "$f" ] || { echo "-"; return; }
    v="$(sed -n "s/.*bootstraps at once: $1 streams\{0,1\}, $2 threads\{0,1\}: \([0-9.]*\) ms.*/\1/p" "$f" | head -1)"
    echo "${v:--}"
}

# One line per figure of issue 42 beside its target; "-" where its step did not finish.
targets() {
    echo "== issue 42's targets (one H200; medians)"
    printf '%-44s %14s %12s\n' measure now target
    printf '%-44s %14s %12s\n' "mul + relin, N16-boot-128 (ms)" "$(figure bench-bootstrap mul_relin median_ms)" "<= 0.5"
    printf '%-44s %14s %12s\n' "rotation, N16-boot-128 (ms)" "$(figure bench-bootstrap rotate median_ms)" "<= 0.5"
    printf '%-44s %14s %12s\n' "rescale, N16-boot-128 (ms)" "$(figure bench-bootstrap rescale median_ms)" "<= 0.1"
    printf '%-44s %14s %12s\n' "full-slot bootstrap (ms)" "$(figure bench-bootstrap bootstrap median_ms)" "<= 100"
    printf '%-44s %14s %12s\n' "  its worst slot (bits)" "$(figure bench-bootstrap bootstrap precision_bits_min)" ">= 17"
    printf '%-44s %14s %12s\n' "4 bootstraps from 4 threads, 4 streams (ms)" "$(throughput 4 4)" "< 4 x one"
    printf '%-44s %14s %12s\n' "  the same on 1 stream (ms)" "$(throughput 1 4)" "-"
    printf '%-44s %14s %12s\n' "  one bootstrap alone, 4 streams (ms)" "$(throughput 4 1)" "-"
    printf '%-44s %14s %12s\n' "Pythia-70M layer, 128-token head (s/block)" "$(figure bench-layer seconds_per_block seconds_per_block)" "<= 10"
    printf '%-44s %14s %12s\n' "  its MSE vs the polynomial model" "$(figure bench-layer error_vs_poly mse)" "<= 1e-4"
    printf '%-44s %14s %12s\n' "layer with the 50 304-token head (s/block)" "$(figure bench-layer-head seconds_per_block seconds_per_block)" "-"
    printf '%-44s %14s %12s\n' "six layers and the head (s/block)" "$(figure bench-six-layers seconds_per_block seconds_per_block)" "<= 10 (60 s)"
    printf '%-44s %14s %12s\n' "  their MSE vs the polynomial model" "$(figure bench-six-layers error_vs_poly mse)" "<= 1e-4"
    printf '%-44s %14s %12s\n' "the layer on ckks-cpu, all cores (s/block)" "$(figure bench-layer-cpu seconds_per_block seconds_per_block)" "<= 120"
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
    local jvm=(-Xmx64g -Dguice_bytecode_gen_option=DISABLED -Djava.library.path="$dev/native"
        --add-modules jdk.incubator.vector "@$root/config/simd-inlining.args")
    # transparent huge pages where the kernel lends them on request, as ./polyhe asks for them
    grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null && jvm+=(-XX:+UseTransparentHugePages)
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
        --exclude-classname '.*(HostEmulation|Emulated|LaunchBudget|CrossBackend|KernelProfile|DeviceEncoding|ManyInFlight|StreamThroughput).*' \
        --reports-dir "$out/junit"
    # the same kernels under eager module loading (the driver's default is lazy): a failure in one mode only
    # points at the module's loading
    run_step tests-eager 30 env CUDA_MODULE_LOADING=EAGER "${junit[@]}" --select-class dev.polyhe.backend.cuda.CudaLimbTest \
                --select-class dev.polyhe.backend.cuda.GpuEncodingTest
    run_step bench-bootstrap 90 "${polyhe[@]}" bench ckks --backend ckks-cuda --op bootstrap --format json --runs 3 --warmup 1
    # ciphertexts in flight: k bootstraps from k threads (k = 1, 2, 4) on one stream and on four, against one alone
    run_step throughput 150 "${junit[@]}" --select-class dev.polyhe.backend.cuda.StreamThroughputTest
    run_step bench-ckks 60 "${polyhe[@]}" bench ckks --backend ckks-cuda --logN 16 --format json --runs 7 --warmup 2
    run_step profile-bootstrap 60 env POLYHE_CUDA_PROFILE=1 "${polyhe[@]}" bench ckks --backend ckks-cuda \
        --op bootstrap --format json --runs 1 --warmup 0
    run_step bench-layer 120 "${polyhe[@]}" bench layer --backend ckks-cuda --shape pythia-70m --tokens 128 \
        --vocab 128 --preset N16-boot-128 --format json --report "$out/layer.json"
    if command -v compute-sanitizer >/dev/null; then
        # the shared-memory NTT phases and every other kernel under the device's memory and race checkers
        for tool in memcheck racecheck; do
            run_step "sanitize-$tool" 90 compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 7 \
                "${junit[@]}" --select-class dev.polyhe.backend.cuda.CudaLimbTest \
                --select-class dev.polyhe.backend.cuda.GpuEncodingTest
        done
    else
        echo "== sanitizers skipped: compute-sanitizer is not on this machine" | tee -a "$out/summary.txt"
    fi
    run_step bench-layer-head 150 env POLYHE_CUDA_PROFILE=1 "${polyhe[@]}" bench layer --backend ckks-cuda \
        --shape pythia-70m --tokens 128 --vocab 50304 --preset N16-boot-128 --format json
    run_step bench-six-layers 240 "${polyhe[@]}" bench layer --backend ckks-cuda --shape pythia-70m --tokens 128 \
        --layers 6 --vocab 50304 --preset N16-boot-128 --format json
    # the CPU backend on all the machine's cores: limbs and independent ciphertexts at once (docs/benchmarks.md)
    run_step bench-layer-cpu 400 "${polyhe[@]}" bench layer --backend ckks-cpu --shape pythia-70m --tokens 128 \
        --vocab 128 --preset N16-boot-128 --format json --report "$out/layer-cpu.json"
    if [ -s "$out/throughput.out" ]; then
        echo "== ciphertexts in flight (k bootstraps from k threads; medians)" | tee -a "$out/summary.txt"
        grep -o 'bootstraps at once: .*' "$out/throughput.out" | tee -a "$out/summary.txt" || true
    fi
    targets | tee -a "$out/summary.txt"
    echo "== end $(date -u +%T)" | tee -a "$out/summary.txt"
    # what comes back from a device machine is a few files: everything in one archive, the summary beside it
    tar -czf "$results/results.tar.gz" -C "$out" .
    cp "$out/summary.txt" "$results/"
    # the reply shows the end of the output: the steps (above), the machine, the tests' counts and each step's last lines
    cat "$out/machine.txt"
    grep -E 'tests (successful|failed|aborted)' "$out/tests.out" "$out/tests-eager.out" || true
    for f in "$out"/*.log; do echo "-- $(basename "$f")"; tail -n 4 "$f"; done
    # the kernel profiles, the most expensive kernels first
    for f in "$out"/profile-bootstrap.log "$out"/bench-layer-head.log; do
        [ -f "$f" ] && { echo "-- profile in $(basename "$f")"; grep -A 12 'ckks-cuda kernel profile' "$f" || true; }
    done
    sed -n '/issue 42/,$p' "$out/summary.txt"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *) echo "usage: device-check.sh prepare | run RESULTS" >&2; exit 2 ;;
esac
