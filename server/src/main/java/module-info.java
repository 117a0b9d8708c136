/**
 * {@code polyhe serve}: private inference over HTTP on the JDK's own server ({@code jdk.httpserver}), so that a
 * server needs nothing beyond the Java runtime and the PolyHE jars.
 */
module dev.polyhe.server {
    requires dev.polyhe.core;
    requires jdk.httpserver;
    requires java.net.http;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.polyhe.server;
}
