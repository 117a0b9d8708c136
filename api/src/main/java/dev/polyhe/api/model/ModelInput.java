package dev.polyhe.api.model;

/**
 * One input sequence (a batch of one): token ids for text models, or pixel values [channels, height, width]
 * (flattened row-major) for vision models. Exactly one of the two is non-null.
 */
public record ModelInput(long[] inputIds, double[] pixelValues, int[] pixelShape) {
    public ModelInput {
        if ((inputIds == null) == (pixelValues == null)) {
            throw new IllegalArgumentException(
                    "a model input holds either input_ids or pixel_values, not both or neither");
        }
        if (pixelValues != null
                && (pixelShape == null
                        || pixelShape.length != 3
                        || (long) pixelShape[0] * pixelShape[1] * pixelShape[2] != pixelValues.length)) {
            throw new IllegalArgumentException("pixel_values need a [channels, height, width] shape matching their "
                    + pixelValues.length + " values");
        }
    }

    public static ModelInput tokens(long... ids) {
        return new ModelInput(ids, null, null);
    }

    public static ModelInput pixels(double[] values, int channels, int height, int width) {
        return new ModelInput(null, values, new int[] {channels, height, width});
    }
}
