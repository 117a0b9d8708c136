package dev.polyhe.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How full the store's disk may get: a fraction of its size in use ({@code 0.95}), or a number of bytes that must stay
 * free ({@code 10737418240}). A write that would pass the mark is refused (507) before it starts, and stopped when
 * the disk reaches it while the write goes on (others write to the same disk).
 *
 * @param fraction the share of the disk that may be in use, in (0, 1]; or 0 when {@code freeBytes} is the mark
 * @param freeBytes the bytes that must stay free; or 0 when {@code fraction} is the mark
 */
public record DiskHighWater(double fraction, long freeBytes) {
    /** The default: a write stops at 95 % of the disk in use. */
    public static final DiskHighWater DEFAULT = new DiskHighWater(0.95, 0);

    public DiskHighWater {
        if (!(fraction > 0 && fraction <= 1 && freeBytes == 0) && !(fraction == 0 && freeBytes > 0)) {
            throw new IllegalArgumentException("--disk-high-water needs a fraction of the disk in (0, 1], such as "
                    + "0.95, or a whole number of bytes to keep free, such as 10737418240");
        }
    }

    /** {@code 0.95} (a fraction of the disk that may be in use) or {@code 10737418240} (bytes kept free). */
    public static DiskHighWater parse(String value) {
        String v = value == null ? "" : value.trim();
        try {
            if (v.matches("\\d{1,18}")) {
                return new DiskHighWater(0, Long.parseLong(v));
            }
            if (v.matches("0?\\.\\d+|1(\\.0*)?")) {
                return new DiskHighWater(Double.parseDouble(v), 0);
            }
        } catch (IllegalArgumentException e) {
            // named below
        }
        throw new IllegalArgumentException("--disk-high-water '" + value + "' is neither a fraction of the disk in "
                + "(0, 1], such as 0.95, nor a whole number of bytes to keep free, such as 10737418240");
    }

    /**
     * @param incoming bytes about to be written (0: the disk as it is now)
     * @throws HttpError 507 when writing them would pass the mark
     */
    void check(Path store, long incoming) {
        FileStore disk;
        long total;
        long usable;
        try {
            disk = Files.getFileStore(store);
            total = disk.getTotalSpace();
            usable = disk.getUsableSpace();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long left = usable - Math.max(incoming, 0);
        boolean over = fraction > 0 ? total - left > fraction * total : left < freeBytes;
        if (over) {
            throw new HttpError(
                    507,
                    "the server's disk is at its high-water mark (--disk-high-water " + this
                            + (incoming > 0 ? ", with the " + incoming + " bytes of this request" : "")
                            + "); nothing was kept: try again later, or delete key sets or jobs you no longer need");
        }
    }

    @Override
    public String toString() {
        return fraction > 0
                ? java.math.BigDecimal.valueOf(fraction).stripTrailingZeros().toPlainString() + " of the disk in use"
                : freeBytes + " bytes kept free";
    }
}
