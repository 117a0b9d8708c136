package dev.polyhe.launcher;

/** Process entry point of the {@code polyhe} command. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(PolyHeCommand.execute(args));
    }
}
