package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.KeySet;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The key folder of {@code polyhe keys generate}, opened as the client or as the server sees it. */
final class KeyFolderOptions {
    @Option(names = "--keys", required = true, paramLabel = "DIR", description = "Key folder from 'polyhe keys generate'.")
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
        return KeyFiles.readServer(keys, polyhe.backend(KeyFiles.backend(keys)), acceptInsecure);
    }
}
