# Sourced by the bench scripts: tiny_served_model WORK builds PolyHE once and writes WORK/tiny, a random tiny GPT-NeoX
# (hidden 8, one block, seed 7) declaring PowerSoftmax (p = 4, ε = 1e-3) with its calibration.json, as a served
# model folder; and WORK/keys, a key set on the insecure small bootstrapping ring for up to 4 tokens.
tiny_served_model() {
    local work="$1" root lib
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    lib="$root/launcher/target/lib"
    "$root/polyhe" --version > /dev/null   # build once
    cat > "$work/Gen.java" <<'JAVA'
import dev.polyhe.core.bench.RandomCheckpoint;
import java.nio.file.*;
public class Gen {
    public static void main(String[] a) throws Exception {
        Path m = RandomCheckpoint.write(Path.of(a[0]), RandomCheckpoint.shape("tiny"), 7);
        RandomCheckpoint.declareAttention(m, "power-softmax", java.util.Map.of("p", 4, "epsilon", 0.001));
    }
}
JAVA
    java --module-path "$root/launcher/target/polyhe-launcher-0.1.0-SNAPSHOT.jar:$lib" --add-modules dev.polyhe.core \
        "$work/Gen.java" "$work/tiny"
    echo '{"input_ids": [[3, 8, 1], [5, 2, 9]]}' > "$work/samples.json"
    "$root/polyhe" calibrate --model "$work/tiny" --input "$work/samples.json" \
        --output "$work/tiny/calibration.json" > /dev/null
    "$root/polyhe" keys generate --model "$work/tiny" --preset insecure-test-boot-dense-N10 --bootstrapping \
        --max-tokens 4 --out "$work/keys" > /dev/null
}
