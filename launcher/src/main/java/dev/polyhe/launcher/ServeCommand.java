package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.server.PolyHeServer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe serve}: private inference over HTTP until stopped (Ctrl-C or SIGTERM). */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve private inference over HTTP: clients upload their key set's server half once "
                + "('polyhe remote keys upload') and submit encrypted queries ('polyhe remote infer'). Each model "
                + "folder declares its attention (config.json polyhe_attention) and holds calibration.json. "
                + "Endpoints: see docs/serving.md."})
final class ServeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--port", defaultValue = "8080", description = "Port (default: ${DEFAULT-VALUE}; 0: any free).")
    int port;

    @Option(names = "--models", required = true, arity = "1..*", paramLabel = "DIR",
            description = "Checkpoint folders to serve; a model's name is its folder's name.")
    List<Path> models;

    @Option(names = "--store", required = true, paramLabel = "DIR",
            description = "Where key sets, queries and results are kept (they survive a restart).")
    Path store;

    @Option(names = "--workers", defaultValue = "1",
            description = "Jobs evaluated at once (default: ${DEFAULT-VALUE}; each uses every core of the backend).")
    int workers;

    @Option(names = "--max-queue", defaultValue = "16",
            description = "Jobs waiting at most; beyond, 503 with Retry-After (default: ${DEFAULT-VALUE}).")
    int maxQueue;

    @Option(names = "--memory-budget", paramLabel = "BYTES",
            description = "Bytes of evaluation keys held at once, least recently used out (default: 60 % of the "
                    + "heap).")
    Long memoryBudget;

    @Option(names = "--weight-cache", paramLabel = "BYTES",
            description = "Bytes of encoded weight diagonals each served model keeps per key set, so that warm queries "
                    + "skip encoding them; 0: none (default: 10 % of the heap).")
    Long weightCache;

    @Option(names = "--max-upload", defaultValue = "17179869184", paramLabel = "BYTES",
            description = "Largest key upload (default: 16 GiB).")
    long maxUpload;

    @Option(names = "--insecure-test", description = "Accept key sets below 128-bit security (tests only).")
    boolean insecure;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        long budget = memoryBudget != null ? memoryBudget : (long) (0.6 * Runtime.getRuntime().maxMemory());
        PolyHeServer.Settings settings;
        try {
            long weights = weightCache != null ? weightCache : (long) (0.1 * Runtime.getRuntime().maxMemory());
            settings = new PolyHeServer.Settings(port, models, store, workers, maxQueue, budget, maxUpload,
                    1L << 32, insecure, weights);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build();
                PolyHeServer server = PolyHeServer.start(polyhe, settings)) {
            var out = spec.commandLine().getOut();
            out.printf("polyhe serve: http://localhost:%d/v1/ serving %s, %d worker(s), queue %d, keys budget %.1f GiB, "
                    + "store %s%n", server.port(), models, workers, maxQueue, budget / (double) (1L << 30), store);
            out.flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return PolyHeCommand.OK;
    }
}
