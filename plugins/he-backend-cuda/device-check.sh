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
#       --tokens 128`, all with --backend ckks-cuda, and, for issue 17's many-core figure, `bench ckks --op bootstrap
#       --threads 16` on the machine's CPU (ckks-cpu), writing JSON (STEP.out) and logs (STEP.log) to RESULTS, and
#       all of it as RESULTS/results.tar.gz. Each step has its own time limit (run_step's second argument), so a
#       slow step costs its own figures only; the whole run stays inside 9 minutes.
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
    # the JUnit console's reports
    local modules
    modules="$(for j in "$dev"/lib/*.jar; do jar --describe-module --file "$j" 2>/dev/null; done \
        | grep -E '^requires ' | grep -v ' static ' | grep -oE '(java|jdk)\.[a-z.]+$' \
        | cat - <(printf 'java.logging\njdk.unsupported\njava.xml\n') | sort -u | paste -sd, -)"
    jlink --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
        --output "$dev/jre"
    echo "device-check: .device is $(du -sh "$dev" | cut -f1) (modules: $modules)"
    echo "device-check: on the GPU machine run: bash plugins/he-backend-cuda/device-check.sh run \$OUT (carry .device)"
}

run_step() { # name, seconds, command...
    local name="$1" limit="$2"
    shift 2
    local start=$SECONDS
    echo "== $name (limit ${limit}s) $(date -u +%T)" | tee -a "$out/summary.txt"
    set +e
    timeout --kill-after=10 "$limit" "$@" >"$out/$name.out" 2>"$out/$name.log"
    local rc=$?
    set -e
    echo "   rc=$rc in $((SECONDS - start)) s" | tee -a "$out/summary.txt"
}

run() {
    out="${1:?usage: device-check.sh run RESULTS}"
    mkdir -p "$out"
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
        echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
        nproc
    } >"$out/machine.txt"
    "${polyhe[@]}" plugins --format json >"$out/plugins.json" 2>&1 || true
    # the tests on the class path (one loader: the tests reach the backend's package-private classes)
    local cp="$dev/tests/classes:$(ls "$dev"/tests/polyhe-he-conformance-*.jar):$(ls "$dev"/lib/*.jar | paste -sd:)"
    run_step tests 120 "$java" "${jvm[@]}" -jar "$dev"/tests/junit-platform-console-standalone-*.jar execute \
        --class-path "$cp" --select-package dev.polyhe.backend.cuda --exclude-classname '.*(HostEmulation|Emulated).*' \
        --details=tree \
        --reports-dir "$out/junit"
    run_step bench-ckks 60 "${polyhe[@]}" bench ckks --backend ckks-cuda --logN 16 --format json --runs 7 --warmup 2
    run_step bench-bootstrap 120 "${polyhe[@]}" bench ckks --backend ckks-cuda --op bootstrap --format json --runs 3 --warmup 1
    run_step bench-layer 150 "${polyhe[@]}" bench layer --backend ckks-cuda --shape pythia-70m --tokens 128 \
        --vocab 128 --preset N16-boot-128 --format json --report "$out/layer.json"
    # the CPU backend on the machine's 16 cores: limbs and independent ciphertexts at once (docs/benchmarks.md)
    run_step bench-bootstrap-cpu16 80 "${polyhe[@]}" bench ckks --backend ckks-cpu --op bootstrap --threads 16 \
        --format json --runs 1 --warmup 0
    echo "== end $(date -u +%T)" | tee -a "$out/summary.txt"
    # what comes back from a device machine is a few files: everything in one archive, the summary beside it
    tar -czf "$out/results.tar.gz" -C "$out" --exclude results.tar.gz .
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *) echo "usage: device-check.sh prepare | run RESULTS" >&2; exit 2 ;;
esac
