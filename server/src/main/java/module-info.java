/**
 * {@code polyhe serve}: private inference over HTTP on Jetty's core server ({@code org.eclipse.jetty.server}, no
 * servlets), whose non-blocking I/O holds no thread for a peer that is idle, stalled or slow.
 */
module dev.polyhe.server {
    requires dev.polyhe.core;
    requires org.eclipse.jetty.server;
    requires org.eclipse.jetty.http;
    requires org.eclipse.jetty.io;
    requires org.eclipse.jetty.util;
    requires java.net.http;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.polyhe.server;
}
