package dev.polyhe.models.roberta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.model.ModelInput;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RobertaPositionsTest {
    private final RobertaModel model =
            (RobertaModel) new RobertaArchitecture().load(Path.of("src/test/resources/golden/roberta"));

    @Test
    void positionsCountNonPaddingTokensPastThePaddingIndex() {
        // pad_token_id 1: non-padding tokens get 1 + their 1-based count, padding tokens get 1
        assertArrayEquals(new long[] {2, 3, 4, 5}, model.positionIds(new long[] {0, 7, 9, 2}));
        assertArrayEquals(new long[] {2, 1, 3, 1}, model.positionIds(new long[] {0, 1, 5, 1}));
    }

    @Test
    void sequencesLongerThanThePositionTableAreRefused() {
        long[] ids = new long[65];
        String msg = assertThrows(IllegalArgumentException.class, () -> model.embed(ModelInput.tokens(ids)))
                .getMessage();
        assertTrue(msg.contains("65 input_ids; expected 1 .. 64"), msg);
    }
}
