package dev.polyhe.launcher;

import dev.polyhe.api.PolyHeApi;
import picocli.CommandLine;

/** Prints the launcher's module version and the API version. */
final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = VersionProvider.class.getModule().getDescriptor() == null
                ? "dev"
                : VersionProvider.class.getModule().getDescriptor().rawVersion().orElse("dev");
        return new String[] {"polyhe " + v + " (API " + PolyHeApi.VERSION + ")"};
    }
}
