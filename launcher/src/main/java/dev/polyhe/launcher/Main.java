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
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.exit(PolyHeCommand.execute(args));
    }
}
