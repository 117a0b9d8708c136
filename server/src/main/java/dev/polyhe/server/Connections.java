package dev.polyhe.server;

import java.time.Duration;

/**
 * How long and how many: the bounds the HTTP engine puts on each peer, so that one client with many sockets, or
 * sockets that send slowly or nothing, cannot take the server off the air.
 *
 * @param maxPerAddress connections open at once from one client address; beyond, a new one is refused (closed at
 *     once, never queued)
 * @param idleTimeout a connection with nothing to read or write for this long is closed (a kept-alive one between
 *     requests, a peer stalled mid-request)
 * @param headerTimeout a request's line and headers must have come within it once they began to arrive, or its
 *     connection is closed (a peer sending one header line every few seconds)
 * @param minBodyRate bytes a second a request's body must keep on average, after its first 5 seconds; slower, 408 and
 *     the connection closed
 * @param requestTimeout a request's body must have come within it (raise it for multi-gigabyte uploads on slow links)
 */
public record Connections(
        int maxPerAddress, Duration idleTimeout, Duration headerTimeout, long minBodyRate, Duration requestTimeout) {
    public static final int MAX_PER_ADDRESS = 64;
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration HEADER_TIMEOUT = Duration.ofSeconds(10);
    public static final long MIN_BODY_RATE = 1024;
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(600);

    public Connections {
        if (maxPerAddress < 1) {
            throw new IllegalArgumentException("--max-connections-per-address needs at least 1, got " + maxPerAddress);
        }
        for (var d : new Duration[] {idleTimeout, headerTimeout, requestTimeout}) {
            if (d == null || d.toMillis() < 1) {
                throw new IllegalArgumentException(
                        "--idle-timeout, --header-timeout and --request-timeout need at least 1 ms, got " + d);
            }
        }
        if (minBodyRate < 1) {
            throw new IllegalArgumentException("--min-body-rate needs at least 1 byte a second, got " + minBodyRate);
        }
    }

    /** The defaults: 64 connections per address, 30 s idle, 10 s for headers, 1 KiB/s for bodies, 600 s in all. */
    public static Connections defaults() {
        return new Connections(MAX_PER_ADDRESS, IDLE_TIMEOUT, HEADER_TIMEOUT, MIN_BODY_RATE, REQUEST_TIMEOUT);
    }

    public Connections withMaxPerAddress(int n) {
        return new Connections(n, idleTimeout, headerTimeout, minBodyRate, requestTimeout);
    }

    BodyPace pace() {
        return new BodyPace(minBodyRate, BodyPace.GRACE_MILLIS, requestTimeout.toMillis());
    }
}
