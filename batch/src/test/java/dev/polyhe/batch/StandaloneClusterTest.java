package dev.polyhe.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code polyhe batch} on a real Spark standalone cluster: a master and a worker in their own JVMs on 127.0.0.1, the
 * executor a third. Two queries of a generated model go through {@code polyhe batch --master spark://...} (the
 * driver in this JVM, shipping PolyHE in spark.jars itself) and through {@code SparkSubmit} (the driver a JVM of its
 * own, the jars given as the docs say); each ran on the executor and decrypts to the plaintext polynomial model's,
 * and a query that fails on the executor is reported.
 */
@Tag("cluster")
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class StandaloneClusterTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static TinyBatch tiny;
    static StandaloneCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        tiny = new TinyBatch(dir, 2);
        cluster = StandaloneCluster.start(1, 2);
    }

    @AfterAll
    static void stop() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            if (tiny != null) {
                tiny.close();
            }
        }
    }

    private List<String> batchArgs(Path queries, Path output) {
        return List.of(
                "--model",
                tiny.model.toString(),
                "--queries",
                queries.toString(),
                "--keys-store",
                tiny.store.toString(),
                "--output",
                output.toString(),
                "--threads",
                "1",
                "--insecure-test");
    }

    @Test
    void polyheBatchShipsItselfToTheExecutors() throws Exception {
        Path queries = Files.createDirectories(dir.resolve("with-corrupt"));
        for (String q : List.of("q0.ct", "q1.ct")) {
            Files.copy(tiny.queries.resolve(q), queries.resolve(q));
        }
        tiny.corruptQuery(queries.resolve("q9-corrupt.ct"));
        Path output = dir.resolve("answers-batch");
        int driverLoads = ExecutorCache.KEY_LOADS.get();
        List<String> args = new ArrayList<>(List.of("--master", cluster.masterUrl));
        args.addAll(batchArgs(queries, output));
        // the executor reaches this driver on the loopback interface
        for (String p : List.of("spark.driver.host", "spark.driver.bindAddress")) {
            System.setProperty(p, "127.0.0.1");
        }
        System.setProperty("spark.ui.enabled", "false");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code;
        try {
            code = BatchCommand.execute(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        } finally {
            for (String p : List.of("spark.driver.host", "spark.driver.bindAddress", "spark.ui.enabled")) {
                System.clearProperty(p);
            }
        }
        assertEquals(1, code, "the corrupted query fails, the others are answered\n" + out + err);
        assertEquals(driverLoads, ExecutorCache.KEY_LOADS.get(), "the driver read no key");
        JsonNode report = JSON.readTree(output.resolve("batch.json").toFile());
        assertEquals(2, report.get("done").asInt(), report.toString());
        for (JsonNode row : report.get("results")) {
            assertEquals("0", row.get("executor").asText(), "ran on the cluster's executor: " + row);
            if (row.get("query").asText().equals("q9-corrupt.ct")) {
                assertEquals("failed", row.get("status").asText());
                assertEquals(2, row.get("attempts").asInt(), row.toString());
            }
        }
        tiny.assertAnswered(output, 0);
        tiny.assertAnswered(output, 1);
        String executors = cluster.executorLogs();
        assertTrue(
                executors.contains("QueryTask: q9-corrupt.ct: attempt 1 of 2 failed"),
                "PolyHE logs on the " + "executor through Spark's slf4j provider:\n" + executors);
    }

    @Test
    void sparkSubmitRunsTheBatchAsTheDocsSay() throws Exception {
        Path output = dir.resolve("answers-submit");
        List<String> jars = ShippedJars.ofThisJvm().stream().map(Path::toString).toList();
        List<String> command = new ArrayList<>(List.of(
                "org.apache.spark.deploy.SparkSubmit",
                "--master",
                cluster.masterUrl,
                "--class",
                BatchCommand.class.getName(),
                "--jars",
                String.join(",", jars.subList(1, jars.size())),
                "--conf",
                "spark.driver.host=127.0.0.1",
                "--conf",
                "spark.driver.bindAddress=127.0.0.1",
                "--conf",
                "spark.ui.enabled=false",
                jars.get(0)));
        command.addAll(batchArgs(tiny.queries, output));
        Process submit = cluster.java("submit", command);
        assertTrue(submit.waitFor(420, TimeUnit.SECONDS), "spark-submit still running:\n" + cluster.log("submit"));
        String log = cluster.log("submit");
        assertEquals(0, submit.exitValue(), log);
        assertTrue(log.contains("2 queries: 2 done, 0 failed"), log);
        long infoLines = log.lines().filter(l -> l.contains(" INFO ")).count();
        assertTrue(
                infoLines < 30, "the driver's Spark logging is quiet by default: " + infoLines + " INFO lines\n" + log);
        JsonNode report = JSON.readTree(output.resolve("batch.json").toFile());
        for (JsonNode row : report.get("results")) {
            assertEquals("0", row.get("executor").asText(), "ran on the cluster's executor: " + row);
        }
        tiny.assertAnswered(output, 0);
        tiny.assertAnswered(output, 1);
        assertTrue(cluster.executorLogs().contains("QueryTask: q1.ct: block 1/1 done"), "the executor's log");
    }
}
