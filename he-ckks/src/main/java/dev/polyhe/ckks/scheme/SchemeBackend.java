package dev.polyhe.ckks.scheme;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import java.util.List;
import java.util.Optional;

/**
 * What every backend of this scheme answers alike, whatever its executor: the presets, the recommendation among
 * them, the security check and the API version. A backend adds its name, availability and how it opens a
 * {@link CkksContext}.
 */
public abstract class SchemeBackend implements HeBackend {
    /** Every executor of this scheme reads and writes the same blobs ({@link CkksSerializer}) and limbs. */
    public static final String DATA_FORMAT = "polyhe-rns-ckks";

    @Override
    public String dataFormat() {
        return DATA_FORMAT;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public List<String> presets() {
        return CkksPresets.names();
    }

    @Override
    public Optional<String> recommendedPreset(int minLogN, int levels, boolean bootstrapping) {
        return CkksPresets.recommended(minLogN, levels, bootstrapping);
    }

    @Override
    public CkksParameters preset(String name) {
        return CkksPresets.get(name);
    }

    /** The security bound on the nominal bit sizes (primes of b bits lie below 2^b): nothing is built. */
    @Override
    public void validate(CkksParameters parameters) {
        SecurityStandard.check(parameters, parameters.logQP());
    }
}
