package dev.polyhe.core.inference;

import java.util.List;
import java.util.Map;

/**
 * How far the polynomial model is from the exact one over a set of inputs.
 *
 * @param layers per block output
 * @param logits NONE for a model without a head
 * @param outOfDomain sites whose inputs left their approximation domain, with the count of such values
 * @param sites the approximation used at each site
 */
public record PolynomialErrorReport(
        ErrorStats lastHiddenState,
        ErrorStats logits,
        List<ErrorStats> layers,
        int maxDepth,
        Map<String, Long> outOfDomain,
        Map<String, String> sites) {}
