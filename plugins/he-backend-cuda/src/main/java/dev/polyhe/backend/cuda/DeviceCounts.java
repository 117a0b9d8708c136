package dev.polyhe.backend.cuda;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a device was asked to do, counted: the speed a CPU can check. Launches and host synchronizations are the
 * GPU's fixed costs per operation (a few microseconds each, and a synchronization idles the device); uploads and
 * driver allocations inside a steady loop are bugs. Event records and stream waits order the streams of ciphertexts in
 * flight: one thread on one stream needs none. The executor's budgets are tested on the emulated device.
 */
final class DeviceCounts {
    private final AtomicLong launches = new AtomicLong();
    private final AtomicLong synchronizations = new AtomicLong();
    private final AtomicLong uploads = new AtomicLong();
    private final AtomicLong uploadBytes = new AtomicLong();
    private final AtomicLong downloads = new AtomicLong();
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong eventRecords = new AtomicLong();
    private final AtomicLong streamWaits = new AtomicLong();

    void launch() {
        launches.incrementAndGet();
    }

    void synchronization() {
        synchronizations.incrementAndGet();
    }

    void upload(long bytes) {
        uploads.incrementAndGet();
        uploadBytes.addAndGet(bytes);
    }

    void download() {
        downloads.incrementAndGet();
    }

    void allocation() {
        allocations.incrementAndGet();
    }

    /** An event recorded: a stream's point another stream is to wait for. */
    void eventRecord() {
        eventRecords.incrementAndGet();
    }

    /** A stream made to wait for another's event: the order between ciphertexts in flight, without the host. */
    void streamWait() {
        streamWaits.incrementAndGet();
    }

    /** The counts now. */
    Snapshot snapshot() {
        return new Snapshot(
                launches.get(),
                synchronizations.get(),
                uploads.get(),
                uploadBytes.get(),
                downloads.get(),
                allocations.get(),
                eventRecords.get(),
                streamWaits.get());
    }

    /** Counts at one moment; {@link #since} gives what happened between two. */
    record Snapshot(
            long launches,
            long synchronizations,
            long uploads,
            long uploadBytes,
            long downloads,
            long allocations,
            long eventRecords,
            long streamWaits) {
        Snapshot since(Snapshot before) {
            return new Snapshot(
                    launches - before.launches,
                    synchronizations - before.synchronizations,
                    uploads - before.uploads,
                    uploadBytes - before.uploadBytes,
                    downloads - before.downloads,
                    allocations - before.allocations,
                    eventRecords - before.eventRecords,
                    streamWaits - before.streamWaits);
        }

        @Override
        public String toString() {
            return launches + " launches, " + synchronizations + " host synchronizations, " + uploads + " uploads ("
                    + uploadBytes + " bytes), " + downloads + " downloads, " + allocations + " driver allocations, "
                    + eventRecords + " event records, " + streamWaits + " stream waits";
        }
    }
}
