package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.ckks.scheme.CkksPresets;

/**
 * {@link StreamThroughputTest}'s code on the emulated device, small (insecure-test-boot-N10, four streams, one and
 * two threads, one run): the device check's step works before a device machine runs it. Its times say nothing of a
 * GPU's.
 */
class EmulatedStreamThroughputTest extends StreamThroughputTest {
    @Override
    Availability availability() {
        return Availability.yes();
    }

    @Override
    CkksParameters parameters() {
        return CkksPresets.get("insecure-test-boot-N10");
    }

    @Override
    HeContext device(CkksParameters parameters, int streams) {
        return new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30), streams).open(parameters);
    }

    @Override
    int[] threads() {
        return new int[] {1, 2};
    }

    @Override
    int[] streams() {
        return new int[] {4};
    }

    @Override
    int runs() {
        return 1;
    }
}
