/** The {@code polyhe} command line, built on the {@link dev.polyhe.core.PolyHe} facade. */
module dev.polyhe.launcher {
    requires dev.polyhe.core;
    requires dev.polyhe.server;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    // PNG charts, where the runtime has AWT (the scripts add it); SVG needs nothing
    requires static java.desktop;

    exports dev.polyhe.launcher;

    opens dev.polyhe.launcher to
            info.picocli;
}
