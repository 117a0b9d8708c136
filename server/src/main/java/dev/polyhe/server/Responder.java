package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a route and answers what it throws: an {@link HttpError} with its status, anything else with 500; every error
 * as JSON, its message without the server's folders. The server stays up whatever a request does.
 */
final class Responder {
    private static final Logger LOG = LoggerFactory.getLogger(PolyHeServer.class);

    /** A route, or what it does once the body flows. */
    interface Action {
        void run() throws IOException;
    }

    /** What a route does with a request's body. */
    interface BodyAction {
        void run(InputStream body) throws IOException;
    }

    private final UnaryOperator<String> redact;

    /** @param redact a message for a client: where the server keeps its store and models is none of its business */
    Responder(UnaryOperator<String> redact) {
        this.redact = redact;
    }

    void respond(Exchange ex, Action action) {
        try {
            action.run();
        } catch (HttpError e) {
            if (e.retryAfterSeconds() != null && !ex.answered()) {
                ex.setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
            }
            refuse(ex, e.status(), redact.apply(e.getMessage()));
        } catch (IOException e) {
            // mostly the client went away mid-request: nothing half-written stays (uploads and queries clean
            // up); one still waiting for its answer gets one, without the server's paths
            LOG.debug("request {} {} ended: {}", ex.method(), ex.path(), e.toString());
            refuse(ex, 500, "the server could not complete the request: " + redact.apply(e.toString()));
        } catch (RuntimeException e) {
            LOG.warn("request {} {} failed", ex.method(), ex.path(), e);
            refuse(ex, 500, e.getMessage() == null ? e.getClass().getSimpleName() : redact.apply(e.getMessage()));
        }
    }

    /** Reads the request's body on a thread once it flows, then runs {@code action} with it as {@link #respond}. */
    void withBody(Exchange ex, BodyAction action) {
        ex.body(
                body -> respond(ex, () -> {
                    try (body) {
                        action.run(body);
                    }
                }),
                late -> respond(ex, () -> {
                    throw late;
                }));
    }

    private static void refuse(Exchange ex, int status, String message) {
        if (!ex.answered()) {
            ex.error(status, message);
        }
    }
}
