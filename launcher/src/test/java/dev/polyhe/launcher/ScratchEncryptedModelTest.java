package dev.polyhe.launcher;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.report.LatencyBreakdown;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScratchEncryptedModelTest {
    @Test
    void scratch() {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            var base = polyhe.inference().config();
            var ic = dev.polyhe.core.config.InferenceConfig.create(null, null, null, 0.1,
                    new dev.polyhe.core.config.PluginChoice("goldschmidt-inv-sqrt", java.util.Map.of("iterations", Integer.getInteger("isq", 6))),
                    new dev.polyhe.core.config.PluginChoice("gelu-sigmoid", java.util.Map.of("degree", Integer.getInteger("gd", 15))),
                    null, java.util.Map.of("division", "goldschmidt", "iterations", Integer.getInteger("div", 12)));
            InferenceService svc = polyhe.inference().withConfig(ic).withAttention(
                    dev.polyhe.core.config.PluginChoice.of("power-softmax-length-agnostic"));
            var model = svc.load(Path.of("../models/tiny-pythia"));
            ModelInput in = ModelInput.tokens(57, 73, 75, 101, 7, 110, 62);
            var cal = svc.calibrate(model, List.of(in));
            var cmp = svc.compare(model, List.of(in), cal);
            System.out.println("POLY DEPTH " + cmp.errors());
            int levels = Integer.getInteger("levels", 0);
            if (levels == 0) {
                return;
            }
            List<Integer> q = new ArrayList<>(List.of(50));
            q.addAll(Collections.nCopies(levels, 40));
            var params = new CkksParameters(10, q, List.of(60, 60, 60, 60), (q.size() + 2) / 3, 40, 0,
                    SecurityLevel.INSECURE_TEST);
            EncryptedInference enc = new EncryptedInference(svc);
            long t0 = System.nanoTime();
            try (var keys = enc.generateKeys(polyhe.plugins().backend("ckks-cpu"), params, 7, false)) {
                System.out.println("keygen " + (System.nanoTime() - t0) / 1e9);
                var ct = enc.encrypt(keys, model.model(), in);
                var r = enc.evaluate(keys, model, ct, cal, System.out::println);
                var logits = enc.decrypt(keys, r.output().logits());
                var plain = cmp.polynomial().get(0).logits();
                double m = 0;
                for (int i = 0; i < logits.data().length; i++) {
                    m = Math.max(m, Math.abs(logits.data()[i] - plain.data()[i]));
                }
                System.out.println("MAX ERR vs poly " + m + " seconds " + r.seconds());
                System.out.println(new LatencyBreakdown(r.accounting(), r.seconds()).toText());
            }
        }
    }
}
