package dev.polyhe.server;

import java.util.HashMap;
import java.util.Map;

/**
 * Caps event streams, in all and per tenant: a stream holds a request thread for as long as its job runs, so
 * without a cap a few clients following jobs would take every thread (429 beyond, never a wait).
 */
final class StreamLimits {
    private final int total;
    private final int perTenant;
    private final Map<String, Integer> open = new HashMap<>();
    private int all;

    StreamLimits(int total, int perTenant) {
        if (total < 1 || perTenant < 1) {
            throw new IllegalArgumentException(
                    "event stream limits need at least 1, got " + total + " in all and " + perTenant + " per tenant");
        }
        this.total = total;
        this.perTenant = perTenant;
    }

    /** A held place for one stream; closing it frees the place. */
    interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    synchronized Permit open(Tenant tenant) {
        int mine = open.getOrDefault(tenant.name(), 0);
        if (mine >= perTenant) {
            throw new HttpError(
                    429,
                    "tenant " + tenant.name() + " follows " + mine + " jobs already, this server's "
                            + "limit per tenant (--max-event-streams-per-tenant); poll GET /v1/jobs/{id} instead",
                    5);
        }
        if (all >= total) {
            throw new HttpError(
                    429,
                    "this server streams events to " + all + " clients already, its limit "
                            + "(--max-event-streams); poll GET /v1/jobs/{id} instead",
                    5);
        }
        open.put(tenant.name(), mine + 1);
        all++;
        return () -> release(tenant);
    }

    private synchronized void release(Tenant tenant) {
        all--;
        open.merge(tenant.name(), -1, (a, b) -> a + b == 0 ? null : a + b);
    }
}
