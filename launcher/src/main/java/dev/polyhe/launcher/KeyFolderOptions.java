package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.KeySet;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The key folder of {@code polyhe keys generate}, opened as the client or as the server sees it. */
final class KeyFolderOptions {
    @Option(
            names = "--keys",
            required = true,
            paramLabel = "DIR",
            description = "Key folder from 'polyhe keys generate'.")
    Path keys;

    /** With the secret key: encrypt and decrypt. */
    KeySet client(PolyHe polyhe) throws IOException {
        return KeyFiles.readClient(keys, polyhe.backend(KeyFiles.backend(keys)));
    }

    /**
     * Parameters and evaluation keys only: secret.key is never opened. Parameters below 128 bits are refused unless
     * the server accepts them ({@code --insecure-test} of eval).
     */
    KeySet server(PolyHe polyhe, boolean acceptInsecure) throws IOException {
        return server(polyhe, acceptInsecure, null);
    }

    /**
     * The server's view evaluated on {@code backend}: the name given, else the config's {@code inference.backend},
     * else the backend the key set names (any backend of the key set's data format reads it).
     */
    KeySet server(PolyHe polyhe, boolean acceptInsecure, String backend) throws IOException {
        String name = backend != null ? backend : polyhe.config().inference().backend();
        return KeyFiles.readServer(keys, polyhe.backend(name != null ? name : KeyFiles.backend(keys)), acceptInsecure);
    }
}
