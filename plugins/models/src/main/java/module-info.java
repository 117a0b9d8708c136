/**
 * Transformer families read from Hugging Face checkpoints ({@code config.json} + safetensors): GPT-NeoX
 * (Pythia), RoBERTa and ViT. Each is written once against {@link dev.polyhe.api.arith.TensorOps}, so the same
 * code runs exact, polynomial and encrypted. Hosts find them as {@link dev.polyhe.api.model.ModelArchitecture}
 * services; the exported packages are the checkpoint reader and the tokenizer, for hosts that want them.
 */
module dev.polyhe.models {
    requires dev.polyhe.api;
    requires com.fasterxml.jackson.databind;

    exports dev.polyhe.models.safetensors;
    exports dev.polyhe.models.tokenizer;

    provides dev.polyhe.api.model.ModelArchitecture with
            dev.polyhe.models.gptneox.GptNeoXArchitecture,
            dev.polyhe.models.roberta.RobertaArchitecture,
            dev.polyhe.models.vit.VitArchitecture;
}
