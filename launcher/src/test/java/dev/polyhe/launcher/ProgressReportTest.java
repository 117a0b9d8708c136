package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Progress on stderr: plain lines for logs, one rewritten line with the current operator on a terminal. */
class ProgressReportTest {
    @Test
    void logsGetOneLinePerStepWithBootstrapsAndEta() {
        StringWriter w = new StringWriter();
        ProgressReport p = new ProgressReport(new PrintWriter(w), "ckks sample 0", 2, false);
        p.follow(() -> "never", () -> 0); // no ticker off a terminal
        p.step("block 1/2 done", 7);
        p.step("block 2/2 done", 12);
        p.stop();
        String[] lines = w.toString().split("\n");
        assertEquals(2, lines.length, w.toString());
        assertTrue(
                lines[0].startsWith("ckks sample 0: block 1/2 done [1/2] 7 bootstraps, ") && lines[0].contains("ETA"),
                lines[0]);
        assertTrue(lines[1].contains("[2/2] 12 bootstraps") && lines[1].endsWith("done"), lines[1]);
        assertFalse(w.toString().contains("\r"), "no terminal control in a log");
    }

    @Test
    void aTerminalLineShowsTheOperatorBeingEvaluated() {
        StringWriter w = new StringWriter();
        ProgressReport p = new ProgressReport(new PrintWriter(w), "eval", 3, true);
        p.tick("layers.0/attention/attention-normalization", 4);
        assertTrue(
                w.toString()
                        .startsWith(
                                "\r\033[Keval: [0/3] layers.0/attention/attention-normalization, 4 " + "bootstraps, "),
                w.toString());
        p.step("block 1/3 done", 9);
        assertTrue(w.toString().contains("[1/3] 9 bootstraps"), w.toString());
        assertEquals("1 min 05 s", ProgressReport.duration(65));
    }
}
