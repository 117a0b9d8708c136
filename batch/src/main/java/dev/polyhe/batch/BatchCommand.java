package dev.polyhe.batch;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.inference.Calibration;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.spark.SparkConf;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code polyhe batch}: a folder of encrypted queries evaluated as one Apache Spark job, one task per query. The same
 * class is the main class for {@code spark-submit} on a cluster, where the master comes from spark-submit.
 */
@Command(
        name = "batch",
        mixinStandardHelpOptions = true,
        versionProvider = BatchCommand.Version.class,
        description = {
            "Server: evaluate every encrypted query (*.ct from 'polyhe encrypt') of a folder as an Apache "
                    + "Spark job, one task per query, each executor loading a key set's evaluation keys once. Writes "
                    + "NAME.result.ct per query NAME.ct (for 'polyhe decrypt') and batch.json with per-query timings.",
            "Exit code 0 when every query was answered, 1 when some failed (each reported in batch.json, the "
                    + "others answered), 2 for bad input."
        })
public final class BatchCommand implements Callable<Integer> {
    @Option(
            names = "--master",
            paramLabel = "URL",
            description = "Spark master: local[N] runs N queries at once in "
                    + "this JVM (default: spark-submit's, else local[*]).")
    String master;

    @Option(
            names = "--model",
            required = true,
            paramLabel = "DIR",
            description = "The served model folder: the "
                    + "checkpoint (its attention: the one config.json declares as polyhe_attention, else "
                    + "softmax, approximated) and calibration.json; or an encrypted model (the folder "
                    + "'polyhe encrypt-model' writes, or a 'polyhe serve' store's STORE/models/ID), which runs the "
                    + "queries of the key set it was encrypted under.")
    Path model;

    @Option(
            names = "--calibration",
            paramLabel = "CAL.json",
            description = "Approximation domains (default: the " + "model folder's calibration.json).")
    Path calibration;

    @Option(
            names = "--queries",
            required = true,
            paramLabel = "DIR",
            description = "Folder of encrypted queries, "
                    + "*.ct. On a cluster: shared storage every executor sees at the same path.")
    Path queries;

    @Option(
            names = "--keys-store",
            required = true,
            paramLabel = "DIR",
            description = "The server halves of the "
                    + "queries' key sets: a 'polyhe serve' store, a folder of key folders, "
                    + "or one key folder. Each query "
                    + "runs with the key set its header names.")
    Path keyStore;

    @Option(
            names = "--output",
            required = true,
            paramLabel = "DIR",
            description = "Where the answers and batch.json " + "go.")
    Path output;

    @Option(
            names = "--retries",
            defaultValue = "1",
            paramLabel = "N",
            description = "Tries again a failed query N " + "times before reporting it (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(
            names = "--threads",
            defaultValue = "0",
            paramLabel = "T",
            description = "The engine's threads per " + "executor (default: the backend's, all cores).")
    int threads;

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description = "HE backend the executors evaluate on, e.g. "
                    + "ckks-cuda (default: the one each query's key set names; any backend "
                    + "of its data format reads it).")
    String backend;

    @Option(names = "--insecure-test", description = "Accept key sets below 128-bit security (tests only).")
    boolean acceptInsecure;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (retries < 0 || threads < 0) {
            throw new BatchInputException("--retries and --threads take a number of 0 or more");
        }
        Path cal = calibration != null ? calibration : model.resolve(Calibration.SERVED_FILE);
        String attention = checkModel();
        spec.commandLine().getErr().println("polyhe batch: attention " + attention);
        SparkConf conf = new SparkConf().setAppName("polyhe batch");
        if (master != null) {
            conf.setMaster(master);
        } else if (!conf.contains("spark.master")) {
            conf.setMaster("local[*]");
        }
        if (conf.get("spark.master").startsWith("local")) {
            // one JVM: no network beyond loopback, no web UI
            conf.setIfMissing("spark.driver.host", "127.0.0.1");
            conf.setIfMissing("spark.driver.bindAddress", "127.0.0.1");
            conf.setIfMissing("spark.ui.enabled", "false");
        } else if (!conf.contains("spark.jars")) {
            // a cluster's executors have Spark only: send them PolyHE (spark-submit sets spark.jars itself)
            conf.set(
                    "spark.jars",
                    String.join(
                            ",",
                            ShippedJars.ofThisJvm().stream().map(Path::toString).toList()));
        }
        // Spark's INFO start-up lines (about 190 under spark-submit) drown the batch's progress
        conf.setIfMissing("spark.log.level", "WARN");
        var settings = new BatchSettings(
                model.toAbsolutePath().toString(),
                cal.toAbsolutePath().toString(),
                acceptInsecure,
                retries,
                threads,
                backend);
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        BatchJob.Result result = BatchJob.run(conf, queries, keyStore, output, settings, err);
        Path report = BatchReport.write(result, model.getFileName().toString(), attention, output);
        out.print(BatchReport.text(result));
        out.println("answers in " + output + ", report " + report);
        out.flush();
        return result.done() == result.outcomes().size() ? 0 : 1;
    }

    /**
     * The model folder is servable (a well-formed attention declaration, readable domains) before Spark starts.
     *
     * @return the attention its executors run, and why
     */
    private String checkModel() {
        if (!Files.isRegularFile(model.resolve("config.json"))) {
            throw new BatchInputException(model + " is not a checkpoint folder (no config.json)");
        }
        if (calibration != null) {
            Calibration.read(calibration);
        } else {
            Calibration.ofServedModel(model);
        }
        // as the executors' façade decides it (PolyHe#privateInference)
        try (PolyHe polyhe = PolyHe.builder().build()) {
            return polyhe.inference().withAttentionOf(model).describeAttention(true);
        }
    }

    /** Runs the command; exit code as the description says. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new BatchCommand());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof BatchInputException
                    || e instanceof ConfigException
                    || e instanceof java.nio.file.NoSuchFileException
                    || e instanceof IllegalArgumentException) {
                line.getErr()
                        .println("polyhe batch: "
                                + (e instanceof java.nio.file.NoSuchFileException
                                        ? "no such file: " + e.getMessage()
                                        : e.getMessage()));
                return 2;
            }
            throw e;
        });
        return cl.execute(args);
    }

    public static void main(String[] args) {
        int code = execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        System.exit(code);
    }

    /** The version of the jar, as {@code polyhe --version} prints it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BatchCommand.class.getPackage().getImplementationVersion();
            return new String[] {"polyhe batch " + (v == null ? "(development build)" : v)};
        }
    }
}
