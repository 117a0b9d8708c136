package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line in-process, with the plugins PolyHE ships on the module path. */
class LauncherTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    static Run polyhe(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = PolyHeCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    private Path config(String yaml) throws Exception {
        Path f = dir.resolve("c.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    void everyCommandHasHelp() {
        for (String cmd : new String[] {"plugins", "run"}) {
            Run r = polyhe(cmd, "--help");
            assertEquals(0, r.code(), cmd);
            assertTrue(r.out().contains("Usage: polyhe " + cmd), r.out());
        }
        assertEquals(0, polyhe("--help").code());
    }

    @Test
    void unknownCommandsAndOptionsAreUsageErrors() {
        Run r = polyhe("frobnicate");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("polyhe: Unmatched argument"), r.err());
        assertEquals(2, polyhe("plugins", "--format", "xml").code());
    }

    @Test
    void aThreadCountBelowOneIsAUsageErrorNamingTheFlag() {
        for (String cmd : new String[] {"infer", "eval", "bench layer"}) {
            String[] args = (cmd + " --threads 0").split(" ");
            Run r = polyhe(args);
            assertEquals(2, r.code(), cmd + ": " + r.err());
            assertTrue(r.err().contains("--threads must be >= 1, got 0"), cmd + ": " + r.err());
        }
    }

    @Test
    void aMissingConfigFileIsAUsageErrorInOneLine() {
        Run r = polyhe("run", dir.resolve("absent.yaml").toString());
        assertEquals(2, r.code());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("does not exist"), r.err());
    }

    @Test
    void anUnknownConfigKeyNamesItsPath() throws Exception {
        Run r = polyhe("run", config("benchmark:\n  rowz: 3\n").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("unknown key 'benchmark.rowz'"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace without --verbose");
    }

    @Test
    void runRefusesAConfigThatGivesItNothingToDo() throws Exception {
        Run r = polyhe("run", config("inference:\n  engine: poly\n").toString());
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("'workload'") && r.err().contains("polyhe infer --config"), r.err());
        assertEquals(
                0,
                polyhe(
                                "run",
                                config("workload: attention-benchmark\nbenchmark: {length: 8, rows: 2}\n")
                                        .toString())
                        .code());
        Run json = polyhe(
                "run",
                "--format",
                "json",
                config("workload: attention-benchmark\nbenchmark: {length: 8, " + "rows: 2}\n")
                        .toString());
        assertEquals(0, json.code(), json.err());
        var report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
        assertEquals(8, report.get("length").asInt());
        assertTrue(
                report.get("results").size() > 0 && report.get("results").get(0).has("max_error_vs_softmax"),
                json.out());
    }

    @Test
    void verboseShowsTheStackTrace() throws Exception {
        Run r = polyhe("run", "--verbose", config("benchmark:\n  rowz: 3\n").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("\tat "), r.err());
    }

    @Test
    void runningOutOfMemoryIsOneLineNamingTheHeapAndHowToGrowIt() {
        // as a worker thread's error arrives: wrapped in the exception its future throws
        var wrapped = new java.util.concurrent.CompletionException(new OutOfMemoryError("Java heap space"));
        String line = ErrorReport.message(wrapped);
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.startsWith("out of memory (Java heap space) with a Java heap of at most "), line);
        assertTrue(line.contains("POLYHE_JAVA_OPTS=-Xmx"), line);
        assertEquals(PolyHeCommand.FAILURE, ErrorReport.exitCode(wrapped));
        assertTrue(
                ErrorReport.outOfMemoryMessage(new OutOfMemoryError(), 3L << 30).contains("at most 3.0 GiB"));
    }
}
