package dev.polyhe.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.core.bench.RandomCheckpoint;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code polyhe batch} on Spark's local mode: four queries of a generated GPT-NeoX on an insecure small ring, two at
 * a time, each decrypting to the plaintext polynomial model's answer with the key set read once; a file that is no
 * query refused before Spark runs it, a corrupted query tried twice and reported while the others finish.
 */
class BatchCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static TinyBatch tiny;
    static Path model;
    static Path queries;
    static Path store;

    @BeforeAll
    static void prepare() throws Exception {
        tiny = new TinyBatch(dir, 4);
        model = tiny.model;
        queries = tiny.queries;
        store = tiny.store;
        Files.write(queries.resolve("junk.ct"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        tiny.corruptQuery(queries.resolve("q9-corrupt.ct"));
    }

    @AfterAll
    static void release() {
        ExecutorCache.release();
        tiny.close();
    }

    record Run(int code, String out, String err) {}

    static Run batch(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = BatchCommand.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void answersEveryQueryAndReportsTheOnesThatFailed() throws Exception {
        Path output = dir.resolve("answers");
        int loadsBefore = ExecutorCache.KEY_LOADS.get();
        Run r = batch(
                "--master",
                "local[2]",
                "--model",
                model.toString(),
                "--queries",
                queries.toString(),
                "--keys-store",
                store.toString(),
                "--output",
                output.toString(),
                "--threads",
                "1",
                "--insecure-test");
        assertEquals(1, r.code(), r.out() + r.err());
        assertEquals(1, ExecutorCache.KEY_LOADS.get() - loadsBefore, "the key set is read once for every query");

        JsonNode report = JSON.readTree(output.resolve("batch.json").toFile());
        assertEquals(6, report.get("queries").asInt());
        assertEquals(4, report.get("done").asInt());
        assertEquals(2, report.get("failed").asInt());
        assertTrue(report.get("master").asText().startsWith("local[2]"), report.toString());
        assertEquals(
                "power-softmax {epsilon=0.001, p=4} (declared by the checkpoint)",
                report.get("attention").asText(),
                "which attention ran, and why");
        for (JsonNode row : report.get("results")) {
            String name = row.get("query").asText();
            switch (name) {
                case "junk.ct" -> {
                    assertEquals("failed", row.get("status").asText());
                    assertEquals(0, row.get("attempts").asInt(), "refused by the driver, never run");
                    assertTrue(row.get("error").asText().contains("not a valid encrypted tensor file"), row.toString());
                }
                case "q9-corrupt.ct" -> {
                    assertEquals("failed", row.get("status").asText());
                    assertEquals(2, row.get("attempts").asInt(), "tried again once, then reported");
                    assertTrue(row.get("error").asText().contains("attempt 2: "), row.toString());
                }
                default -> {
                    assertEquals("done", row.get("status").asText(), row.toString());
                    assertEquals(1, row.get("attempts").asInt());
                    assertTrue(row.get("seconds").get("evaluate").asDouble() > 0);
                    assertTrue(row.get("bootstraps").asLong() > 0, "the tiny model is deeper than the N10 chain");
                }
            }
        }
        assertFalse(Files.exists(output.resolve("q9-corrupt.result.ct")), "no answer, not half of one");
        try (var left = Files.list(output)) {
            assertTrue(left.noneMatch(p -> p.toString().endsWith(".tmp")));
        }
        for (int i = 0; i < 4; i++) {
            tiny.assertAnswered(output, i);
        }
        assertTrue(r.out().contains("6 queries: 4 done, 2 failed"), r.out());
        assertTrue(r.err().contains("of 5 queries finished"), r.err());
    }

    /**
     * An encrypted model (issue 53: {@code encrypt-model}'s folder, as a serve store keeps it) answers the queries
     * of the key set it was encrypted under as the plaintext polynomial model does; a query of another key set is
     * refused by the driver.
     */
    @Test
    void anEncryptedModelAnswersTheQueriesOfItsKeySet() throws Exception {
        Path encrypted = dir.resolve("encrypted-model");
        tiny.inference.encryptModel(tiny.keys, tiny.calibration, encrypted);
        Path mine = Files.createDirectories(dir.resolve("encrypted-queries"));
        for (int i = 0; i < 2; i++) {
            Files.copy(queries.resolve("q" + i + ".ct"), mine.resolve("q" + i + ".ct"));
        }
        try (var other = tiny.inference.generateKeys("insecure-test-boot-dense-N10", 4, true)) {
            tiny.inference.write(
                    other.serverKeys(), tiny.inference.encrypt(other, tiny.inputs.get(0)), mine.resolve("other.ct"));
        }
        Path output = dir.resolve("encrypted-answers");
        Run r = batch(
                "--master",
                "local[1]",
                "--model",
                encrypted.toString(),
                "--queries",
                mine.toString(),
                "--keys-store",
                store.toString(),
                "--output",
                output.toString(),
                "--threads",
                "1",
                "--insecure-test");
        assertEquals(1, r.code(), r.out() + r.err());
        JsonNode report = JSON.readTree(output.resolve("batch.json").toFile());
        assertEquals(2, report.get("done").asInt(), report.toString());
        for (JsonNode row : report.get("results")) {
            if (row.get("query").asText().equals("other.ct")) {
                assertEquals(0, row.get("attempts").asInt(), "refused by the driver");
                assertTrue(row.get("error").asText().contains("runs only with key set"), row.toString());
            }
        }
        for (int i = 0; i < 2; i++) {
            tiny.assertAnswered(output, i);
        }
    }

    @Test
    void aSparkThatCannotStartStillWritesTheReport() throws Exception {
        Path output = dir.resolve("no-spark");
        Run r = batch(
                "--master",
                "bogus://127.0.0.1:1",
                "--model",
                model.toString(),
                "--queries",
                queries.toString(),
                "--keys-store",
                store.toString(),
                "--output",
                output.toString(),
                "--insecure-test");
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("polyhe batch: Spark failed, 5 queries not answered (see batch.json): "), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace");
        JsonNode report = JSON.readTree(output.resolve("batch.json").toFile());
        assertEquals(0, report.get("done").asInt());
        for (JsonNode row : report.get("results")) {
            assertEquals("failed", row.get("status").asText());
            String expected = row.get("query").asText().equals("junk.ct")
                    ? "not a valid encrypted tensor file"
                    : "Spark failed: Could not parse Master URL";
            assertTrue(row.get("error").asText().contains(expected), row.toString());
        }
    }

    @Test
    void aJobSparkAbortsStillWritesTheReport() throws Exception {
        // Spark aborts the job when the results outgrow spark.driver.maxResultSize: one failed query's is enough
        Path one = Files.createDirectories(dir.resolve("one-query"));
        Files.copy(queries.resolve("q9-corrupt.ct"), one.resolve("q9-corrupt.ct"));
        Path output = dir.resolve("aborted");
        System.setProperty("spark.driver.maxResultSize", "1b");
        Run r;
        try {
            r = batch(
                    "--master",
                    "local[1]",
                    "--model",
                    model.toString(),
                    "--queries",
                    one.toString(),
                    "--keys-store",
                    store.toString(),
                    "--output",
                    output.toString(),
                    "--retries",
                    "0",
                    "--insecure-test");
        } finally {
            System.clearProperty("spark.driver.maxResultSize");
            ExecutorCache.release(); // the other tests count key reads from nothing
        }
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("polyhe batch: Spark failed, 1 queries not answered"), r.err());
        JsonNode row = JSON.readTree(output.resolve("batch.json").toFile())
                .get("results")
                .get(0);
        assertEquals("failed", row.get("status").asText());
        assertTrue(row.get("error").asText().startsWith("Spark failed: Job aborted"), row.toString());
        assertTrue(row.get("error").asText().contains("spark.driver.maxResultSize"), row.toString());
    }

    @Test
    void badInputIsOneLineAndExitCodeTwo() throws Exception {
        Path out = dir.resolve("unused");
        Run noStore = batch(
                "--master",
                "local[1]",
                "--model",
                model.toString(),
                "--queries",
                queries.toString(),
                "--keys-store",
                Files.createDirectories(dir.resolve("empty-store")).toString(),
                "--output",
                out.toString());
        assertEquals(2, noStore.code(), noStore.err());
        assertTrue(noStore.err().contains("no key set in"), noStore.err());

        Path bare = RandomCheckpoint.write(dir.resolve("uncalibrated"), RandomCheckpoint.shape("tiny"), 5);
        // a checkpoint that declares no attention runs softmax; without calibration.json it cannot be served
        Run noCalibration = batch(
                "--model",
                bare.toString(),
                "--queries",
                queries.toString(),
                "--keys-store",
                store.toString(),
                "--output",
                out.toString());
        assertEquals(2, noCalibration.code(), noCalibration.err());
        assertTrue(noCalibration.err().contains("has no calibration.json"), noCalibration.err());

        Run noQueries = batch(
                "--model",
                model.toString(),
                "--queries",
                Files.createDirectories(dir.resolve("no-queries")).toString(),
                "--keys-store",
                store.toString(),
                "--output",
                out.toString());
        assertEquals(2, noQueries.code(), noQueries.err());
        assertTrue(noQueries.err().contains("no query in"), noQueries.err());
        assertFalse(noStore.err().contains("\tat "), "no stack trace");
    }
}
