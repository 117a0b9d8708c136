package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.InvalidInputException;
import dev.polyhe.core.inference.LoadedModel;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe calibrate}: records the input range of every non-polynomial site of a model. */
@Command(
        name = "calibrate",
        mixinStandardHelpOptions = true,
        description = {
            "Run the exact model over sample inputs and write, per site, the input range of every "
                    + "non-polynomial operation (LayerNorm 1/sqrt, GELU, tanh, attention scores and the row statistics "
                    + "of x^p) to a calibration file that 'polyhe infer --engine poly' reads to set its domains."
        })
final class CalibrateCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    ModelOptions model;

    @Option(names = "--output", required = true, paramLabel = "CAL.json", description = "Calibration file to write.")
    Path output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try (PolyHe polyhe = model.open(common)) {
            InferenceService service = model.service(polyhe);
            LoadedModel loaded = service.load(model.model);
            Calibration cal;
            try {
                cal = service.calibrate(loaded, model.inputs(loaded.model()));
            } catch (InvalidInputException e) {
                throw new ErrorReport.InputException(e.getMessage());
            }
            cal.write(output);
            // the exact model recorded the domains of the polynomial one, which runs this attention
            spec.commandLine().getErr().println("polyhe calibrate: attention " + service.describeAttention(true));
            var out = spec.commandLine().getOut();
            out.printf(
                    "calibrated %s (%s) on %d input(s): %d sites -> %s%n",
                    loaded.modelType(),
                    cal.attention(),
                    cal.samples(),
                    cal.sites().size(),
                    output);
            if (common.verbose) {
                cal.sites()
                        .forEach((site, s) -> out.printf(
                                "  %-45s %-9s [%.4g, %.4g]%s%n",
                                site,
                                s.function(),
                                s.min(),
                                s.max(),
                                s.rowPowerSumMax() == null
                                        ? ""
                                        : String.format(
                                                " sum x^%d in [%.4g, %.4g]",
                                                cal.p(), s.rowPowerSumMin(), s.rowPowerSumMax())));
            }
            out.flush();
        }
        return PolyHeCommand.OK;
    }
}
