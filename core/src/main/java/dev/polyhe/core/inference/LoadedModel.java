package dev.polyhe.core.inference;

import dev.polyhe.api.model.Model;
import java.nio.file.Path;

/** A model loaded from a checkpoint folder by the architecture its config.json names. */
public record LoadedModel(Path dir, String modelType, Model model) {}
