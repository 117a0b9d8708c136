package dev.polyhe.launcher;

/** Process entry point of the {@code polyhe} command. */
public final class Main {
    private Main() {}

    /** slf4j-simple's level property: diagnostics stay quiet (warnings) unless --verbose asks for debug. */
    static final String LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    public static void main(String[] args) {
        if (System.getProperty(LOG_LEVEL) == null) {
            System.setProperty(LOG_LEVEL, java.util.Arrays.asList(args).contains("--verbose") ? "debug" : "warn");
        }
        // the HTTP engine's own debug lines (a line per byte read) would drown PolyHE's under --verbose
        String jetty = "org.slf4j.simpleLogger.log.org.eclipse.jetty";
        if (System.getProperty(jetty) == null) {
            System.setProperty(jetty, "warn");
        }
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.exit(PolyHeCommand.execute(args));
    }
}
