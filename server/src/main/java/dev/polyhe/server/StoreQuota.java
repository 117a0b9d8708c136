package dev.polyhe.server;

import java.nio.file.Path;
import java.util.function.LongConsumer;
import java.util.function.ToLongFunction;

/**
 * Bytes a request may add to the store: a tenant's own total ({@code --max-tenant-bytes}: its key sets, queries and
 * results) and the disk's high-water mark ({@code --disk-high-water}). Both answer 507 before anything is written
 * when the request declares its length, and stop a body that passes them while it streams (a chunked upload
 * declares none); the caller removes what it had written. A result counts once it is written: a job admitted is
 * never stopped for its answer.
 */
final class StoreQuota {
    /** How often (in bytes written) a streaming write asks the disk how full it is. */
    static final long DISK_CHECK_BYTES = 16L << 20;

    private final Path store;
    private final long maxTenantBytes;
    private final DiskHighWater highWater;
    private final ToLongFunction<Tenant> stored;

    /** @param stored the bytes a tenant keeps in the store now */
    StoreQuota(Path store, long maxTenantBytes, DiskHighWater highWater, ToLongFunction<Tenant> stored) {
        this.store = store;
        this.maxTenantBytes = maxTenantBytes;
        this.highWater = highWater;
        this.stored = stored;
    }

    /**
     * Admits a request before its body is read, and checks the body as it is written.
     *
     * @param declared the body's Content-Length, or -1 when it declares none
     * @param what names the body in a refusal ("the upload", "the query")
     * @return a check for the bytes written so far, to call as the body streams
     * @throws HttpError 507 when the declared length would pass a limit
     */
    LongConsumer admit(Tenant tenant, long declared, String what) {
        long before = tenant.seesAll() ? 0 : stored.applyAsLong(tenant);
        tenant(tenant, before, Math.max(declared, 0), what);
        highWater.check(store, Math.max(declared, 0));
        long[] nextDiskCheck = {DISK_CHECK_BYTES};
        return written -> {
            tenant(tenant, before, written, what);
            if (written >= nextDiskCheck[0]) {
                nextDiskCheck[0] = written + DISK_CHECK_BYTES;
                highWater.check(store, 0);
            }
        };
    }

    private void tenant(Tenant tenant, long before, long adding, String what) {
        if (!tenant.seesAll() && before + adding > maxTenantBytes) {
            throw new HttpError(
                    507,
                    "tenant " + tenant.name() + " keeps " + before + " bytes in this server's store "
                            + "and " + what + " would " + (adding > 0 ? "add " + adding + ", " : "")
                            + "pass its limit of "
                            + maxTenantBytes + " bytes (--max-tenant-bytes); nothing was kept: delete key sets "
                            + "(DELETE /v1/keys/{id}) or ended jobs (DELETE /v1/jobs/{id}) first");
        }
    }
}
