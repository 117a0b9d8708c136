package dev.polyhe.batch;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on the loopback interface for a test: a master and its workers, each its own JVM started
 * from the Spark jars of this JVM's class path (those named in {@value ShippedJars#SPARK_LIST}), which also make the
 * Spark home whose {@code jars/} (links to them) a worker builds its executors' class path from. {@link #close()}
 * stops them all and deletes the cluster's folder (logs, work folders), never what a link points to.
 */
final class StandaloneCluster implements AutoCloseable {
    /** A daemon's start on two cores shared with other builds: a worker once took over a minute to register. */
    private static final Duration START = Duration.ofSeconds(180);

    final Path dir;
    final Path sparkHome;
    final String sparkClassPath;
    final String masterUrl;
    private final List<Process> processes = new ArrayList<>();
    /** Should the test's JVM end without {@link #close()} (a killed fork), its daemons must not outlive it. */
    private final Thread orphans = new Thread(this::destroyAll, "spark-cluster-stop");

    private StandaloneCluster(Path dir) throws IOException {
        this.dir = dir;
        sparkHome = Files.createDirectories(dir.resolve("spark-home/jars"));
        Set<String> names = ShippedJars.sparkJarNames();
        List<String> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path jar = Path.of(entry);
            if (names.contains(jar.getFileName().toString())) {
                Files.createSymbolicLink(sparkHome.resolve(jar.getFileName()), jar.toAbsolutePath());
                jars.add(jar.toAbsolutePath().toString());
            }
        }
        if (jars.size() != names.size()) {
            throw new IllegalStateException("Spark's runtime class path is not this JVM's: found " + jars.size()
                    + " of the " + names.size() + " jars of " + ShippedJars.SPARK_LIST);
        }
        sparkClassPath = String.join(File.pathSeparator, jars);
        masterUrl = "spark://127.0.0.1:" + freePort();
        Runtime.getRuntime().addShutdownHook(orphans);
    }

    private void destroyAll() {
        synchronized (processes) {
            for (Process p : processes) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

    /** Starts a master and {@code workers} workers of {@code cores} cores each, and waits until they registered. */
    static StandaloneCluster start(int workers, int cores) throws IOException, InterruptedException {
        StandaloneCluster cluster = new StandaloneCluster(Files.createTempDirectory("polyhe-spark-cluster-"));
        Path dir = cluster.dir;
        try {
            cluster.launch(
                    "master",
                    "Starting Spark master at",
                    "org.apache.spark.deploy.master.Master",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    cluster.masterUrl.substring(cluster.masterUrl.lastIndexOf(':') + 1),
                    "--webui-port",
                    "0");
            for (int i = 0; i < workers; i++) {
                Path work = Files.createDirectories(dir.resolve("work-" + i));
                cluster.launch(
                        "worker-" + i,
                        "Successfully registered with master",
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--webui-port",
                        "0",
                        "--cores",
                        String.valueOf(cores),
                        "--memory",
                        "2g",
                        "--work-dir",
                        work.toString(),
                        cluster.masterUrl);
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** A JVM on Spark's class path, as Spark's scripts start one; its output goes to {@code NAME.log}. */
    Process java(String name, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "@" + Path.of("target", "spark-jvm-options").toAbsolutePath(),
                "-cp",
                sparkClassPath));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        Map<String, String> env = pb.environment();
        env.put("SPARK_HOME", sparkHome.getParent().toString());
        env.put("SPARK_SCALA_VERSION", "2.13");
        env.put("SPARK_LOCAL_IP", "127.0.0.1");
        env.remove("SPARK_CONF_DIR");
        Process p = pb.start();
        synchronized (processes) {
            processes.add(p);
        }
        return p;
    }

    String log(String name) throws IOException {
        Path f = dir.resolve(name + ".log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    private void launch(String name, String ready, String... args) throws IOException, InterruptedException {
        Process p = java(name, List.of(args));
        long deadline = System.nanoTime() + START.toNanos();
        while (!log(name).contains(ready)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the Spark " + name + " did not start (expected '" + ready + "' in "
                        + "its log):\n" + log(name));
            }
            Thread.sleep(200);
        }
    }

    /** Every executor's stderr so far (workers keep them under their work folder, APP/EXECUTOR/stderr). */
    String executorLogs() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>)
                    files.filter(f -> f.getFileName().toString().equals("stderr"))::iterator) {
                all.append(Files.readString(f));
            }
        }
        return all.toString();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Stops every JVM it started, politely first. */
    @Override
    public void close() {
        synchronized (processes) {
            for (Process p : processes) {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
            }
            for (Process p : processes) {
                try {
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.descendants().forEach(ProcessHandle::destroyForcibly);
                        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
            processes.clear();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(orphans);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: nothing left for it to do
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }
}
