package dev.polyhe.core.encrypted;

import java.util.Locale;

/**
 * A transformer block finished on the server: which of how many, the levels the run has consumed, the
 * bootstraps so far and the seconds since evaluation began.
 */
public record BlockProgress(int block, int blocks, int levelsConsumed, long bootstraps, double elapsedSeconds) {
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "block %d/%d done, %d levels consumed so far", block, blocks, levelsConsumed);
    }
}
