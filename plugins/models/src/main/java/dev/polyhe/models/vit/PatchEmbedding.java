package dev.polyhe.models.vit;

import dev.polyhe.api.Matrix;
import dev.polyhe.models.layers.Linear;

/**
 * ViT's patch embedding, a convolution with kernel = stride = P, computed as what it is: unfold the image
 * into non-overlapping patches (each flattened in channel, row, column order, patch-rows first) and multiply
 * by the kernel reshaped to [H, C·P·P]. Runs on the client, which holds the image.
 */
record PatchEmbedding(VitConfig config, Linear projection) {

    /** [patches, C·P·P] from pixels [C, S, S] flattened row-major. */
    Matrix unfold(double[] pixels) {
        int p = config.patchSize();
        int s = config.imageSize();
        int n = config.patchesPerSide();
        int len = config.patchLength();
        double[] out = new double[n * n * len];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                int o = (r * n + c) * len;
                for (int ch = 0; ch < config.numChannels(); ch++) {
                    for (int i = 0; i < p; i++) {
                        System.arraycopy(pixels, (ch * s + r * p + i) * s + c * p, out, o, p);
                        o += p;
                    }
                }
            }
        }
        return new Matrix(n * n, len, out);
    }

    Matrix apply(double[] pixels) {
        return projection.applyPlain(unfold(pixels));
    }
}
