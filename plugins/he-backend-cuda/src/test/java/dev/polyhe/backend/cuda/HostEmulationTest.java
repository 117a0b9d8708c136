package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernels' arithmetic without a GPU: every kernel's per-thread body (a __host__ __device__ function) runs over
 * its grid in plain loops (src/test/cuda/host_emulation.cu, built by nvcc's host compiler) on vectors the Java ring
 * classes wrote, and must give their limbs bit for bit: NTTs (the shared-memory phases replayed block by block
 * between barriers, for every split of the stages), element-wise products and pairs of them, the tensor,
 * automorphisms, basis conversion, rescale, ModUp of all digits + inner product + ModDown at several levels and digit
 * counts, sums of permuted key switches, the ModDown fused with the rescale, the level-0 switch and ModRaise. What it
 * cannot check is the launch itself (grids, the device's 64-bit high product): the device tests do. Skipped where
 * nvcc is not on the PATH.
 */
class HostEmulationTest {
    @TempDir
    Path work;

    @Test
    void theKernelBodiesGiveTheJavaLimbs() throws Exception {
        String nvcc = onPath("nvcc");
        assumeTrue(nvcc != null, "nvcc is not on the PATH: the kernels' host emulation needs it");
        Path source = Path.of("src/test/cuda/host_emulation.cu"); // the module folder is the tests' working directory
        assumeTrue(Files.isRegularFile(source), "no " + source.toAbsolutePath() + ": run from the module folder");
        Path binary = work.resolve("host_emulation");
        run(List.of(nvcc, "-O1", "-std=c++17", "-o", binary.toString(), source.toString()), 600);
        for (int logN : new int[] {5, 12}) {
            Path vectors = work.resolve("vectors-" + logN);
            RingReference.write(vectors, logN, 42 + logN);
            String out = run(List.of(binary.toString(), vectors.toString()), 120);
            assertTrue(out.contains("ALL PASS"), "logN " + logN + ":\n" + out);
            assertTrue(!out.contains("FAIL"), out);
            for (String check : List.of(
                    "ntt phases, every split",
                    "switch sum 1",
                    "moddown+rescale 1",
                    "poly_mul_pair (added)",
                    "double-hoisted 1",
                    "encode_coefficients",
                    "special fft splits",
                    "encode_slots")) {
                assertTrue(
                        out.lines().anyMatch(l -> l.startsWith("PASS") && l.contains(check)),
                        "no check of " + check + ":\n" + out);
            }
            System.out.print(out);
        }
    }

    private static String run(List<String> command, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean done = p.waitFor(seconds, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, command.get(0) + " did not finish in " + seconds + " s:\n" + out);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }

    static String onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
