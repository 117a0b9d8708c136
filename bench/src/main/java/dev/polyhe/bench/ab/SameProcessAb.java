package dev.polyhe.bench.ab;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs {@link Workload} against several builds of he-ckks in one JVM, round after round, the order rotated each
 * round, and prints the medians and their ratios to the first build: on a shared machine two builds timed in two
 * processes minutes apart differ by more than most changes do.
 * Arguments: rounds, workload (bootstrap | rotations | plain | plainSum), then one class path per build; the system
 * property {@code workload.classes} names the folder this module's classes are in (bench/same-process/run).
 */
public final class SameProcessAb {
    /** By name, never by class literal: this class's own loader must not define it (it has no he-ckks). */
    private static final String WORKLOAD = "dev.polyhe.bench.ab.Workload";

    private SameProcessAb() {}

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        String workload = args[1];
        String[] builds = Arrays.copyOfRange(args, 2, args.length);
        Path here = Path.of(System.getProperty("workload.classes"));
        Method[] run = new Method[builds.length];
        for (int i = 0; i < builds.length; i++) {
            List<URL> urls = new ArrayList<>();
            urls.add(here.toUri().toURL());
            for (String entry : builds[i].split(":")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
            ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
            Class<?> w = loader.loadClass(WORKLOAD);
            long t = System.nanoTime();
            w.getMethod("setup", boolean.class).invoke(null, workload.equals("bootstrap"));
            System.out.printf("build %d set up in %.1f s%n", i, (System.nanoTime() - t) / 1e9);
            run[i] = w.getMethod(workload);
        }
        double[][] ms = new double[builds.length][rounds];
        for (int r = 0; r < rounds; r++) {
            StringBuilder line = new StringBuilder("round " + r + ":");
            for (int k = 0; k < builds.length; k++) {
                int i = (k + r) % builds.length;
                ms[i][r] = (long) run[i].invoke(null) / 1e6;
            }
            for (int i = 0; i < builds.length; i++) {
                line.append(String.format(" build %d %.0f ms", i, ms[i][r]));
            }
            System.out.println(line);
        }
        double base = median(ms[0]);
        for (int i = 0; i < builds.length; i++) {
            System.out.printf("build %d: median %.1f ms, %.3f of build 0%n", i, median(ms[i]), median(ms[i]) / base);
        }
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
