package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.server.PolyHeServer;
import dev.polyhe.server.RemoteClient;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe remote}: the client of {@code polyhe serve}. */
@Command(
        name = "remote",
        mixinStandardHelpOptions = true,
        description = "The client of 'polyhe serve': upload a key set's server half or an encrypted model, run an "
                + "encrypted query.",
        subcommands = {RemoteCommand.Keys.class, RemoteCommand.Models.class, RemoteCommand.Infer.class})
final class RemoteCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** A server refusal becomes one line with its status; an unreachable server says so. */
    static RuntimeException failure(String server, Exception e) {
        if (e instanceof RemoteClient.RemoteException r) {
            return new ErrorReport.InputException("the server refused (" + r.status()
                    + (r.status() == 404
                            ? ", not found"
                            : r.status() == 401 ? ", not authenticated: --token or POLYHE_TOKEN" : "")
                    + "): " + r.getMessage());
        }
        if (e instanceof java.net.ConnectException) {
            // the JDK's client says null here: name what happened
            return new ErrorReport.InputException("cannot reach " + server + ": connection refused (is 'polyhe "
                    + "serve' running there, on that port?)");
        }
        if (e instanceof javax.net.ssl.SSLException) {
            return new ErrorReport.InputException("cannot reach " + server + " over TLS: " + e.getMessage()
                    + " (a self-signed server needs --truststore; an http:// server needs http:// here)");
        }
        if (e instanceof java.nio.file.NoSuchFileException n) {
            return new ErrorReport.InputException(
                    "no such file: " + n.getFile() + (n.getReason() != null ? " (" + n.getReason() + ")" : ""));
        }
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new java.io.UncheckedIOException(e.getMessage(), new java.io.IOException(e));
    }

    /** A key folder's server half, or one line naming what is missing from it. */
    static final class KeyFolders {
        private KeyFolders() {}

        static Path serverHalf(Path keys) {
            if (!Files.isDirectory(keys)) {
                throw new ErrorReport.InputException("the key folder " + keys + " does not exist; make one with "
                        + "'polyhe keys generate --out " + keys + "'");
            }
            Path half = KeyFiles.serverHalf(keys);
            for (String f : List.of(KeyFiles.KEYSET, KeyFiles.PARAMETERS, KeyFiles.EVALUATION_KEYS)) {
                if (!Files.isRegularFile(half.resolve(f))) {
                    throw new ErrorReport.InputException(keys + " is not a complete key folder: its server half "
                            + half + " has no " + f + " (expected " + KeyFiles.KEYSET + ", " + KeyFiles.PARAMETERS
                            + " and " + KeyFiles.EVALUATION_KEYS + ", as 'polyhe keys generate' writes them)");
                }
            }
            return half;
        }
    }

    @Command(
            name = "keys",
            mixinStandardHelpOptions = true,
            description = "Key sets on a server.",
            subcommands = KeysUpload.class)
    static final class Keys implements Runnable {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }
    }

    @Command(
            name = "upload",
            mixinStandardHelpOptions = true,
            description = "Upload KEYS/server/ (never the client half) to a server; prints the key set's id.")
    static final class KeysUpload implements Callable<Integer> {
        @Mixin
        RemoteConnection remote;

        @Option(names = "--keys", required = true, paramLabel = "KEYS/")
        Path keys;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            String server = remote.server;
            try {
                var answer = remote.client().uploadKeys(KeyFolders.serverHalf(keys));
                spec.commandLine()
                        .getOut()
                        .printf(
                                "key set %s %s (%d bytes)%n",
                                answer.get("key_set").asText(),
                                answer.get("created").asBoolean() ? "stored" : "already stored",
                                answer.get("bytes").asLong());
                return PolyHeCommand.OK;
            } catch (Exception e) {
                throw failure(server, e);
            }
        }
    }

    @Command(
            name = "models",
            mixinStandardHelpOptions = true,
            description = "Encrypted models on a server ('polyhe encrypt-model' folders): upload, list, delete.",
            subcommands = {ModelsUpload.class, ModelsList.class, ModelsDelete.class})
    static final class Models implements Runnable {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }
    }

    @Command(
            name = "upload",
            mixinStandardHelpOptions = true,
            description = {
                "Upload an encrypted model folder for the key set it was encrypted under (its server half uploaded "
                        + "first: 'remote keys upload'); prints the model's id, which 'remote infer --model' takes."
            })
    static final class ModelsUpload implements Callable<Integer> {
        @Mixin
        RemoteConnection remote;

        @Option(
                names = "--model",
                required = true,
                paramLabel = "ENC_DIR",
                description = "The folder 'polyhe encrypt-model' wrote.")
        Path model;

        @Option(
                names = "--keys",
                required = true,
                paramLabel = "KEYS/",
                description = "The key folder the model was encrypted with (only its server half is read).")
        Path keys;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (!EncryptedModelFolder.isEncrypted(model)) {
                throw new ErrorReport.InputException(model + " is not an encrypted model folder (no "
                        + EncryptedModelFolder.MANIFEST + "); make one with 'polyhe encrypt-model'");
            }
            try {
                String keySet = PolyHeServer.keySetId(KeyFolders.serverHalf(keys));
                var answer = remote.client().uploadModel(model, keySet);
                spec.commandLine()
                        .getOut()
                        .printf(
                                "model %s %s for key set %s (%d bytes)%n",
                                answer.get("model").asText(),
                                answer.get("created").asBoolean() ? "stored" : "already stored",
                                keySet,
                                answer.get("bytes").asLong());
                return PolyHeCommand.OK;
            } catch (Exception e) {
                throw failure(remote.server, e);
            }
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "The server's models: those it serves by name, and your encrypted models by id.")
    static final class ModelsList implements Callable<Integer> {
        @Mixin
        RemoteConnection remote;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try {
                var answer = remote.client().models();
                var out = spec.commandLine().getOut();
                answer.path("models").forEach(m -> out.println("served     " + m.asText()));
                answer.path("encrypted_models").forEach(m -> out.println("encrypted  " + m.asText()));
                return PolyHeCommand.OK;
            } catch (Exception e) {
                throw failure(remote.server, e);
            }
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete one of your encrypted models.")
    static final class ModelsDelete implements Callable<Integer> {
        @Mixin
        RemoteConnection remote;

        @Option(names = "--id", required = true, paramLabel = "ID", description = "The model's id.")
        String id;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try {
                remote.client().deleteModel(id);
                spec.commandLine().getOut().println("model " + id + " deleted");
                return PolyHeCommand.OK;
            } catch (Exception e) {
                throw failure(remote.server, e);
            }
        }
    }

    @Command(
            name = "infer",
            mixinStandardHelpOptions = true,
            description = {
                "Encrypt an input locally, run it on the server, follow its progress, fetch and decrypt "
                        + "the result: the same JSON as 'polyhe infer' (with error_vs_poly under --check)."
            })
    static final class Infer implements Callable<Integer> {
        @Mixin
        CommonOptions common;

        @Mixin
        RemoteConnection remote;

        @Option(
                names = "--model",
                required = true,
                paramLabel = "NAME",
                description = "The served model's name, or your encrypted model's id ('remote models upload'; then "
                        + "--checkpoint is the checkpoint in the clear it was made from).")
        String model;

        @Option(
                names = "--checkpoint",
                paramLabel = "DIR",
                description = "The same checkpoint here, for embedding (default: a folder named like the model).")
        Path checkpoint;

        @Option(names = "--keys", required = true, paramLabel = "KEYS/")
        Path keys;

        @Option(names = "--input", required = true, paramLabel = "FILE.json")
        Path input;

        @Option(names = "--output", required = true, paramLabel = "OUT.json")
        Path output;

        @Option(names = "--check", description = "Also run the plaintext polynomial model here and report the error.")
        boolean check;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (checkpoint == null && model.matches("[0-9a-f]{64}")) {
                throw new ErrorReport.InputException("--model " + model + " is an encrypted model's id: give "
                        + "--checkpoint, the checkpoint in the clear it was made from (the input is embedded here)");
            }
            Path local = checkpoint != null ? checkpoint : Path.of(model);
            PrintWriter err = spec.commandLine().getErr();
            String server = remote.server;
            KeyFolders.serverHalf(keys);
            RemoteClient client = remote.client();
            try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build()) {
                PrivateInference inference = polyhe.privateInference(local, KeyFiles.backend(keys));
                List<ModelInput> inputs = inference.readInputs(input);
                if (inputs.size() != 1) {
                    throw new ErrorReport.InputException(
                            input + " holds " + inputs.size() + " samples; remote infer " + "sends one query");
                }
                String keySet = PolyHeServer.keySetId(KeyFolders.serverHalf(keys));
                Path work = Files.createTempDirectory("polyhe-remote-");
                try (ClientKeys clientKeys = inference.loadClientKeys(keys)) {
                    Path query = work.resolve("query.ct");
                    inference.write(clientKeys.serverKeys(), inference.encrypt(clientKeys, inputs.get(0)), query);
                    var submitted = client.submit(model, keySet, query);
                    String job = submitted.get("job_id").asText();
                    err.println("polyhe remote: job " + job + " queued on " + server);
                    err.flush();
                    var last = client.follow(job, s -> {
                        err.printf(
                                Locale.ROOT,
                                "polyhe remote: %s, block %d/%d, %d bootstraps, %.0f s%n",
                                s.get("state").asText(),
                                s.get("blocks_done").asInt(),
                                s.get("blocks").asInt(),
                                s.get("bootstraps").asLong(),
                                s.get("elapsed_seconds").asDouble());
                        err.flush();
                    });
                    if (!last.get("state").asText().equals("done")) {
                        throw new ErrorReport.InputException("job " + job + " ended "
                                + last.get("state").asText()
                                + (last.has("error") ? ": " + last.get("error").asText() : ""));
                    }
                    Path result = work.resolve("result.ct");
                    client.result(job, result);
                    var prediction = inference.decrypt(clientKeys, inference.readAnswer(clientKeys, result));
                    ObjectNode json = OutputJson.MAPPER.createObjectNode();
                    json.put("model_type", inference.modelType())
                            .put("engine", "ckks")
                            .put("server", server)
                            .put("job_id", job)
                            .put("server_seconds", last.get("elapsed_seconds").asDouble());
                    OutputJson.putOutputs(
                            json,
                            inference.modelType(),
                            List.of(prediction.lastHiddenState()),
                            prediction.logits() == null ? null : List.of(prediction.logits()));
                    if (check) {
                        Path cal = work.resolve("calibration.json");
                        client.calibration(model, cal);
                        var a = prediction.agreementWith(
                                inference.plaintextPolynomial(inputs.get(0), Calibration.read(cal)));
                        json.putObject("error_vs_poly")
                                .put("mse", a.mse())
                                .put("max_abs", a.maxAbs())
                                .put("same_prediction", a.samePrediction());
                        spec.commandLine()
                                .getOut()
                                .printf(
                                        Locale.ROOT,
                                        "vs poly: mse %.3e, max %.3e, same prediction " + "%s%n",
                                        a.mse(),
                                        a.maxAbs(),
                                        a.samePrediction());
                    }
                    OutputJson.write(json, output);
                    spec.commandLine().getOut().println("wrote " + output);
                } finally {
                    try (var files = Files.list(work)) {
                        for (Path f : (Iterable<Path>) files::iterator) {
                            Files.deleteIfExists(f);
                        }
                    }
                    Files.deleteIfExists(work);
                }
            } catch (RemoteClient.RemoteException | java.net.ConnectException | javax.net.ssl.SSLException e) {
                throw failure(server, e);
            }
            return PolyHeCommand.OK;
        }
    }
}
