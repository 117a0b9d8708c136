import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * bench/abuse-serve's traffic, on 127.0.0.1 only and bounded in count and time: thousands of peers that stall, trickle
 * or idle, held by one selector thread, while probes time health, a job's status and a result. Peers come from
 * loopback source addresses 127.0.0.2 and up, at most PER_SOURCE each, so that the server's cap per address holds
 * them (as it would a botnet's); a peer the server closes is opened again, so the counts stay up.
 *
 * <pre>
 * java bench/abuse/AbuseServe.java PORT STALLED SLOW STREAMS IDLE SECONDS EVENTS_JOB STATUS_JOB
 * </pre>
 */
public final class AbuseServe {
    static final int PER_SOURCE = 48;
    static final byte[] PARTIAL = "GET /v1/health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII);

    enum Kind {
        STALLED,
        SLOW,
        STREAM,
        IDLE
    }

    static final class Peer {
        final Kind kind;
        final InetAddress source;
        SocketChannel channel;
        long nextWrite;
        int sent;

        Peer(Kind kind, InetAddress source) {
            this.kind = kind;
            this.source = source;
        }
    }

    static final ConcurrentHashMap<Kind, AtomicLong> reopened = new ConcurrentHashMap<>();
    static final ConcurrentHashMap<Kind, AtomicLong> open = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int stalled = Integer.parseInt(args[1]);
        int slow = Integer.parseInt(args[2]);
        int streams = Integer.parseInt(args[3]);
        int idle = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        String eventsJob = args[6];
        String statusJob = args[7];
        if (stalled + slow + streams + idle > 8000 || seconds > 600) {
            throw new IllegalArgumentException("at most 8000 peers for 600 s");
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (Kind k : Kind.values()) {
            reopened.put(k, new AtomicLong());
            open.put(k, new AtomicLong());
        }
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
        List<Peer> peers = new ArrayList<>();
        int n = 0;
        for (Kind k : Kind.values()) {
            int count = k == Kind.STALLED ? stalled : k == Kind.SLOW ? slow : k == Kind.STREAM ? streams : idle;
            for (int i = 0; i < count; i++, n++) {
                int s = 2 + n / PER_SOURCE;
                peers.add(new Peer(k, InetAddress.getByAddress(new byte[] {127, 0, (byte) (s >> 8), (byte) s})));
            }
        }
        byte[] events = ("GET /v1/jobs/" + eventsJob + "/events HTTP/1.1\r\nHost: x\r\n\r\n").getBytes();
        byte[] health = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes();
        byte[] slowHead = "PUT /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n".getBytes();

        List<Double> healthMs = Collections.synchronizedList(new ArrayList<>());
        List<Double> statusMs = Collections.synchronizedList(new ArrayList<>());
        AtomicLong healthFailed = new AtomicLong();
        AtomicLong statusFailed = new AtomicLong();
        List<String> junk = Collections.synchronizedList(new ArrayList<>());
        Thread prober = new Thread(() -> probe(server, "/v1/health", 100, end, healthMs, healthFailed));
        Thread status = new Thread(() -> probe(server, "/v1/jobs/" + statusJob, 200, end, statusMs, statusFailed));
        Thread junker = new Thread(() -> junk(server, end, junk));

        Selector selector = Selector.open();
        ByteBuffer sink = ByteBuffer.allocate(1 << 16);
        long startedAt = System.nanoTime();
        long peak = 0;
        boolean probing = false;
        while (System.nanoTime() < end) {
            long now = System.nanoTime();
            // (re)connect, a few hundred per round so that the acceptor is not flooded at once
            int opened = 0;
            for (Peer p : peers) {
                if (p.channel == null && opened < 400) {
                    try {
                        SocketChannel c = SocketChannel.open();
                        c.bind(new InetSocketAddress(p.source, 0));
                        c.connect(server);
                        c.configureBlocking(false);
                        c.register(selector, SelectionKey.OP_READ, p);
                        p.channel = c;
                        p.sent = 0;
                        p.nextWrite = now;
                        open.get(p.kind).incrementAndGet();
                        opened++;
                        byte[] first = switch (p.kind) {
                            case STALLED -> PARTIAL;
                            case SLOW -> slowHead;
                            case STREAM -> events;
                            case IDLE -> health;
                        };
                        c.write(ByteBuffer.wrap(first));
                        p.nextWrite = now + (p.kind == Kind.STALLED ? 5_000_000_000L : 1_000_000_000L);
                    } catch (IOException e) {
                        p.channel = null;
                    }
                } else if (p.channel != null && now - p.nextWrite > 0) {
                    try {
                        if (p.kind == Kind.STALLED) {
                            p.channel.write(ByteBuffer.wrap(("X-" + p.sent++ + ": 1\r\n").getBytes()));
                            p.nextWrite = now + 5_000_000_000L;
                        } else if (p.kind == Kind.SLOW) {
                            p.channel.write(ByteBuffer.wrap(new byte[] {'x'}));
                            p.nextWrite = now + 1_000_000_000L;
                        } else {
                            p.nextWrite = Long.MAX_VALUE / 2;
                        }
                    } catch (IOException e) {
                        close(p);
                    }
                }
            }
            selector.select(100);
            for (SelectionKey key : selector.selectedKeys()) {
                Peer p = (Peer) key.attachment();
                try {
                    sink.clear();
                    if (p.channel.read(sink) < 0) {
                        close(p);
                    }
                } catch (IOException e) {
                    close(p);
                }
            }
            selector.selectedKeys().clear();
            long all = open.values().stream().mapToLong(AtomicLong::get).sum();
            peak = Math.max(peak, all);
            if (!probing && (all >= peers.size() || now - startedAt > 10_000_000_000L)) {
                probing = true;
                System.out.println("load: " + all + " peers connected after "
                        + (now - startedAt) / 1_000_000 + " ms; probing");
                System.out.flush();
                prober.start();
                status.start();
                junker.start();
            }
        }
        for (Peer p : peers) {
            if (p.channel != null) {
                p.channel.close();
            }
        }
        selector.close();
        if (probing) {
            prober.join();
            status.join();
            junker.join();
        }
        System.out.println("peers at once, peak: " + peak + " of " + peers.size() + " (" + stalled
                + " headers that never end, " + slow + " bodies at 1 byte/s, " + streams + " event streams, " + idle
                + " idle keep-alive)");
        System.out.println("closed by the server and opened again: " + reopened);
        System.out.println("/v1/health: " + summary(healthMs, healthFailed.get()));
        System.out.println("GET /v1/jobs/{id} (a tenant's status): " + summary(statusMs, statusFailed.get()));
        System.out.println("junk uploads answered: " + counts(junk));
    }

    static void close(Peer p) {
        try {
            p.channel.close();
        } catch (IOException e) {
            // gone already
        }
        p.channel = null;
        open.get(p.kind).decrementAndGet();
        reopened.get(p.kind).incrementAndGet();
    }

    /** One GET on its own connection every {@code everyMs}, timed to the end of its answer; 5 s at most each. */
    static void probe(InetSocketAddress server, String path, int everyMs, long end, List<Double> ms, AtomicLong failed) {
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes();
        while (System.nanoTime() < end - 1_000_000_000L) {
            long t = System.nanoTime();
            try (Socket s = new Socket()) {
                s.setSoTimeout(5_000);
                s.connect(server, 5_000);
                s.getOutputStream().write(request);
                String head = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                if (head.startsWith("HTTP/1.1 200")) {
                    ms.add((System.nanoTime() - t) / 1e6);
                } else {
                    failed.incrementAndGet();
                }
            } catch (IOException e) {
                failed.incrementAndGet();
            }
            sleep(everyMs);
        }
    }

    /** A megabyte of random bytes as a key upload, every 2 s. */
    static void junk(InetSocketAddress server, long end, List<String> answers) {
        Random r = new Random(52);
        byte[] body = new byte[1 << 20];
        while (System.nanoTime() < end - 3_000_000_000L) {
            r.nextBytes(body);
            try (Socket s = new Socket()) {
                s.setSoTimeout(30_000);
                s.connect(server, 5_000);
                OutputStream out = s.getOutputStream();
                out.write(("PUT /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length
                                + "\r\nConnection: close\r\n\r\n")
                        .getBytes());
                out.write(body);
                InputStream in = s.getInputStream();
                answers.add(new String(in.readNBytes(12), StandardCharsets.US_ASCII).substring(9));
            } catch (IOException e) {
                answers.add("failed");
            }
            sleep(2_000);
        }
    }

    static String summary(List<Double> ms, long failed) {
        List<Double> sorted = new ArrayList<>(ms);
        Collections.sort(sorted);
        if (sorted.isEmpty()) {
            return "no answer, " + failed + " failed";
        }
        int n = sorted.size();
        return String.format(
                "%d of %d answered 200; median %.1f ms, p99 %.1f ms, max %.1f ms",
                n,
                n + failed,
                sorted.get((n - 1) / 2),
                sorted.get(Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)),
                sorted.get(n - 1));
    }

    static String counts(List<String> answers) {
        java.util.TreeMap<String, Integer> c = new java.util.TreeMap<>();
        synchronized (answers) {
            answers.forEach(a -> c.merge(a, 1, Integer::sum));
        }
        return c.toString();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
