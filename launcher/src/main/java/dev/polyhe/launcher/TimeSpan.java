package dev.polyhe.launcher;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A span of time on the command line: a whole number and a unit, {@code 500ms}, {@code 90s}, {@code 30m},
 * {@code 24h}, {@code 7d}.
 */
final class TimeSpan implements ITypeConverter<Duration> {
    private static final Pattern SPAN = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        Matcher m = SPAN.matcher(value.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a span of time; expected a whole number and a "
                    + "unit: ms, s, m, h or d (e.g. 24h)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
