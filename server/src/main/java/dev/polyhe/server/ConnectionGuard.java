package dev.polyhe.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.util.IO;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine does not bound by itself: connections per client address, refused at once beyond the cap (closed
 * as they are accepted, never queued), and the time a request's headers may take to arrive. Jetty reads headers
 * without a thread, and its idle timeout closes a peer that sends nothing; a peer that sends one header line every
 * few seconds is closed here, {@code headerTimeout} after its request began to arrive.
 */
final class ConnectionGuard implements SelectorManager.AcceptListener, Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final int maxPerAddress;
    private final long headerTimeoutNanos;
    private final Map<InetAddress, Integer> open = new HashMap<>();
    private final Map<SelectableChannel, InetAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Connection, HeaderClock> connections = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong headersTooSlow = new AtomicLong();
    private Scheduler.Task sweep;

    ConnectionGuard(int maxPerAddress, long headerTimeoutMillis) {
        this.maxPerAddress = maxPerAddress;
        this.headerTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(headerTimeoutMillis);
    }

    /** Looks for requests whose headers take too long, every quarter of the header timeout (1 s at most). */
    void start(Scheduler scheduler) {
        long period = Math.max(50, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(headerTimeoutNanos) / 4));
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            sweep(System.nanoTime());
            synchronized (this) {
                if (sweep != null) {
                    sweep = scheduler.schedule(tick[0], period, TimeUnit.MILLISECONDS);
                }
            }
        };
        synchronized (this) {
            sweep = scheduler.schedule(tick[0], period, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void stop() {
        if (sweep != null) {
            sweep.cancel();
            sweep = null;
        }
    }

    /** Connections refused because their address had {@code maxPerAddress} open already. */
    long refused() {
        return refused.get();
    }

    /** Connections closed because a request's headers did not arrive within the header timeout. */
    long headersTooSlow() {
        return headersTooSlow.get();
    }

    @Override
    public void onAccepting(SelectableChannel channel) {
        InetAddress address = remote(channel);
        if (address == null) {
            return;
        }
        boolean over;
        synchronized (open) {
            int n = open.getOrDefault(address, 0);
            over = n >= maxPerAddress;
            if (!over) {
                open.put(address, n + 1);
                addresses.put(channel, address);
            }
        }
        if (over) {
            if (refused.getAndIncrement() % 1000 == 0) {
                LOG.warn(
                        "refusing connections from {}: {} open already (--max-connections-per-address); {} refused "
                                + "so far",
                        address.getHostAddress(),
                        maxPerAddress,
                        refused.get());
            }
            IO.close(channel);
        }
    }

    @Override
    public void onAcceptFailed(SelectableChannel channel, Throwable cause) {
        release(channel);
    }

    @Override
    public void onClosed(SelectableChannel channel) {
        release(channel);
    }

    private void release(SelectableChannel channel) {
        InetAddress address = addresses.remove(channel);
        if (address != null) {
            synchronized (open) {
                open.merge(address, -1, (a, b) -> a + b == 0 ? null : a + b);
            }
        }
    }

    private static InetAddress remote(SelectableChannel channel) {
        try {
            return channel instanceof SocketChannel s && s.getRemoteAddress() instanceof InetSocketAddress a
                    ? a.getAddress()
                    : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void onOpened(Connection connection) {
        // the HTTP connection (over TLS, the one that reads what TLS decrypted), not the TLS layer below it
        if (connection instanceof ConnectionMetaData) {
            connections.put(connection, new HeaderClock(connection.getMessagesIn(), connection.getBytesIn()));
        }
    }

    @Override
    public void onClosed(Connection connection) {
        connections.remove(connection);
    }

    /**
     * Between requests (every request begun has its answer begun), a connection whose bytes in grow without a new
     * request has part of one; that part started to arrive at most a sweep before it was first seen. The first sweep
     * between two requests takes the count of bytes the last one left.
     */
    private void sweep(long now) {
        connections.forEach((c, clock) -> {
            long requests = c.getMessagesIn();
            long bytes = c.getBytesIn();
            if (requests != clock.requests || requests != c.getMessagesOut()) {
                clock.requests = requests;
                clock.settled = false;
                clock.partialSince = 0;
            } else if (!clock.settled) {
                clock.bytes = bytes;
                clock.settled = true;
            } else if (bytes != clock.bytes && clock.partialSince == 0) {
                clock.partialSince = now;
            } else if (clock.partialSince != 0 && now - clock.partialSince > headerTimeoutNanos) {
                headersTooSlow.incrementAndGet();
                LOG.debug("closing {}: its request's headers did not arrive within the header timeout", c);
                connections.remove(c);
                c.getEndPoint().close();
            }
        });
    }

    /** What a sweep saw of one connection. */
    private static final class HeaderClock {
        long requests;
        long bytes;
        long partialSince;
        boolean settled = true;

        HeaderClock(long requests, long bytes) {
            this.requests = requests;
            this.bytes = bytes;
        }
    }
}
