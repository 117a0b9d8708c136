package dev.polyhe.server;

import java.util.regex.Pattern;

/**
 * Who made a request: key sets and jobs belong to the tenant that made them.
 *
 * @param admin may read {@code /metrics}
 * @param seesAll the one party of a {@code --no-auth} server, which owns every key set and job (today's behaviour)
 */
public record Tenant(String name, boolean admin, boolean seesAll) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    /** The single party of a server started with {@code --no-auth}. */
    public static final Tenant ANONYMOUS = new Tenant("anonymous", true, true);

    public Tenant {
        checkName(name);
    }

    /** Tenant names become folder names in the store: letters, digits, '.', '_' and '-', 1 to 64, no leading dot. */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tenant name '" + name + "' is not valid: expected 1 to 64 letters, "
                    + "digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }
}
